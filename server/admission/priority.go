package admission

import (
	"context"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/server/registry"
)

var priorityClassesResource = api.MustLookup("scheduling.k8s.io", "v1", "priorityclasses")

// Priority resolves a new pod's spec.priority and spec.preemptionPolicy
// from its priorityClassName (or the global default class), refuses a
// pod naming a class that does not exist, allows one global default
// class, and keeps the system classes from being deleted.
type Priority struct {
	reg      *registry.Registry
	defaults defaultMemo
}

var (
	_ registry.Admitter       = (*Priority)(nil)
	_ registry.DeleteAdmitter = (*Priority)(nil)
)

// NewPriority makes the priority plugin on reg.
func NewPriority(reg *registry.Registry) *Priority { return &Priority{reg: reg} }

// Admit resolves pods' priorities and checks priority classes.
func (p *Priority) Admit(ctx context.Context, a *registry.Attributes) (func(bool), error) {
	if a.Subresource != "" {
		return nil, nil
	}
	switch obj := a.Object.(type) {
	case *corev1.Pod:
		if !a.Create() {
			keepPriority(obj, a.Old.(*corev1.Pod))
			return nil, nil
		}
		return nil, p.admitPod(ctx, a, obj)
	case *schedulingv1.PriorityClass:
		return nil, p.admitClass(ctx, a, obj)
	}
	return nil, nil
}

// keepPriority carries the priority set at creation over an update that
// leaves it out.
func keepPriority(pod, old *corev1.Pod) {
	if pod.Spec.Priority == nil {
		pod.Spec.Priority = old.Spec.Priority
	}
	if pod.Spec.PreemptionPolicy == nil {
		pod.Spec.PreemptionPolicy = old.Spec.PreemptionPolicy
	}
}

func (p *Priority) admitPod(ctx context.Context, a *registry.Attributes, pod *corev1.Pod) error {
	name, value, policy, err := p.resolve(ctx, a, pod.Spec.PriorityClassName)
	if err != nil {
		return err
	}
	if pod.Spec.Priority != nil && *pod.Spec.Priority != value {
		return forbidden(a, fmt.Sprintf("the integer value of priority (%d) must not be provided in pod spec; "+
			"priority admission controller computed %d from the given PriorityClass name", *pod.Spec.Priority, value))
	}
	if pod.Spec.PreemptionPolicy != nil && *pod.Spec.PreemptionPolicy != policy {
		return forbidden(a, fmt.Sprintf("the string value of PreemptionPolicy (%s) must not be provided in pod spec; "+
			"priority admission controller computed %s from the given PriorityClass name", *pod.Spec.PreemptionPolicy, policy))
	}
	set := &resolved{value: value, policy: policy} // one allocation for both pointers
	pod.Spec.PriorityClassName, pod.Spec.Priority, pod.Spec.PreemptionPolicy = name, &set.value, &set.policy
	return nil
}

// resolved holds what a pod's spec.priority and spec.preemptionPolicy
// point to.
type resolved struct {
	value  int32
	policy corev1.PreemptionPolicy
}

// resolve finds the class a pod names, or the global default when it
// names none (priority 0 when there is none).
func (p *Priority) resolve(ctx context.Context, a *registry.Attributes, name string) (string, int32, corev1.PreemptionPolicy, error) {
	if name == "" {
		def, err := p.globalDefault(ctx, a.Revision)
		if err != nil || def == nil {
			return "", 0, corev1.PreemptLowerPriority, err
		}
		return def.Name, def.Value, policyOf(def), nil
	}
	obj, err := p.reg.Get(ctx, priorityClassesResource, "", name)
	if apierrors.IsNotFound(err) {
		return "", 0, "", forbidden(a, fmt.Sprintf("no PriorityClass with name %v was found", name))
	}
	if err != nil {
		return "", 0, "", fmt.Errorf("read priority class %s: %w", name, err)
	}
	pc := obj.(*schedulingv1.PriorityClass)
	return pc.Name, pc.Value, policyOf(pc), nil
}

