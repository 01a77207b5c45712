package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/bramble-edge/bramble/e2e/cluster"
)

// stsSteps are TestStatefulSetTwoNodes' steps on StatefulSet db/web.
type stsSteps struct {
	t        *testing.T
	s        *cluster.Server
	dataDirs map[string]string // node -> its agent's data dir
}

// pods is the set's pods by name.
func (st *stsSteps) pods() map[string]corev1.Pod {
	var list corev1.PodList
	out := map[string]corev1.Pod{}
	if getJSON(st.s, &list, "pods", "-n", "db", "-l", "app=web") {
		for _, p := range list.Items {
			out[p.Name] = p
		}
	}
	return out
}

// waitReady waits until the set's pods are exactly web-0..web-n-1, all Ready.
func (st *stsSteps) waitReady(n int) map[string]corev1.Pod {
	st.t.Helper()
	var pods map[string]corev1.Pod
	cluster.WaitFor(st.t, 120*time.Second, func() bool {
		pods = st.pods()
		for i := range n {
			if p, ok := pods[fmt.Sprintf("web-%d", i)]; !ok || !podReady(&p) {
				return false
			}
		}
		return len(pods) == n
	}, fmt.Sprintf("StatefulSet web's %d pods Ready", n))
	return pods
}

// orderedStart checks each pod was created no earlier than the one before
// it turned Ready.
func (st *stsSteps) orderedStart(n int) {
	pods := st.waitReady(n)
	for i := 1; i < n; i++ {
		prev, cur := pods[fmt.Sprintf("web-%d", i-1)], pods[fmt.Sprintf("web-%d", i)]
		var readyAt time.Time
		for _, c := range prev.Status.Conditions {
			if c.Type == corev1.PodReady {
				readyAt = c.LastTransitionTime.Time
			}
		}
		if cur.CreationTimestamp.Time.Before(readyAt) {
			st.t.Errorf("%s created at %v, before %s turned Ready at %v", cur.Name, cur.CreationTimestamp, prev.Name, readyAt)
		}
		st.t.Logf("%s on %s created %v; %s Ready %v", cur.Name, cur.Spec.NodeName, cur.CreationTimestamp.Time, prev.Name, readyAt)
	}
}

// claims checks each pod web-N has its claim data-web-N, bound to a
// volume whose directory is on the pod's node, and returns the volumes by
// pod.
func (st *stsSteps) claims(n int) map[string]string {
	st.t.Helper()
	out := map[string]string{}
	pods := st.waitReady(n)
	for name, p := range pods {
		if v := p.Spec.Volumes; len(v) == 0 || v[0].PersistentVolumeClaim == nil || v[0].PersistentVolumeClaim.ClaimName != "data-"+name {
			st.t.Errorf("pod %s volumes %+v, want claim data-%s", name, v, name)
		}
		var claim corev1.PersistentVolumeClaim
		cluster.WaitFor(st.t, 60*time.Second, func() bool {
			return getJSON(st.s, &claim, "pvc", "data-"+name, "-n", "db") && claim.Status.Phase == corev1.ClaimBound
		}, "claim data-"+name+" Bound")
		node, dir := st.volume(claim.Spec.VolumeName)
		if node != p.Spec.NodeName || !strings.HasPrefix(dir, st.dataDirs[node]+"/") {
			st.t.Errorf("volume %s of %s (on %s): node %q, directory %q; want on the pod's node, under %s",
				claim.Spec.VolumeName, name, p.Spec.NodeName, node, dir, st.dataDirs[p.Spec.NodeName])
		}
		out[name] = claim.Spec.VolumeName
	}
	return out
}

// volume is the node a PersistentVolume's affinity names and its directory.
func (st *stsSteps) volume(name string) (node, dir string) {
	st.t.Helper()
	var pv corev1.PersistentVolume
	if !getJSON(st.s, &pv, "pv", name) {
		st.t.Fatalf("kubectl get pv %s failed", name)
	}
	switch {
	case pv.Spec.HostPath != nil:
		dir = pv.Spec.HostPath.Path
	case pv.Spec.Local != nil:
		dir = pv.Spec.Local.Path
	}
	if a := pv.Spec.NodeAffinity; a != nil && a.Required != nil && len(a.Required.NodeSelectorTerms) > 0 {
		if e := a.Required.NodeSelectorTerms[0].MatchExpressions; len(e) > 0 && len(e[0].Values) > 0 {
			node = e[0].Values[0]
		}
	}
	return node, dir
}

