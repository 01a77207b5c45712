package agent

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/mqtt"
	"github.com/bramble-edge/bramble/mqtt/client"
)

func localPathPV(name, node, path string, reclaim corev1.PersistentVolumeReclaimPolicy) *corev1.PersistentVolume {
	return &corev1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: name, Annotations: map[string]string{api.AnnotationProvisionedBy: api.ProvisionerLocalPath}},
		Spec: corev1.PersistentVolumeSpec{PersistentVolumeReclaimPolicy: reclaim,
			PersistentVolumeSource: corev1.PersistentVolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: path}},
			NodeAffinity: &corev1.VolumeNodeAffinity{Required: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
				MatchExpressions: []corev1.NodeSelectorRequirement{{Key: corev1.LabelHostname, Operator: corev1.NodeSelectorOpIn, Values: []string{node}}}}}}}}}
}

// TestVolumesGoneRemoveOnlyTheirDirectories: the applier tells which
// volumes were DELETED; only this node's Delete local-path directories
// under the folder go. A volume missing from a relist (a restored
// snapshot, an older server) keeps its directory.
func TestVolumesGoneRemoveOnlyTheirDirectories(t *testing.T) {
	base := filepath.Join(t.TempDir(), "storage")
	l, err := newLocalStorage(base, "pi-1", slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	if a := l.annotations(); a[api.AnnotationLocalStoragePath] != base || a[api.AnnotationLocalStorageCapacity] == "" {
		t.Errorf("annotations: got %v, want the path and a capacity", a)
	}
	outside := filepath.Join(t.TempDir(), "pvc-x")
	pvs := map[string]*corev1.PersistentVolume{
		"del":     localPathPV("pvc-del", "pi-1", filepath.Join(base, "pvc-del_default_a"), corev1.PersistentVolumeReclaimDelete),
		"retain":  localPathPV("pvc-ret", "pi-1", filepath.Join(base, "pvc-ret_default_b"), corev1.PersistentVolumeReclaimRetain),
		"other":   localPathPV("pvc-oth", "pi-2", filepath.Join(base, "pvc-oth_default_c"), corev1.PersistentVolumeReclaimDelete),
		"outside": localPathPV("pvc-out", "pi-1", outside, corev1.PersistentVolumeReclaimDelete),
		"relist":  localPathPV("pvc-rel", "pi-1", filepath.Join(base, "pvc-rel_default_d"), corev1.PersistentVolumeReclaimDelete),
	}
	var changes []mqtt.Change
	for _, pv := range pvs {
		if err := os.MkdirAll(filepath.Join(pv.Spec.HostPath.Path, "data"), 0o755); err != nil {
			t.Fatal(err)
		}
		changes = append(changes, change(t, mqtt.Added, ref(mqtt.ResourceVolumes, "", pv.Name), pv))
	}
	a := NewApplier(openStore(t, t.TempDir()), &fakeManager{})
	a.SetOnVolumesGone(l.volumesGone)
	ctx := context.Background()
	if err := a.Apply(ctx, mqtt.Event{Type: mqtt.EventChanges, Rev: 2, Changes: changes}); err != nil {
		t.Fatal(err)
	}
	var dels []mqtt.Change
	for _, k := range []string{"del", "retain", "other", "outside"} {
		dels = append(dels, change(t, mqtt.Deleted, ref(mqtt.ResourceVolumes, "", pvs[k].Name), nil))
	}
	if err := a.Apply(ctx, mqtt.Event{Type: mqtt.EventChanges, Rev: 3, Prev: 2, Changes: dels}); err != nil {
		t.Fatal(err)
	}
	if err := a.Resync(ctx, client.State{Rev: 4}); err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string]bool{"del": false, "relist": true, "retain": true, "other": true, "outside": true} {
		_, err := os.Stat(pvs[k].Spec.HostPath.Path)
		if got := err == nil; got != want {
			t.Errorf("%s: directory kept %v, want %v", k, got, want)
		}
	}
}

// TestStoreClaim: a bound claim resolves to its volume; the reasons a pod
// waits are named.
func TestStoreClaim(t *testing.T) {
	s := openStore(t, t.TempDir())
	pvc := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "data", Namespace: "default", UID: "c1"}}
	put := func(rev int64, objs ...any) {
		var cs []mqtt.Change
		for _, o := range objs {
			switch o := o.(type) {
			case *corev1.PersistentVolumeClaim:
				cs = append(cs, change(t, mqtt.Added, ref(mqtt.ResourceClaims, "default", o.Name), o))
			case *corev1.PersistentVolume:
				cs = append(cs, change(t, mqtt.Added, ref(mqtt.ResourceVolumes, "", o.Name), o))
			}
		}
		if err := s.Apply(cs, rev); err != nil {
			t.Fatal(err)
		}
	}
	want := func(substr string) {
		t.Helper()
		_, err := s.Claim(context.Background(), "default", "data")
		if err == nil || !strings.Contains(err.Error(), substr) {
			t.Errorf("Claim: got %v, want an error with %q", err, substr)
		}
	}
	want("not found")
	put(2, pvc)
	want("not bound yet")
	pvc.Spec.VolumeName, pvc.Status.Phase = "pvc-c1", corev1.ClaimBound
	put(3, pvc)
	want("is not on node")
	pv := localPathPV("pvc-c1", "pi-1", "/srv/x", corev1.PersistentVolumeReclaimDelete)
	pv.Spec.ClaimRef = &corev1.ObjectReference{Namespace: "default", Name: "data", UID: "c1"}
	put(4, pv)
	got, err := s.Claim(context.Background(), "default", "data")
	if err != nil || got.Spec.HostPath.Path != "/srv/x" {
		b, _ := json.Marshal(got)
		t.Errorf("Claim: got %s, %v; want the volume at /srv/x", b, err)
	}
}
