package api

import (
	"reflect"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The strategies below do what a real apiserver's registry does to an object
// between decoding and validation. Each first applies Default, so callers
// may but need not default the object themselves. The server sets
// metadata.uid, name (from generateName), namespace, creationTimestamp and
// resourceVersion itself; the strategies never invent those.

// PrepareForCreate normalises a new object: generation 1 for kinds that count
// generations, status cleared for kinds with a status subresource (a Pod
// starts Pending with its QoS class, a Namespace Active with the
// "kubernetes" finalizer; Nodes keep the status their agent reports), and a
// Job without spec.manualSelector gets its generated selector and template
// labels from metadata.uid, which must already be set. A deletionTimestamp
// sent by the client is dropped.
func PrepareForCreate(r *Resource, obj Object) {
	Default(obj)
	obj.SetDeletionTimestamp(nil)
	obj.SetDeletionGracePeriodSeconds(nil)
	obj.SetGeneration(0)
	if r.Generation {
		obj.SetGeneration(1)
	}
	switch o := obj.(type) {
	case *corev1.Pod:
		o.Status = corev1.PodStatus{Phase: corev1.PodPending, QOSClass: PodQOSClass(&o.Spec)}
	case *corev1.Namespace:
		o.Status = corev1.NamespaceStatus{Phase: corev1.NamespaceActive}
		if !hasFinalizer(o.Spec.Finalizers, corev1.FinalizerKubernetes) {
			o.Spec.Finalizers = append(o.Spec.Finalizers, corev1.FinalizerKubernetes)
		}
	case *corev1.Node:
	case *batchv1.Job:
		o.Status = batchv1.JobStatus{}
		if o.Spec.ManualSelector == nil || !*o.Spec.ManualSelector {
			generateJobSelector(o)
		}
	default:
		if r.HasSubresource("status") {
			resetField(obj, "Status")
		}
		if k := rulesOf(obj); k != nil && k.PrepareCreate != nil {
			k.PrepareCreate(obj)
		}
	}
}

func hasFinalizer(list []corev1.FinalizerName, f corev1.FinalizerName) bool {
	for _, x := range list {
		if x == f {
			return true
		}
	}
	return false
}

// Labels a Job's generated selector and pod template carry.
const (
	LabelJobControllerUID       = batchv1.ControllerUidLabel // batch.kubernetes.io/controller-uid
	LabelJobName                = batchv1.JobNameLabel       // batch.kubernetes.io/job-name
	LabelLegacyJobControllerUID = "controller-uid"
	LabelLegacyJobName          = "job-name"
)

// generateJobSelector adds the job-name and controller-uid labels to the pod
// template (leaving labels the user set; validation rejects a conflict) and
// selects on the controller uid.
func generateJobSelector(j *batchv1.Job) {
	tl := j.Spec.Template.Labels
	if tl == nil {
		tl = map[string]string{}
		j.Spec.Template.Labels = tl
	}
	set := func(m map[string]string, k, v string) {
		if _, ok := m[k]; !ok {
			m[k] = v
		}
	}
	set(tl, LabelLegacyJobName, j.Name)
	set(tl, LabelJobName, j.Name)
	set(tl, LabelLegacyJobControllerUID, string(j.UID))
	set(tl, LabelJobControllerUID, string(j.UID))
	if j.Spec.Selector == nil {
		j.Spec.Selector = &metav1.LabelSelector{}
	}
	if j.Spec.Selector.MatchLabels == nil {
		j.Spec.Selector.MatchLabels = map[string]string{}
	}
	set(j.Spec.Selector.MatchLabels, LabelJobControllerUID, string(j.UID))
	if len(j.Labels) == 0 {
		j.Labels = cloneMap(tl)
	}
}

// PrepareForUpdate normalises an update of the main resource: status stays
// as stored (it changes only through the status subresource), identity and
// timestamps the client cannot change are kept from old, and for kinds that
// count generations metadata.generation is bumped when the spec changed
// (Deployments: also annotations), compared semantically after defaulting so
// that a "resources: {}" or "creationTimestamp: null" is no change.
func PrepareForUpdate(r *Resource, obj, old Object) {
	Default(obj)
	keepServerMeta(obj, old)
	fresh := old.DeepCopyObject()
	if r.HasSubresource("status") {
		copyField(obj, fresh, "Status")
		r.keepStatus(obj, old)
	}
	if ns, ok := obj.(*corev1.Namespace); ok {
		ns.Spec.Finalizers = fresh.(*corev1.Namespace).Spec.Finalizers
	}
	if p, ok := obj.(*corev1.Pod); ok { // changed only through pods/ephemeralcontainers
		p.Spec.EphemeralContainers = fresh.(*corev1.Pod).Spec.EphemeralContainers
	}
	if k := rulesOf(obj); k != nil && k.PrepareUpdate != nil {
		k.PrepareUpdate(obj, old)
	}
	obj.SetGeneration(old.GetGeneration())
	if r.Generation && contentChanged(obj, old) {
		obj.SetGeneration(old.GetGeneration() + 1)
	}
}

// keepServerMeta keeps the fields of metadata that only the server sets.
func keepServerMeta(obj, old Object) {
	if obj.GetUID() == "" {
		obj.SetUID(old.GetUID())
	}
	if ts := old.GetCreationTimestamp(); !ts.IsZero() {
		obj.SetCreationTimestamp(ts)
	}
	if old.GetDeletionTimestamp() != nil {
		KeepDeletion(obj, old)
	}
}

// KeepDeletion sets obj's deletion timestamp and grace period to copies of
// old's: old may be an object others hold (the shared cache's).
func KeepDeletion(obj, old Object) {
	obj.SetDeletionTimestamp(old.GetDeletionTimestamp().DeepCopy())
	var grace *int64
	if g := old.GetDeletionGracePeriodSeconds(); g != nil {
		grace = new(int64)
		*grace = *g
	}
	obj.SetDeletionGracePeriodSeconds(grace)
}

// contentChanged reports a change of what metadata.generation counts.
func contentChanged(obj, old Object) bool {
	if d, ok := obj.(*appsv1.Deployment); ok {
		if !equality.Semantic.DeepEqual(d.Annotations, old.GetAnnotations()) {
			return true
		}
	}
	for _, name := range []string{"Spec", "Data", "BinaryData", "StringData", "Immutable", "Type"} {
		a, b := fieldOf(obj, name), fieldOf(old, name)
		if a.IsValid() && b.IsValid() && !equality.Semantic.DeepEqual(a.Interface(), b.Interface()) {
			return true
		}
	}
	return false
}

// PrepareForStatusUpdate normalises a write to the status subresource: only
// status changes; spec and metadata stay as stored, except
// metadata.resourceVersion, which the server uses for its precondition, and
// a Deployment's annotations.
func PrepareForStatusUpdate(r *Resource, obj, old Object) {
	if !prepareStatusTyped(obj, old) {
		prepareStatusGeneral(obj, old)
	}
}

// prepareStatusGeneral is PrepareForStatusUpdate for any kind.
func prepareStatusGeneral(obj, old Object) {
	rv := obj.GetResourceVersion()
	annotations := obj.GetAnnotations()
	fresh := old.DeepCopyObject()
	copyField(obj, fresh, "ObjectMeta")
	if _, ok := obj.(*appsv1.Deployment); ok {
		// As in Kubernetes, a Deployment's status write may change its
		// annotations: the controller records the rollout's revision that
		// way, without bumping metadata.generation.
		obj.SetAnnotations(annotations)
	}
	for _, name := range []string{"Spec", "Data", "BinaryData", "StringData", "Immutable", "Type"} {
		copyField(obj, fresh, name)
	}
	obj.SetResourceVersion(rv)
}

func fieldOf(obj any, name string) reflect.Value {
	return reflect.ValueOf(obj).Elem().FieldByName(name)
}

// copyField sets dst's named field to src's when both have it. Callers pass
// a src nobody else holds (a fresh deep copy), so nothing is shared.
func copyField(dst, src any, name string) {
	d, s := fieldOf(dst, name), fieldOf(src, name)
	if d.IsValid() && s.IsValid() && d.Type() == s.Type() {
		d.Set(s)
	}
}

func resetField(obj any, name string) {
	if f := fieldOf(obj, name); f.IsValid() {
		f.Set(reflect.Zero(f.Type()))
	}
}