// dataSurvives deletes web-1: it comes back on the same node, and the
// boots file on its volume holds the first start's line and its own.
func (st *stsSteps) dataSurvives(volume string) {
	node, dir := st.volume(volume)
	boots := filepath.Join(dir, "boots")
	read := func() string { b, _ := os.ReadFile(boots); return string(b) }
	cluster.WaitFor(st.t, 30*time.Second, func() bool { return read() == "web-1\n" }, "web-1's first boot line in "+boots)
	old := st.pods()["web-1"]
	st.s.MustKubectl("delete", "pod", "web-1", "-n", "db", "--wait=true")
	pods := st.waitReady(3)
	if p := pods["web-1"]; p.UID == old.UID || p.Spec.NodeName != node {
		st.t.Errorf("web-1 after deletion: uid %s on %s, want a new pod on %s", p.UID, p.Spec.NodeName, node)
	}
	cluster.WaitFor(st.t, 30*time.Second, func() bool { return read() == "web-1\nweb-1\n" },
		"web-1's second boot line after the first in "+boots)
}

// dns resolves web-1 by its stable names from the client pod.
func (st *stsSteps) dns(c *svcClient) {
	ip := st.pods()["web-1"].Status.PodIP
	for _, name := range []string{"web-1.web", "web-1.web.db.svc.cluster.local"} {
		c.wait(name+" to resolve to "+ip, func(out string) bool { return out == ip }, "lookup", name)
	}
}

// scaleDown scales to 1 and checks web-1 was not deleted while web-2 was
// still there; then back to 3.
func (st *stsSteps) scaleDown() {
	st.s.MustKubectl("scale", "statefulset", "web", "-n", "db", "--replicas=1")
	cluster.WaitFor(st.t, 90*time.Second, func() bool {
		pods := st.pods()
		web1, has1 := pods["web-1"]
		if _, has2 := pods["web-2"]; has2 && (!has1 || web1.DeletionTimestamp != nil) {
			st.t.Fatalf("web-1 deleted while web-2 was still there: %v", keysOf(pods))
		}
		return len(pods) == 1
	}, "the StatefulSet scaled down to web-0")
	st.s.MustKubectl("scale", "statefulset", "web", "-n", "db", "--replicas=3")
	st.waitReady(3)
}

// partitionAndUndo updates with partition 2 (only web-2 changes), then
// rolls back with kubectl rollout undo.
func (st *stsSteps) partitionAndUndo() {
	before := st.pods()
	var set appsv1.StatefulSet
	if !getJSON(st.s, &set, "statefulset", "web", "-n", "db") {
		st.t.Fatal("kubectl get statefulset web failed")
	}
	first := set.Status.CurrentRevision
	st.s.MustKubectl("patch", "statefulset", "web", "-n", "db", "-p", `{"spec":{"updateStrategy":{"rollingUpdate":{"partition":2}}}}`)
	st.s.MustKubectl("set", "env", "statefulset/web", "-n", "db", "MODE=two")
	out := st.s.MustKubectl("rollout", "status", "statefulset/web", "-n", "db", "--timeout=90s")
	if !strings.Contains(out, "partitioned roll out complete: 1 new pods have been updated") {
		st.t.Errorf("rollout status: %q, want the partitioned roll out complete with 1 pod", out)
	}
	st.waitRevisions(before, first, "web-2")
	st.s.MustKubectl("rollout", "undo", "statefulset/web", "-n", "db")
	st.waitRevisions(before, first, "")
}

// waitRevisions waits until web-0 and web-1 are the pods of before and
// every pod is Ready at revision first except changed, which is at
// another revision.
func (st *stsSteps) waitRevisions(before map[string]corev1.Pod, first, changed string) {
	st.t.Helper()
	var pods map[string]corev1.Pod
	cluster.WaitFor(st.t, 90*time.Second, func() bool {
		pods = st.waitReady(3)
		for name, p := range pods {
			if (p.Labels["controller-revision-hash"] == first) == (name == changed) {
				return false
			}
		}
		return true
	}, fmt.Sprintf("pods at revision %s but %q", first, changed))
	for _, name := range []string{"web-0", "web-1"} {
		if pods[name].UID != before[name].UID {
			st.t.Errorf("%s was replaced below the partition", name)
		}
	}
}

func keysOf[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
