package nodeinfo

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation"
)

// reservable are the resources --system-reserved may name.
var reservable = map[corev1.ResourceName]bool{
	corev1.ResourceCPU: true, corev1.ResourceMemory: true, corev1.ResourceEphemeralStorage: true,
}

// ParseReserved parses a --system-reserved value such as
// "cpu=250m,memory=256Mi,ephemeral-storage=1Gi". An empty string reserves
// nothing.
func ParseReserved(s string) (corev1.ResourceList, error) {
	out := corev1.ResourceList{}
	if strings.TrimSpace(s) == "" {
		return out, nil
	}
	for _, item := range strings.Split(s, ",") {
		name, value, ok := strings.Cut(strings.TrimSpace(item), "=")
		rn := corev1.ResourceName(strings.TrimSpace(name))
		switch {
		case !ok:
			return nil, fmt.Errorf("--system-reserved: %q: want name=quantity, e.g. cpu=250m", item)
		case !reservable[rn]:
			return nil, fmt.Errorf("--system-reserved: %q: want cpu, memory or ephemeral-storage", name)
		case out[rn] != (resource.Quantity{}):
			return nil, fmt.Errorf("--system-reserved: %s is given twice", rn)
		}
		q, err := resource.ParseQuantity(strings.TrimSpace(value))
		if err != nil {
			return nil, fmt.Errorf("--system-reserved: %s=%q: %w", rn, value, err)
		}
		if q.Sign() < 0 {
			return nil, fmt.Errorf("--system-reserved: %s=%s: must not be negative", rn, q.String())
		}
		out[rn] = q
	}
	return out, nil
}

// ParseLabels parses --node-label values, each "key=value". Keys the agent
// sets itself (see OwnLabels) are refused so the two cannot disagree.
func ParseLabels(flags []string) (map[string]string, error) {
	out := make(map[string]string, len(flags))
	for _, f := range flags {
		k, v, ok := strings.Cut(f, "=")
		if !ok {
			return nil, fmt.Errorf("--node-label: %q: want key=value", f)
		}
		if err := checkLabel(k, v); err != nil {
			return nil, fmt.Errorf("--node-label: %q: %w", f, err)
		}
		if OwnLabels[k] {
			return nil, fmt.Errorf("--node-label: %q: %s is set by the agent itself", f, k)
		}
		if old, dup := out[k]; dup && old != v {
			return nil, fmt.Errorf("--node-label: %s is given twice with different values", k)
		}
		out[k] = v
	}
	return out, nil
}

func checkLabel(k, v string) error {
	if msgs := validation.IsQualifiedName(k); len(msgs) > 0 {
		return fmt.Errorf("key %q: %s", k, strings.Join(msgs, "; "))
	}
	if msgs := validation.IsValidLabelValue(v); len(msgs) > 0 {
		return fmt.Errorf("value %q: %s", v, strings.Join(msgs, "; "))
	}
	return nil
}

var taintEffects = map[corev1.TaintEffect]bool{
	corev1.TaintEffectNoSchedule: true, corev1.TaintEffectPreferNoSchedule: true, corev1.TaintEffectNoExecute: true,
}

// ParseTaint parses one --node-taint value: "key=value:Effect" or
// "key:Effect", Effect being NoSchedule, PreferNoSchedule or NoExecute.
func ParseTaint(s string) (corev1.Taint, error) {
	i := strings.LastIndexByte(s, ':')
	if i < 0 {
		return corev1.Taint{}, fmt.Errorf("--node-taint: %q: want key=value:Effect or key:Effect", s)
	}
	kv, effect := s[:i], corev1.TaintEffect(s[i+1:])
	if !taintEffects[effect] {
		return corev1.Taint{}, fmt.Errorf("--node-taint: %q: effect %q: want NoSchedule, PreferNoSchedule or NoExecute", s, effect)
	}
	k, v, _ := strings.Cut(kv, "=")
	if err := checkLabel(k, v); err != nil {
		return corev1.Taint{}, fmt.Errorf("--node-taint: %q: %w", s, err)
	}
	return corev1.Taint{Key: k, Value: v, Effect: effect}, nil
}

// ParseTaints parses every --node-taint value; a key and effect pair may
// appear only once.
func ParseTaints(flags []string) ([]corev1.Taint, error) {
	out := make([]corev1.Taint, 0, len(flags))
	seen := map[string]bool{}
	for _, f := range flags {
		t, err := ParseTaint(f)
		if err != nil {
			return nil, err
		}
		id := t.Key + ":" + string(t.Effect)
		if seen[id] {
			return nil, fmt.Errorf("--node-taint: %s is given twice", id)
		}
		seen[id] = true
		out = append(out, t)
	}
	return out, nil
}
