package e2e

import (
	"encoding/json"
	"sync"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/bramble-edge/bramble/e2e/cluster"
)

// A rolling update's two bounds, as upstream's Deployment controller keeps
// them. maxSurge bounds what the ReplicaSets ask for: the sum of their
// spec.replicas never passes replicas+maxSurge (upstream's NewRSNewReplicas
// counts the ReplicaSets' spec.replicas, not pods). It does not bound the
// pods alive at one instant: once an old ReplicaSet has been scaled down,
// the new one may be scaled up at once, and its controller may create the
// new pods before the old one's controller has deleted its surplus (both
// here and upstream). maxUnavailable bounds the Ready pods, which never
// fall below replicas-maxUnavailable: the controller scales old ReplicaSets
// down only by what their Ready pods allow.

// rolloutWatch is what watchAvailability has seen so far.
type rolloutWatch struct {
	mu       sync.Mutex
	pods     map[string]bool  // not terminating: name -> Ready
	asked    map[string]int32 // ReplicaSet name -> spec.replicas
	minReady int              // fewest Ready pods seen
	maxPods  int              // most pods not terminating seen (reported only)
	maxAsked int32            // largest sum of the ReplicaSets' spec.replicas seen
}

// watchAvailability follows every pod and ReplicaSet event matching
// selector and, when the returned func is called, fails the test if the
// Ready pods ever fell below replicas-maxUnavailable or the ReplicaSets
// ever asked for more than replicas+maxSurge pods.
func watchAvailability(t *testing.T, s *cluster.Server, selector string, replicas, maxSurge, maxUnavailable int) func() {
	t.Helper()
	c := cluster.NewClient(t, s.Kubeconfig)
	w := &rolloutWatch{pods: map[string]bool{}, asked: map[string]int32{}}
	var pods corev1.PodList
	listJSON(t, c, "/api/v1/namespaces/default/pods?labelSelector="+selector, &pods)
	for i := range pods.Items {
		w.pod("", &pods.Items[i])
	}
	var rss appsv1.ReplicaSetList
	listJSON(t, c, "/apis/apps/v1/namespaces/default/replicasets?labelSelector="+selector, &rss)
	for i := range rss.Items {
		w.replicaSet("", &rss.Items[i])
	}
	w.minReady = replicas // the rollout starts from a Deployment settled at replicas Ready pods
	podEvents := c.Watch("/api/v1/namespaces/default/pods?watch=1&labelSelector=" + selector + "&resourceVersion=" + pods.ResourceVersion)
	rsEvents := c.Watch("/apis/apps/v1/namespaces/default/replicasets?watch=1&labelSelector=" + selector + "&resourceVersion=" + rss.ResourceVersion)
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		w.follow(stop, podEvents, rsEvents)
	}()
	return func() {
		t.Helper()
		close(stop)
		<-done
		w.check(t, replicas, maxSurge, maxUnavailable)
	}
}

func listJSON(t *testing.T, c *cluster.Client, path string, into any) {
	t.Helper()
	r := c.Do("GET", path, "", nil)
	if r.Code != 200 || json.Unmarshal(r.Body, into) != nil {
		t.Fatalf("list %s: %d %s", path, r.Code, r.Body)
	}
}

// follow applies events until stop is closed or a watch ends.
func (w *rolloutWatch) follow(stop <-chan struct{}, podEvents, rsEvents <-chan cluster.WatchEvent) {
	for {
		select {
		case <-stop:
			return
		case ev, ok := <-podEvents:
			var p corev1.Pod
			if !ok {
				return
			}
			if json.Unmarshal(ev.Object, &p) == nil {
				w.pod(ev.Type, &p)
			}
		case ev, ok := <-rsEvents:
			var rs appsv1.ReplicaSet
			if !ok {
				return
			}
			if json.Unmarshal(ev.Object, &rs) == nil {
				w.replicaSet(ev.Type, &rs)
			}
		}
	}
}

// pod notes one pod event (typ "" for a listed pod). As upstream's
// ReplicaSets, the count leaves out a pod whose deletion has begun.
func (w *rolloutWatch) pod(typ string, p *corev1.Pod) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if typ == "DELETED" || p.DeletionTimestamp != nil {
		delete(w.pods, p.Name)
	} else {
		w.pods[p.Name] = podReady(p)
	}
	w.minReady, w.maxPods = min(w.minReady, w.ready()), max(w.maxPods, len(w.pods))
}

// replicaSet notes one ReplicaSet event (typ "" for a listed one).
func (w *rolloutWatch) replicaSet(typ string, rs *appsv1.ReplicaSet) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if typ == "DELETED" || rs.Spec.Replicas == nil {
		delete(w.asked, rs.Name)
	} else {
		w.asked[rs.Name] = *rs.Spec.Replicas
	}
	var sum int32
	for _, n := range w.asked {
		sum += n
	}
	w.maxAsked = max(w.maxAsked, sum)
}

// ready counts the Ready pods; w.mu is held (or w not yet shared).
func (w *rolloutWatch) ready() int {
	n := 0
	for _, r := range w.pods {
		if r {
			n++
		}
	}
	return n
}

func (w *rolloutWatch) check(t *testing.T, replicas, maxSurge, maxUnavailable int) {
	t.Helper()
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.minReady < replicas-maxUnavailable {
		t.Errorf("Ready pods fell to %d during the rollout, want at least replicas-maxUnavailable = %d", w.minReady, replicas-maxUnavailable)
	}
	if int(w.maxAsked) > replicas+maxSurge {
		t.Errorf("the ReplicaSets asked for %d pods during the rollout, want at most replicas+maxSurge = %d", w.maxAsked, replicas+maxSurge)
	}
	t.Logf("during the rollout: at least %d Ready, ReplicaSets asking for at most %d, at most %d pods not terminating",
		w.minReady, w.maxAsked, w.maxPods)
}