func policyOf(pc *schedulingv1.PriorityClass) corev1.PreemptionPolicy {
	if pc.PreemptionPolicy == nil {
		return corev1.PreemptLowerPriority
	}
	return *pc.PreemptionPolicy
}

// globalDefault is the class marked globalDefault (the lowest valued one,
// should two ever be), or nil, read no older than revision rev (0: the
// store's current one). A pod's read (rev > 0) is answered by the memo
// when it can (priority_default.go).
func (p *Priority) globalDefault(ctx context.Context, rev int64) (*schedulingv1.PriorityClass, error) {
	if def, ok := p.defaults.lookup(ctx, p.reg, rev); ok {
		return def, nil
	}
	changes, counted := p.defaults.begin(p.reg.Cache())
	items, err := p.reg.ListItems(ctx, priorityClassesResource, "", registry.ListOptions{ResourceVersion: rev})
	if err != nil {
		return nil, fmt.Errorf("list priority classes: %w", err)
	}
	def := lowestDefault(items)
	if counted && rev > 0 {
		p.defaults.remember(changes, def)
	}
	return def, nil
}

// lowestDefault is the globalDefault class of items with the lowest
// value, or nil.
func lowestDefault(items []api.Object) *schedulingv1.PriorityClass {
	var def *schedulingv1.PriorityClass
	for _, o := range items {
		pc := o.(*schedulingv1.PriorityClass)
		if pc.GlobalDefault && (def == nil || pc.Value < def.Value) {
			def = pc
		}
	}
	return def
}

// admitClass allows one globalDefault class.
func (p *Priority) admitClass(ctx context.Context, a *registry.Attributes, pc *schedulingv1.PriorityClass) error {
	if !pc.GlobalDefault {
		return nil
	}
	def, err := p.globalDefault(ctx, 0)
	if err != nil || def == nil || def.Name == pc.Name {
		return err
	}
	return forbidden(a, fmt.Sprintf("PriorityClass %v is already marked as default. Only one default can exist", def.Name))
}

// AdmitDelete keeps the system priority classes.
func (p *Priority) AdmitDelete(_ context.Context, res *api.Resource, obj api.Object) error {
	if res.GroupResource() != priorityClassesResource.GroupResource() {
		return nil
	}
	if _, ok := api.SystemPriorityClasses[obj.GetName()]; ok {
		return apierrors.NewForbidden(res.GroupResource(), obj.GetName(), errors.New("this is a system priority class and cannot be deleted"))
	}
	return nil
}

// EnsureSystemPriorityClasses creates the system priority classes that
// are missing; the server calls it at start.
func EnsureSystemPriorityClasses(ctx context.Context, c *registry.Client) error {
	for name, value := range api.SystemPriorityClasses {
		pc := &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: name}, Value: value,
			Description: "Used for system critical pods that must not be moved from their current node."}
		if name == "system-cluster-critical" {
			pc.Description = "Used for system critical pods that must run in the cluster, but can be moved to another node if necessary."
		}
		if _, err := c.Create(ctx, pc); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("create priority class %s: %w", name, err)
		}
	}
	return nil
}

// InstallPolicy adds the policy plugins to reg in upstream's order
// (priority, runtime class and storage before limit ranges, quotas last,
// so a quota counts what the others set) and creates the system priority
// classes and the local-path storage class.
func InstallPolicy(ctx context.Context, reg *registry.Registry) error {
	reg.Use(NewPriority(reg), NewRuntimeClass(reg), NewStorage(reg), NewLimitRange(reg), NewQuota(reg))
	if err := EnsureSystemPriorityClasses(ctx, reg.Client()); err != nil {
		return fmt.Errorf("policy admission: %w", err)
	}
	if err := EnsureLocalPathClass(ctx, reg.Client()); err != nil {
		return fmt.Errorf("policy admission: %w", err)
	}
	return nil
}
