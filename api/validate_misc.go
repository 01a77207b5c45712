package api

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// MaxDataBytes caps the total size of a ConfigMap's or Secret's data.
const MaxDataBytes = 1 << 20

func validateNamespace(ns *corev1.Namespace) field.ErrorList {
	var errs field.ErrorList
	for i, f := range ns.Spec.Finalizers {
		errs = append(errs, apivalidation.ValidateFinalizerName(string(f), specPath.Child("finalizers").Index(i))...)
	}
	return errs
}

func validateNode(n *corev1.Node) field.ErrorList {
	var errs field.ErrorList
	if n.Spec.PodCIDR != "" {
		errs = append(errs, validation.IsValidCIDR(specPath.Child("podCIDR"), n.Spec.PodCIDR)...)
	}
	seen := sets.New[string]()
	for i, t := range n.Spec.Taints {
		tp := specPath.Child("taints").Index(i)
		errs = append(errs, metav1validation.ValidateLabelName(t.Key, tp.Child("key"))...)
		errs = append(errs, invalidEach(tp.Child("value"), t.Value, validation.IsValidLabelValue(t.Value))...)
		errs = append(errs, oneOf(t.Effect, effects, tp.Child("effect"))...)
		if id := t.Key + "/" + string(t.Effect); seen.Has(id) {
			errs = append(errs, field.Duplicate(tp, fmt.Sprintf("%s:%s", t.Key, t.Effect)))
		} else {
			seen.Insert(id)
		}
	}
	return append(errs, validateStatus(n)...)
}

// validateDataKeys checks ConfigMap/Secret keys and their total size.
func validateDataKeys(strData map[string]string, binData map[string][]byte, strField, binField string) field.ErrorList {
	var errs field.ErrorList
	size := 0
	for k, v := range strData {
		errs = append(errs, invalidEach(field.NewPath(strField).Key(k), k, validation.IsConfigMapKey(k))...)
		size += len(v)
	}
	for k, v := range binData {
		errs = append(errs, invalidEach(field.NewPath(binField).Key(k), k, validation.IsConfigMapKey(k))...)
		if _, dup := strData[k]; dup && strField != binField {
			errs = append(errs, field.Invalid(field.NewPath(binField).Key(k), k, "duplicate of key present in "+strField))
		}
		size += len(v)
	}
	if size > MaxDataBytes {
		errs = append(errs, field.TooLong(field.NewPath(strField), "", MaxDataBytes))
	}
	return errs
}

func validateConfigMap(cm *corev1.ConfigMap) field.ErrorList {
	return validateDataKeys(cm.Data, cm.BinaryData, "data", "binaryData")
}

// Keys a Secret of each built-in type must have.
var secretRequiredKeys = map[corev1.SecretType][]string{
	corev1.SecretTypeTLS:              {corev1.TLSCertKey, corev1.TLSPrivateKeyKey},
	corev1.SecretTypeDockerConfigJson: {corev1.DockerConfigJsonKey},
	corev1.SecretTypeDockercfg:        {corev1.DockerConfigKey},
	corev1.SecretTypeSSHAuth:          {corev1.SSHAuthPrivateKey},
}

func validateSecret(s *corev1.Secret) field.ErrorList {
	errs := validateDataKeys(nil, s.Data, "data", "data")
	errs = append(errs, validateDataKeys(s.StringData, nil, "stringData", "stringData")...)
	for _, k := range secretRequiredKeys[s.Type] {
		if _, ok := s.Data[k]; !ok {
			errs = append(errs, field.Required(field.NewPath("data").Key(k), ""))
		}
	}
	if s.Type == corev1.SecretTypeBasicAuth {
		_, u := s.Data[corev1.BasicAuthUsernameKey]
		_, p := s.Data[corev1.BasicAuthPasswordKey]
		if !u && !p {
			errs = append(errs, field.Required(field.NewPath("data").Key(corev1.BasicAuthUsernameKey), "either username or password is required"))
		}
	}
	return errs
}

func validateSecretUpdate(s, old *corev1.Secret) field.ErrorList {
	errs := immutable(s.Type, old.Type, field.NewPath("type"))
	return append(errs, validateImmutableData(s.Immutable, old.Immutable, nil, nil, s.Data, old.Data)...)
}

