package scheduler

import (
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

func tolerate(key string, op corev1.TolerationOperator, value string, effect corev1.TaintEffect) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		p.Spec.Tolerations = append(p.Spec.Tolerations,
			corev1.Toleration{Key: key, Operator: op, Value: value, Effect: effect})
	}
}

func TestTaintToleration(t *testing.T) {
	const ns, nx, pref = corev1.TaintEffectNoSchedule, corev1.TaintEffectNoExecute, corev1.TaintEffectPreferNoSchedule
	untolerated := []string{"node(s) had untolerated taint {dedicated: gpu}"}
	tests := []struct {
		name  string
		node  func(*corev1.Node)
		pod   []func(*corev1.Pod)
		wantR []string
	}{
		{"no taint", func(*corev1.Node) {}, nil, nil},
		{"NoSchedule untolerated", nodeTaint("dedicated", "gpu", ns), nil, untolerated},
		{"NoExecute untolerated", nodeTaint("dedicated", "gpu", nx), nil, []string{"node(s) had untolerated taint {dedicated: gpu}"}},
		{"PreferNoSchedule ignored", nodeTaint("dedicated", "gpu", pref), nil, nil},
		{"Equal same value", nodeTaint("dedicated", "gpu", ns),
			[]func(*corev1.Pod){tolerate("dedicated", corev1.TolerationOpEqual, "gpu", ns)}, nil},
		{"empty operator means Equal", nodeTaint("dedicated", "gpu", ns),
			[]func(*corev1.Pod){tolerate("dedicated", "", "gpu", "")}, nil},
		{"Equal other value", nodeTaint("dedicated", "gpu", ns),
			[]func(*corev1.Pod){tolerate("dedicated", corev1.TolerationOpEqual, "cpu", ns)}, untolerated},
		{"Exists any value", nodeTaint("dedicated", "gpu", ns),
			[]func(*corev1.Pod){tolerate("dedicated", corev1.TolerationOpExists, "", ns)}, nil},
		{"Exists other key", nodeTaint("dedicated", "gpu", ns),
			[]func(*corev1.Pod){tolerate("other", corev1.TolerationOpExists, "", ns)}, untolerated},
		{"effect must match", nodeTaint("dedicated", "gpu", nx),
			[]func(*corev1.Pod){tolerate("dedicated", corev1.TolerationOpExists, "", ns)},
			[]string{"node(s) had untolerated taint {dedicated: gpu}"}},
		{"empty key with Exists tolerates all", nodeTaint("dedicated", "gpu", nx),
			[]func(*corev1.Pod){tolerate("", corev1.TolerationOpExists, "", "")}, nil},
		{"taint without value", nodeTaint("node-role.kubernetes.io/control-plane", "", ns), nil,
			[]string{"node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, []*corev1.Node{makeNode("n1", tc.node)})
			got := e.filterResult(taintToleration{}, makePod("default", "p", tc.pod...), "n1")
			if !slices.Equal(got, tc.wantR) {
				t.Errorf("got %q, want %q", got, tc.wantR)
			}
		})
	}
}

func TestTaintFirstUntoleratedReported(t *testing.T) {
	n := makeNode("n1", nodeTaint("a", "1", corev1.TaintEffectNoSchedule), nodeTaint("b", "2", corev1.TaintEffectNoSchedule))
	e := newEnv(t, []*corev1.Node{n})
	got := e.filterResult(taintToleration{}, makePod("default", "p",
		tolerate("a", corev1.TolerationOpExists, "", "")), "n1")
	if want := []string{"node(s) had untolerated taint {b: 2}"}; !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestNodeReady(t *testing.T) {
	notReady := []string{"node(s) had untolerated taint {node.kubernetes.io/not-ready: }"}
	tests := []struct {
		name string
		node func(*corev1.Node)
		pod  []func(*corev1.Pod)
		want []string
	}{
		{"ready", func(*corev1.Node) {}, nil, nil},
		{"not ready", nodeReadyStatus(corev1.ConditionFalse), nil, notReady},
		{"unknown is unreachable", nodeReadyStatus(corev1.ConditionUnknown), nil,
			[]string{"node(s) had untolerated taint {node.kubernetes.io/unreachable: }"}},
		{"no conditions yet", func(n *corev1.Node) { n.Status.Conditions = nil }, nil, notReady},
		{"not ready tolerated", nodeReadyStatus(corev1.ConditionFalse),
			[]func(*corev1.Pod){tolerate(taintNotReady, corev1.TolerationOpExists, "", corev1.TaintEffectNoSchedule)}, nil},
		{"NoSchedule readiness taint on the node: left to the taint filter", func(n *corev1.Node) {
			nodeReadyStatus(corev1.ConditionFalse)(n)
			nodeTaint(taintNotReady, "", corev1.TaintEffectNoSchedule)(n)
		}, nil, nil},
		{"NoExecute readiness taint tolerated for a while: still not placed", func(n *corev1.Node) {
			nodeReadyStatus(corev1.ConditionUnknown)(n)
			nodeTaint(taintUnreachable, "", corev1.TaintEffectNoExecute)(n)
		}, []func(*corev1.Pod){tolerate(taintUnreachable, corev1.TolerationOpExists, "", corev1.TaintEffectNoExecute)},
			[]string{"node(s) had untolerated taint {node.kubernetes.io/unreachable: }"}},
		{"cordoned", func(n *corev1.Node) { n.Spec.Unschedulable = true }, nil, []string{"node(s) were unschedulable"}},
		{"cordoned, tolerated", func(n *corev1.Node) { n.Spec.Unschedulable = true },
			[]func(*corev1.Pod){tolerate(taintUnschedulable, corev1.TolerationOpExists, "", corev1.TaintEffectNoSchedule)}, nil},
		{"cordoned and not ready: cordon first", func(n *corev1.Node) {
			n.Spec.Unschedulable = true
			nodeReadyStatus(corev1.ConditionFalse)(n)
		}, nil, []string{"node(s) were unschedulable"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, []*corev1.Node{makeNode("n1", tc.node)})
			got := e.filterResult(nodeReady{}, makePod("default", "p", tc.pod...), "n1")
			if !slices.Equal(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}
