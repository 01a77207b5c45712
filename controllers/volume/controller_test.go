package volume

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/controllers"
	"github.com/bramble-edge/bramble/controllers/controllertest"
	"github.com/bramble-edge/bramble/server/registry"
)

const waitFor = 10 * time.Second

type harness struct{ *controllertest.Env }

func start(t *testing.T) *harness {
	t.Helper()
	e := controllertest.New(t)
	c := New(controllers.Deps{Client: e.Client, Cache: e.Cache, Log: e.Log})
	e.Start()
	ctx, cancel := context.WithCancel(e.Ctx)
	done := make(chan struct{})
	go func() { c.Run(ctx, 2); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	return &harness{e}
}

func (h *harness) class(name, provisioner string, mode storagev1.VolumeBindingMode, reclaim corev1.PersistentVolumeReclaimPolicy) {
	controllertest.MustCreate(h.Env, &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: name},
		Provisioner: provisioner, VolumeBindingMode: &mode, ReclaimPolicy: &reclaim})
}

func (h *harness) node(name, path string) {
	controllertest.MustCreate(h.Env, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name,
		Labels:      map[string]string{corev1.LabelHostname: name},
		Annotations: map[string]string{api.AnnotationLocalStoragePath: path}}})
}

// claim creates a claim as admission would leave it (class, finalizer).
func (h *harness) claim(name, class, size string) *corev1.PersistentVolumeClaim {
	return controllertest.MustCreate(h.Env, &corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", Finalizers: []string{api.FinalizerPVCProtection}},
		Spec: corev1.PersistentVolumeClaimSpec{StorageClassName: &class,
			AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{
				corev1.ResourceStorage: resource.MustParse(size)}}}})
}

func (h *harness) getClaim(name string) (*corev1.PersistentVolumeClaim, error) {
	o, err := h.Client.Get(h.Ctx, claimsRes, "default", name)
	if err != nil {
		return nil, err
	}
	return o.(*corev1.PersistentVolumeClaim), nil
}

func (h *harness) waitBound(name string) *corev1.PersistentVolumeClaim {
	var got *corev1.PersistentVolumeClaim
	h.Eventually(waitFor, func() (err error) {
		if got, err = h.getClaim(name); err != nil {
			return err
		}
		if got.Status.Phase != corev1.ClaimBound || got.Spec.VolumeName == "" {
			return fmt.Errorf("claim %s: phase %q volume %q, want Bound", name, got.Status.Phase, got.Spec.VolumeName)
		}
		return nil
	})
	return got
}

func (h *harness) selectNode(name, node string) {
	h.Eventually(waitFor, func() error {
		pvc, err := h.getClaim(name)
		if err != nil {
			return err
		}
		pvc.Annotations = map[string]string{api.AnnotationSelectedNode: node}
		_, err = h.Client.Update(h.Ctx, pvc)
		return err
	})
}

func (h *harness) gone(res string, ns, name string) {
	h.Eventually(waitFor, func() error {
		_, err := h.Client.Get(h.Ctx, controllertest.Resource("", res), ns, name)
		if apierrors.IsNotFound(err) {
			return nil
		}
		return fmt.Errorf("%s %s/%s still there (err %v)", res, ns, name, err)
	})
}

// TestLocalPathWaitsForConsumerThenProvisions: no volume before a node is
// selected; then a volume on that node under its storage path, bound.
func TestLocalPathWaitsForConsumerThenProvisions(t *testing.T) {
	h := start(t)
	h.class("local-path", api.ProvisionerLocalPath, storagev1.VolumeBindingWaitForFirstConsumer, corev1.PersistentVolumeReclaimDelete)
	h.node("pi-1", "/var/lib/bramble/storage")
	pvc := h.claim("data", "local-path", "1Gi")
	time.Sleep(300 * time.Millisecond)
	if l, _ := h.Registry.List(h.Ctx, volumesRes, "", registry.ListOptions{}); len(l.Items) != 0 {
		t.Fatalf("volumes before a consumer: got %d, want 0", len(l.Items))
	}
	h.selectNode("data", "pi-1")
	got := h.waitBound("data")
	pv := controllertest.MustGet[*corev1.PersistentVolume](h.Env, volumesRes, "", got.Spec.VolumeName)
	wantPath := "/var/lib/bramble/storage/pvc-" + string(pvc.UID) + "_default_data"
	if pv.Spec.HostPath == nil || pv.Spec.HostPath.Path != wantPath {
		t.Errorf("path: got %+v, want %s", pv.Spec.HostPath, wantPath)
	}
	if n := api.LocalPathNode(pv); n != "pi-1" {
		t.Errorf("node affinity: got %q, want pi-1", n)
	}
	if pv.Spec.PersistentVolumeReclaimPolicy != corev1.PersistentVolumeReclaimDelete {
		t.Errorf("reclaim: got %s, want Delete", pv.Spec.PersistentVolumeReclaimPolicy)
	}
}

