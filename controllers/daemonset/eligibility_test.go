package daemonset

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestNodePlacement(t *testing.T) {
	req := func(key string, op corev1.NodeSelectorOperator, values ...string) corev1.NodeSelectorRequirement {
		return corev1.NodeSelectorRequirement{Key: key, Operator: op, Values: values}
	}
	affinity := func(terms ...corev1.NodeSelectorTerm) *corev1.Affinity {
		return &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: terms}}}
	}
	exprs := func(r ...corev1.NodeSelectorRequirement) corev1.NodeSelectorTerm {
		return corev1.NodeSelectorTerm{MatchExpressions: r}
	}
	taint := func(key string, effect corev1.TaintEffect) corev1.Taint {
		return corev1.Taint{Key: key, Value: "v", Effect: effect}
	}
	pi := map[string]string{"arch": "arm64", "zone": "barn", "cores": "4"}
	cases := []struct {
		name     string
		labels   map[string]string
		taints   []corev1.Taint
		spec     corev1.PodSpec
		run, con bool
	}{
		{name: "no constraints", labels: pi, run: true, con: true},
		{name: "selector matches", labels: pi, spec: corev1.PodSpec{NodeSelector: map[string]string{"arch": "arm64"}}, run: true, con: true},
		{name: "selector value differs", labels: pi, spec: corev1.PodSpec{NodeSelector: map[string]string{"arch": "amd64"}}},
		{name: "selector label missing", labels: nil, spec: corev1.PodSpec{NodeSelector: map[string]string{"arch": "arm64"}}},
		{name: "affinity In", labels: pi, spec: corev1.PodSpec{Affinity: affinity(exprs(req("zone", corev1.NodeSelectorOpIn, "barn", "shed")))}, run: true, con: true},
		{name: "affinity NotIn", labels: pi, spec: corev1.PodSpec{Affinity: affinity(exprs(req("zone", corev1.NodeSelectorOpNotIn, "barn")))}},
		{name: "affinity NotIn without values matches nothing", labels: pi, spec: corev1.PodSpec{Affinity: affinity(exprs(req("zone", corev1.NodeSelectorOpNotIn)))}},
		{name: "affinity terms ORed", labels: pi, spec: corev1.PodSpec{Affinity: affinity(
			exprs(req("zone", corev1.NodeSelectorOpIn, "shed")), exprs(req("arch", corev1.NodeSelectorOpExists)))}, run: true, con: true},
		{name: "affinity expressions ANDed", labels: pi, spec: corev1.PodSpec{Affinity: affinity(
			exprs(req("arch", corev1.NodeSelectorOpExists), req("gpu", corev1.NodeSelectorOpExists)))}},
		{name: "affinity DoesNotExist", labels: pi, spec: corev1.PodSpec{Affinity: affinity(exprs(req("gpu", corev1.NodeSelectorOpDoesNotExist)))}, run: true, con: true},
		{name: "affinity Gt", labels: pi, spec: corev1.PodSpec{Affinity: affinity(exprs(req("cores", corev1.NodeSelectorOpGt, "2")))}, run: true, con: true},
		{name: "affinity Lt fails", labels: pi, spec: corev1.PodSpec{Affinity: affinity(exprs(req("cores", corev1.NodeSelectorOpLt, "2")))}},
		{name: "affinity Gt on non-number", labels: pi, spec: corev1.PodSpec{Affinity: affinity(exprs(req("zone", corev1.NodeSelectorOpGt, "2")))}},
		{name: "empty term matches nothing", labels: pi, spec: corev1.PodSpec{Affinity: affinity(corev1.NodeSelectorTerm{})}},
		{name: "no terms matches nothing", labels: pi, spec: corev1.PodSpec{Affinity: affinity()}},
		{name: "matchFields name", labels: pi, spec: corev1.PodSpec{Affinity: affinity(corev1.NodeSelectorTerm{
			MatchFields: []corev1.NodeSelectorRequirement{req("metadata.name", corev1.NodeSelectorOpIn, "pi-1")}})}, run: true, con: true},
		{name: "matchFields other name", labels: pi, spec: corev1.PodSpec{Affinity: affinity(corev1.NodeSelectorTerm{
			MatchFields: []corev1.NodeSelectorRequirement{req("metadata.name", corev1.NodeSelectorOpIn, "pi-2")}})}},
		{name: "template nodeName elsewhere", labels: pi, spec: corev1.PodSpec{NodeName: "pi-2"}},
		{name: "NoSchedule not tolerated", labels: pi, taints: []corev1.Taint{taint("dedicated", corev1.TaintEffectNoSchedule)}, con: true},
		{name: "NoExecute not tolerated", labels: pi, taints: []corev1.Taint{taint("dedicated", corev1.TaintEffectNoExecute)}},
		{name: "PreferNoSchedule ignored", labels: pi, taints: []corev1.Taint{taint("dedicated", corev1.TaintEffectPreferNoSchedule)}, run: true, con: true},
		{name: "tolerated by template", labels: pi, taints: []corev1.Taint{taint("dedicated", corev1.TaintEffectNoExecute)},
			spec: corev1.PodSpec{Tolerations: []corev1.Toleration{{Key: "dedicated", Operator: corev1.TolerationOpEqual, Value: "v"}}}, run: true, con: true},
		{name: "toleration value differs", labels: pi, taints: []corev1.Taint{taint("dedicated", corev1.TaintEffectNoSchedule)},
			spec: corev1.PodSpec{Tolerations: []corev1.Toleration{{Key: "dedicated", Value: "w"}}}, con: true},
		{name: "automatic not-ready and unreachable", labels: pi, taints: []corev1.Taint{
			taint(taintNotReady, corev1.TaintEffectNoExecute), taint(taintUnreachable, corev1.TaintEffectNoExecute)}, run: true, con: true},
		{name: "automatic pressure and unschedulable", labels: pi, taints: []corev1.Taint{taint(taintDiskPressure, corev1.TaintEffectNoSchedule),
			taint(taintMemoryPressure, corev1.TaintEffectNoSchedule), taint(taintPIDPressure, corev1.TaintEffectNoSchedule),
			taint(taintUnschedulable, corev1.TaintEffectNoSchedule)}, run: true, con: true},
		{name: "network-unavailable only with hostNetwork", labels: pi, taints: []corev1.Taint{taint(taintNetworkUnavailable, corev1.TaintEffectNoSchedule)}, con: true},
		{name: "network-unavailable hostNetwork", labels: pi, taints: []corev1.Taint{taint(taintNetworkUnavailable, corev1.TaintEffectNoSchedule)},
			spec: corev1.PodSpec{HostNetwork: true}, run: true, con: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "pi-1", Labels: tc.labels}, Spec: corev1.NodeSpec{Taints: tc.taints}}
			got := nodePlacement(node, &tc.spec)
			if got.shouldRun != tc.run || got.shouldContinue != tc.con {
				t.Errorf("got shouldRun=%v shouldContinue=%v, want %v %v", got.shouldRun, got.shouldContinue, tc.run, tc.con)
			}
		})
	}
}

