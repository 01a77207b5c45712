package scheduler

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/informer"
)

var (
	claimsResource  = mustLookup("persistentvolumeclaims")
	volumesResource = mustLookup("persistentvolumes")
	classesResource = api.MustLookup("storage.k8s.io", "v1", "storageclasses")
)

// volumeSource reads claims, volumes and storage classes from the shared
// cache (memory only: no I/O). Without a shared cache the scheduler has
// none and places pods without looking at their claims.
type volumeSource struct {
	claims, volumes, classes *informer.Informer
}

func newVolumeSource(v *informer.View, changed func()) *volumeSource {
	vs := &volumeSource{claims: v.Informer(claimsResource), volumes: v.Informer(volumesResource),
		classes: v.Informer(classesResource)}
	h := informer.Handler{OnAdd: func(api.Object) { changed() }, OnUpdate: func(_, _ api.Object) { changed() }}
	vs.claims.AddHandler(h)
	vs.volumes.AddHandler(h)
	return vs
}

// podVolumes is what a pod's claims ask of a node, worked out once per
// scheduling cycle (volumes.go resolves, volumefilter.go checks).
type podVolumes struct {
	// bound are the node affinities of the volumes bound to its claims.
	bound []*api.NodeMatcher
	// local is the bytes asked by unbound local-path claims; used is what
	// local-path volumes (and claims already placed) take per node.
	local int64
	used  map[string]int64
	// static holds, per unbound WaitForFirstConsumer claim of another
	// provisioner, the node affinities of the volumes it could bind.
	static [][]*api.NodeMatcher
	// delayed are the unbound WaitForFirstConsumer claims: the binder
	// writes the selected node on them.
	delayed []string
}

// resolve works out pod's volume needs; a non-empty message says why the
// pod cannot be scheduled at all (as kube-scheduler's VolumeBinding
// PreFilter words it). nil, "" for a pod without claims.
func (vs *volumeSource) resolve(pod *corev1.Pod) (*podVolumes, string) {
	names := api.PodClaims(pod)
	if vs == nil || len(names) == 0 {
		return nil, ""
	}
	pv := &podVolumes{}
	for _, name := range names {
		obj, ok := vs.claims.Get(pod.Namespace, name)
		if !ok {
			return nil, fmt.Sprintf("persistentvolumeclaim %q not found", name)
		}
		if msg := vs.add(pv, obj.(*corev1.PersistentVolumeClaim)); msg != "" {
			return nil, msg
		}
	}
	if pv.local > 0 {
		pv.used = vs.localUsage()
	}
	return pv, ""
}

// add records one claim's needs.
func (vs *volumeSource) add(pv *podVolumes, c *corev1.PersistentVolumeClaim) string {
	if c.DeletionTimestamp != nil {
		return fmt.Sprintf("persistentvolumeclaim %q is being deleted", c.Name)
	}
	if c.Spec.VolumeName != "" {
		obj, ok := vs.volumes.Get("", c.Spec.VolumeName)
		if !ok {
			return fmt.Sprintf("persistentvolume %q not found", c.Spec.VolumeName)
		}
		if m := api.VolumeNodeMatcher(obj.(*corev1.PersistentVolume)); m != nil {
			pv.bound = append(pv.bound, m)
		}
		return ""
	}
	sc := vs.class(api.ClaimClass(c))
	if !api.WaitsForFirstConsumer(sc) {
		return "pod has unbound immediate PersistentVolumeClaims"
	}
	pv.delayed = append(pv.delayed, c.Name)
	if sc.Provisioner == api.ProvisionerLocalPath {
		q := api.ClaimRequest(c)
		pv.local += q.Value()
		return ""
	}
	pv.static = append(pv.static, vs.candidates(c))
	return ""
}

func (vs *volumeSource) class(name string) *storagev1.StorageClass {
	if name == "" {
		return nil
	}
	obj, ok := vs.classes.Get("", name)
	if !ok {
		return nil
	}
	return obj.(*storagev1.StorageClass)
}

// candidates are the node affinities of the Available volumes that could
// bind c (a volume without affinity stands for every node).
func (vs *volumeSource) candidates(c *corev1.PersistentVolumeClaim) []*api.NodeMatcher {
	out := []*api.NodeMatcher{}
	want := api.ClaimRequest(c)
	for _, obj := range vs.volumes.List("", nil) {
		v := obj.(*corev1.PersistentVolume)
		q := v.Spec.Capacity[corev1.ResourceStorage]
		if v.Spec.ClaimRef != nil || v.DeletionTimestamp != nil || v.Spec.StorageClassName != api.ClaimClass(c) || q.Cmp(want) < 0 {
			continue
		}
		out = append(out, api.VolumeNodeMatcher(v))
	}
	return out
}

// localUsage is the bytes each node's local-path volumes take, plus those
// of claims placed on it whose volumes are not made yet.
func (vs *volumeSource) localUsage() map[string]int64 {
	used := map[string]int64{}
	for _, obj := range vs.volumes.List("", nil) {
		v := obj.(*corev1.PersistentVolume)
		if v.Annotations[api.AnnotationProvisionedBy] == api.ProvisionerLocalPath {
			q := v.Spec.Capacity[corev1.ResourceStorage]
			used[api.LocalPathNode(v)] += q.Value()
		}
	}
	for _, obj := range vs.claims.List("", nil) {
		c := obj.(*corev1.PersistentVolumeClaim)
		if node := c.Annotations[api.AnnotationSelectedNode]; node != "" && c.Spec.VolumeName == "" {
			q := api.ClaimRequest(c)
			used[node] += q.Value()
		}
	}
	return used
}