// validateImmutableData enforces `immutable: true`: it cannot be unset and
// the data cannot change.
func validateImmutableData(now, was *bool, str, oldStr map[string]string, bin, oldBin map[string][]byte) field.ErrorList {
	if was == nil || !*was {
		return nil
	}
	var errs field.ErrorList
	if now == nil || !*now {
		errs = append(errs, field.Forbidden(field.NewPath("immutable"), "field is immutable when `immutable` is set"))
	}
	if !equality.Semantic.DeepEqual(str, oldStr) {
		errs = append(errs, field.Forbidden(field.NewPath("data"), "field is immutable when `immutable` is set"))
	}
	if !equality.Semantic.DeepEqual(bin, oldBin) {
		name := "binaryData"
		if str == nil && oldStr == nil {
			name = "data"
		}
		errs = append(errs, field.Forbidden(field.NewPath(name), "field is immutable when `immutable` is set"))
	}
	return errs
}

func validateEvent(e *corev1.Event) field.ErrorList {
	var errs field.ErrorList
	io := e.InvolvedObject
	if io.Namespace != "" && io.Namespace != e.Namespace {
		errs = append(errs, field.Invalid(field.NewPath("involvedObject", "namespace"), io.Namespace, "does not match event.namespace"))
	}
	if e.Type != "" {
		errs = append(errs, oneOf(e.Type, eventTypes, eventTypePath)...)
	}
	errs = append(errs, nonNegative(&e.Count, eventCountPath)...)
	return errs
}

// Made once: every pod scheduled writes an Event.
var (
	eventTypes     = []string{corev1.EventTypeNormal, corev1.EventTypeWarning}
	eventTypePath  = field.NewPath("type")
	eventCountPath = field.NewPath("count")
)

func validateLease(l *coordinationv1.Lease) field.ErrorList {
	var errs field.ErrorList
	if d := l.Spec.LeaseDurationSeconds; d != nil && *d <= 0 {
		errs = append(errs, field.Invalid(specPath.Child("leaseDurationSeconds"), *d, "must be greater than 0"))
	}
	errs = append(errs, nonNegative(l.Spec.LeaseTransitions, specPath.Child("leaseTransitions"))...)
	if l.Spec.PreferredHolder != nil && l.Spec.Strategy == nil {
		errs = append(errs, field.Forbidden(specPath.Child("preferredHolder"), "may only be specified if `strategy` is defined"))
	}
	return errs
}

// validateStatus checks the status fields controllers and agents write.
func validateStatus(obj Object) field.ErrorList {
	sp := field.NewPath("status")
	var counts map[string]int32
	switch o := obj.(type) {
	case *corev1.Node:
		return append(nonNegativeList(o.Status.Capacity, sp.Child("capacity")),
			nonNegativeList(o.Status.Allocatable, sp.Child("allocatable"))...)
	case *appsv1.Deployment:
		s := &o.Status
		counts = map[string]int32{"replicas": s.Replicas, "updatedReplicas": s.UpdatedReplicas, "readyReplicas": s.ReadyReplicas,
			"availableReplicas": s.AvailableReplicas, "unavailableReplicas": s.UnavailableReplicas}
	case *appsv1.ReplicaSet:
		s := &o.Status
		counts = map[string]int32{"replicas": s.Replicas, "fullyLabeledReplicas": s.FullyLabeledReplicas,
			"readyReplicas": s.ReadyReplicas, "availableReplicas": s.AvailableReplicas}
	case *appsv1.DaemonSet:
		s := &o.Status
		counts = map[string]int32{"currentNumberScheduled": s.CurrentNumberScheduled, "numberMisscheduled": s.NumberMisscheduled,
			"desiredNumberScheduled": s.DesiredNumberScheduled, "numberReady": s.NumberReady,
			"updatedNumberScheduled": s.UpdatedNumberScheduled, "numberAvailable": s.NumberAvailable, "numberUnavailable": s.NumberUnavailable}
	case *batchv1.Job:
		s := &o.Status
		counts = map[string]int32{"active": s.Active, "succeeded": s.Succeeded, "failed": s.Failed}
	default:
		if k := rulesOf(obj); k != nil && k.ValidateStatus != nil {
			return k.ValidateStatus(obj)
		}
	}
	var errs field.ErrorList
	for _, name := range sets.List(sets.KeySet(counts)) {
		v := counts[name]
		errs = append(errs, nonNegative(&v, sp.Child(name))...)
	}
	return errs
}

func nonNegativeList(rl corev1.ResourceList, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for name, q := range rl {
		errs = append(errs, validateQuantity(q, p.Key(string(name)))...)
	}
	return errs
}