// TestProtectionAndReclaimDelete: a claim in use by a running pod stays
// until the pod is gone; then its Delete volume is deleted too.
func TestProtectionAndReclaimDelete(t *testing.T) {
	h := start(t)
	h.class("local-path", api.ProvisionerLocalPath, storagev1.VolumeBindingWaitForFirstConsumer, corev1.PersistentVolumeReclaimDelete)
	h.node("pi-1", "/srv")
	h.claim("data", "local-path", "1Gi")
	h.selectNode("data", "pi-1")
	volume := h.waitBound("data").Spec.VolumeName
	pod := controllertest.MustCreate(h.Env, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "app", Namespace: "default"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "busybox"}},
			Volumes: []corev1.Volume{{Name: "d", VolumeSource: corev1.VolumeSource{
				PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "data"}}}}}})
	if err := h.Client.Delete(h.Ctx, claimsRes, "default", "data", controllers.DeleteOptions{}); err != nil {
		t.Fatalf("delete claim: %v", err)
	}
	time.Sleep(300 * time.Millisecond)
	if got, err := h.getClaim("data"); err != nil || got.DeletionTimestamp == nil {
		t.Fatalf("claim in use: got %v, %v; want it kept, being deleted", got, err)
	}
	if err := h.Client.Delete(h.Ctx, podsRes, "default", pod.Name, controllers.DeleteOptions{}); err != nil {
		t.Fatalf("delete pod: %v", err)
	}
	h.gone("persistentvolumeclaims", "default", "data")
	h.gone("persistentvolumes", "", volume)
}

// TestStaticBindAndRetain: an Immediate claim binds the smallest static
// volume that fits; Retain leaves it Released once the claim goes; a
// claim nothing fits stays Pending with an Event.
func TestStaticBindAndRetain(t *testing.T) {
	h := start(t)
	for _, size := range []string{"5Gi", "2Gi", "500Mi"} {
		controllertest.MustCreate(h.Env, &corev1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: "pv-" + strings.ToLower(size)},
			Spec: corev1.PersistentVolumeSpec{StorageClassName: "manual",
				Capacity:                      corev1.ResourceList{corev1.ResourceStorage: resource.MustParse(size)},
				AccessModes:                   []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
				PersistentVolumeReclaimPolicy: corev1.PersistentVolumeReclaimRetain,
				PersistentVolumeSource:        corev1.PersistentVolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/srv/" + size}}}})
	}
	h.claim("small", "manual", "1Gi")
	if got := h.waitBound("small").Spec.VolumeName; got != "pv-2gi" {
		t.Errorf("bound to %s, want pv-2gi (the smallest that fits)", got)
	}
	h.claim("huge", "manual", "10Gi")
	h.Eventually(waitFor, func() error { return h.event("huge", "ProvisioningFailed") })
	if err := h.Client.Delete(h.Ctx, claimsRes, "default", "small", controllers.DeleteOptions{}); err != nil {
		t.Fatalf("delete: %v", err)
	}
	h.Eventually(waitFor, func() error {
		pv := controllertest.MustGet[*corev1.PersistentVolume](h.Env, volumesRes, "", "pv-2gi")
		if pv.Status.Phase != corev1.VolumeReleased {
			return fmt.Errorf("pv-2gi phase %q, want Released", pv.Status.Phase)
		}
		return nil
	})
}

func (h *harness) event(claim, reason string) error {
	l, err := h.Registry.List(h.Ctx, controllertest.Resource("", "events"), "default", registry.ListOptions{})
	if err != nil {
		return err
	}
	for _, o := range l.Items {
		if ev := o.(*corev1.Event); ev.InvolvedObject.Name == claim && ev.Reason == reason {
			return nil
		}
	}
	return fmt.Errorf("no %s event about %s among %d events", reason, claim, len(l.Items))
}

// TestPodPlacedByNameProvisionsOnItsNode: a pod given spec.nodeName (no
// scheduler, so no selected node) still gets its claim's volume on its
// node.
func TestPodPlacedByNameProvisionsOnItsNode(t *testing.T) {
	h := start(t)
	h.class("local-path", api.ProvisionerLocalPath, storagev1.VolumeBindingWaitForFirstConsumer, corev1.PersistentVolumeReclaimDelete)
	h.node("pi-2", "/srv")
	h.claim("data", "local-path", "1Gi")
	controllertest.MustCreate(h.Env, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "app", Namespace: "default"},
		Spec: corev1.PodSpec{NodeName: "pi-2", Containers: []corev1.Container{{Name: "c", Image: "busybox"}},
			Volumes: []corev1.Volume{{Name: "d", VolumeSource: corev1.VolumeSource{
				PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "data"}}}}}})
	pv := controllertest.MustGet[*corev1.PersistentVolume](h.Env, volumesRes, "", h.waitBound("data").Spec.VolumeName)
	if n := api.LocalPathNode(pv); n != "pi-2" {
		t.Errorf("node affinity: got %q, want pi-2", n)
	}
}

