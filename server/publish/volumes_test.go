package publish

import (
	"context"
	"encoding/json"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/mqtt"
)

func (w writer) volume(name, node string) {
	w.t.Helper()
	pv := &corev1.PersistentVolume{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "PersistentVolume"},
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: corev1.PersistentVolumeSpec{NodeAffinity: &corev1.VolumeNodeAffinity{Required: &corev1.NodeSelector{
			NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{{
				Key: corev1.LabelHostname, Operator: corev1.NodeSelectorOpIn, Values: []string{node}}}}}}}}}
	data, err := json.Marshal(pv)
	if err != nil {
		w.t.Fatal(err)
	}
	if _, err := w.store.Create(context.Background(), "/registry/core/persistentvolumes/"+name, data); err != nil {
		w.t.Fatal(err)
	}
}

// holds replays node's stream and reports whether it holds ref.
func holds(t *testing.T, bus *recordingBus, node string, ref mqtt.ObjectRef) bool {
	evs := bus.events(t, node)
	m, _ := replay(t, evs, chainStart(evs))
	_, ok := m.Versions()[ref]
	return ok
}

// TestVolumesAndClaimsReachTheirNode: a pod's claim goes with the pod; a
// volume goes to the node its affinity names, and its deletion follows.
func TestVolumesAndClaimsReachTheirNode(t *testing.T) {
	store := openStore(t)
	bus := newRecordingBus()
	w := writer{t, store}
	w.volume("pv-early", "pi-1")
	startPublisher(t, store, bus, Config{})
	w.put("persistentvolumeclaims", "data", &corev1.PersistentVolumeClaim{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "PersistentVolumeClaim"},
		ObjectMeta: metav1.ObjectMeta{Name: "data", Namespace: "default"}})
	pod := podObject("web", "pi-1", "", "", "a")
	pod.Spec.Volumes = []corev1.Volume{{Name: "d", VolumeSource: corev1.VolumeSource{
		PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "data"}}}}
	w.put("pods", "web", pod)
	w.pod("other", "pi-2", "", "", "a")
	w.volume("pv-late", "pi-1")
	claim := mqtt.ObjectRef{Resource: mqtt.ResourceClaims, Namespace: "default", Name: "data"}
	late := mqtt.ObjectRef{Resource: mqtt.ResourceVolumes, Name: "pv-late"}
	waitFor(t, "pi-1 to hold the claim and pv-late", func() bool {
		return holds(t, bus, "pi-1", claim) && holds(t, bus, "pi-1", late)
	})
	if holds(t, bus, "pi-2", claim) || holds(t, bus, "pi-2", late) {
		t.Errorf("pi-2 holds pi-1's claim or volume")
	}
	if _, _, err := store.Delete(context.Background(), "/registry/core/persistentvolumes/pv-late", 0); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "pv-late to leave pi-1", func() bool { return !holds(t, bus, "pi-1", late) })
}