func TestTemplateHashIsSemantic(t *testing.T) {
	bare := corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "a", Image: "img:1"}}}}
	explicit := *bare.DeepCopy()
	explicit.Spec.RestartPolicy = corev1.RestartPolicyAlways
	explicit.Spec.Containers[0].ImagePullPolicy = corev1.PullIfNotPresent
	explicit.Spec.Containers[0].Resources = corev1.ResourceRequirements{}
	if a, b := templateHash(&bare), templateHash(&explicit); a != b {
		t.Errorf("hash of bare template %q, of explicitly defaulted one %q; want equal", a, b)
	}
	changed := *bare.DeepCopy()
	changed.Spec.Containers[0].Image = "img:2"
	if a, b := templateHash(&bare), templateHash(&changed); a == b {
		t.Errorf("hash %q for both images, want them to differ", a)
	}
	if bare.Spec.RestartPolicy != "" {
		t.Errorf("templateHash changed its argument: restartPolicy %q", bare.Spec.RestartPolicy)
	}
}

func TestWithDaemonTolerationsKeepsTemplates(t *testing.T) {
	spec := corev1.PodSpec{Tolerations: []corev1.Toleration{
		{Key: taintNotReady, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: new(int64)}}}
	got := withDaemonTolerations(&spec)
	if len(got) != 6 {
		t.Fatalf("got %d tolerations, want 6 (template's not-ready kept, 5 automatic added)", len(got))
	}
	if got[0].TolerationSeconds == nil {
		t.Errorf("the template's own not-ready toleration was replaced")
	}
	if len(spec.Tolerations) != 1 {
		t.Errorf("template tolerations changed: %d, want 1", len(spec.Tolerations))
	}
}