func (h *harness) staticVolume(name, class, node string) {
	pv := &corev1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: name, Finalizers: []string{api.FinalizerPVProtection}},
		Spec: corev1.PersistentVolumeSpec{StorageClassName: class,
			Capacity:                      corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")},
			AccessModes:                   []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			PersistentVolumeReclaimPolicy: corev1.PersistentVolumeReclaimRetain,
			PersistentVolumeSource:        corev1.PersistentVolumeSource{Local: &corev1.LocalVolumeSource{Path: "/mnt/" + name}},
			NodeAffinity: &corev1.VolumeNodeAffinity{Required: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
				MatchExpressions: []corev1.NodeSelectorRequirement{{Key: corev1.LabelHostname, Operator: corev1.NodeSelectorOpIn, Values: []string{node}}}}}}}}}
	controllertest.MustCreate(h.Env, pv)
}

// TestStaticLocalOnSelectedNodeAndPVProtection: a WaitForFirstConsumer
// claim of a no-provisioner class binds the local volume on its selected
// node, not the one elsewhere; a bound volume being deleted stays until
// its claim is gone.
func TestStaticLocalOnSelectedNodeAndPVProtection(t *testing.T) {
	h := start(t)
	h.class("local", api.ProvisionerNone, storagev1.VolumeBindingWaitForFirstConsumer, corev1.PersistentVolumeReclaimRetain)
	h.node("pi-1", "/srv")
	h.node("pi-2", "/srv")
	h.staticVolume("disk-1", "local", "pi-1")
	h.staticVolume("disk-2", "local", "pi-2")
	h.claim("data", "local", "1Gi")
	h.selectNode("data", "pi-2")
	if got := h.waitBound("data").Spec.VolumeName; got != "disk-2" {
		t.Fatalf("bound to %s, want disk-2 (on the selected node)", got)
	}
	if err := h.Client.Delete(h.Ctx, volumesRes, "", "disk-2", controllers.DeleteOptions{}); err != nil {
		t.Fatalf("delete volume: %v", err)
	}
	time.Sleep(300 * time.Millisecond)
	if pv := controllertest.MustGet[*corev1.PersistentVolume](h.Env, volumesRes, "", "disk-2"); pv.DeletionTimestamp == nil {
		t.Fatalf("bound volume: got no deletion mark, want it kept by pv-protection while being deleted")
	}
	if err := h.Client.Delete(h.Ctx, claimsRes, "default", "data", controllers.DeleteOptions{}); err != nil {
		t.Fatalf("delete claim: %v", err)
	}
	h.gone("persistentvolumes", "", "disk-2")
}
