package scheduler

import (
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// TestChecksLeftOutChangeNothing holds chooseChecks to its promise: a
// filter it leaves out passes every node for the pod, and a scorer it
// leaves out gives every node the same normalized score. The cluster has
// taints, zones, arm boards, images, host ports and (anti-)affine pods in
// place; the pods range from bare to asking for every check.
func TestChecksLeftOutChangeNothing(t *testing.T) {
	nodes := benchCluster(40)
	nodes[5].Status.Images = []corev1.ContainerImage{{Names: []string{"nginx:1.27"}, SizeBytes: 300 << 20}}
	e := newEnv(t, nodes,
		makePod("default", "web-a", owned("web"), podReq("1", "1Gi"), podOn("node-00001"), podLabels("app", "web"),
			podPorts(false, corev1.ContainerPort{ContainerPort: 80, HostPort: 80})),
		makePod("default", "lonely", podOn("node-00002"), podLabels("app", "lonely"), antiTo("web", corev1.LabelTopologyZone)),
		makePod("default", "db", podOn("node-00004"), podLabels("app", "db")))
	pods := map[string]*corev1.Pod{
		"bare":        makePod("default", "p1"),
		"requests":    makePod("default", "p2", podReq("100m", "64Mi")),
		"group":       makePod("default", "p3", owned("rs"), podReq("100m", "")),
		"app":         makePod("default", "p4", podLabels("app", "web"), podImage("nginx:1.27")),
		"image-none":  makePod("default", "p5", podImage("busybox:1")),
		"ports":       makePod("default", "p6", podPorts(false, corev1.ContainerPort{ContainerPort: 80, HostPort: 80})),
		"selector":    makePod("default", "p7", func(p *corev1.Pod) { p.Spec.NodeSelector = map[string]string{corev1.LabelTopologyZone: "zone-1"} }),
		"affine":      makePod("default", "p8", affineTo("db", corev1.LabelHostname)),
		"anti":        makePod("default", "p9", antiTo("web", corev1.LabelHostname)),
		"selected":    makePod("default", "p10", podLabels("app", "web")),
		"tolerations": makePod("default", "p11", tolerate("dedicated", corev1.TolerationOpExists, "", "")),
		"preferred": makePod("default", "p12", func(p *corev1.Pod) {
			p.Spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
				PreferredDuringSchedulingIgnoredDuringExecution: []corev1.PreferredSchedulingTerm{{Weight: 5,
					Preference: corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{
						expr(corev1.LabelTopologyZone, corev1.NodeSelectorOpIn, "zone-2")}}}}}}
		}),
	}
	e.cache.updateSnapshot(e.snap)
	names := make([]string, 0, len(e.snap.list))
	for _, n := range e.snap.list {
		names = append(names, n.name)
	}
	left := map[string]int{} // checks left out, over all pods
	for what, pod := range pods {
		c := e.prepare(newPodInfo(pod))
		e.algo.chooseChecks(c)
		active := map[string]bool{}
		for _, f := range e.algo.active {
			active[fmt.Sprintf("%T", f)] = true
		}
		for _, f := range e.algo.filters {
			name := fmt.Sprintf("%T", f)
			if active[name] {
				continue
			}
			left[name]++
			for _, n := range e.snap.list {
				if r := f.filter(c, n); r != nil {
					t.Errorf("%s: %s was left out but rejects %s: %v", what, name, n.name, r)
				}
			}
		}
		live := map[int]bool{}
		for _, k := range e.algo.live {
			live[k] = true
		}
		for k, ws := range e.algo.scorers {
			if live[k] {
				continue
			}
			left[ws.name]++
			scores := e.scoreAll(ws.s, pod, names...)
			for i, s := range scores {
				if s != scores[0] {
					t.Errorf("%s: %s was left out but scores %s %d and %s %d", what, ws.name, names[0], scores[0], names[i], s)
					break
				}
			}
		}
	}
	// Every optional check was left out for some pod and kept for another.
	for _, name := range []string{"scheduler.nodeSelector", "scheduler.archFilter", "scheduler.hostPorts",
		"scheduler.resourcesFit", "scheduler.podAffinity", "scheduler.antiAffinity", "scheduler.volumeFilter",
		"SpreadNodes", "SpreadTopology", "ImageLocality", "PreferredNodeAffinity"} {
		if left[name] == 0 {
			t.Errorf("%s was never left out", name)
		}
		if name != "scheduler.volumeFilter" && left[name] == len(pods) {
			t.Errorf("%s was left out for every pod", name)
		}
	}
}
