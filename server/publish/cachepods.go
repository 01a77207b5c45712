package publish

import (
	"context"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/informer"
)

// PodSource hands the publisher pods the process has decoded already, so
// that a committed pod is not decoded once more here (the shared cache
// decodes every pod once per revision for everyone).
type PodSource interface {
	// PodAt returns the pod as of revision rev (read only), or false when
	// the source does not hold that very version: the publisher then
	// decodes the stored value itself.
	PodAt(namespace, name string, rev int64) (*corev1.Pod, bool)
}

// cacheWait bounds how long PodAt waits for the cache to apply a revision
// the publisher has been told of; both follow the same datastore watch, so
// the cache is usually there already or within a batch.
const cacheWait = 20 * time.Millisecond

// cacheLagPause: after a wait that timed out (the cache relisting, or far
// behind), PodAt stops waiting for this long, so a lagging cache costs the
// dispatcher at most one wait per pause.
const cacheLagPause = time.Second

// cachePods is a PodSource over the shared informer cache.
type cachePods struct {
	cache   *informer.Cache
	pods    *informer.Informer
	noWaits time.Time // PodAt does not wait before then
}

// CachePods is a PodSource reading c's pod informer. It is used by the
// dispatcher goroutine only.
func CachePods(c *informer.Cache) PodSource {
	return &cachePods{cache: c, pods: c.Informer(api.MustLookup("", "v1", "pods"))}
}

func (s *cachePods) PodAt(namespace, name string, rev int64) (*corev1.Pod, bool) {
	if s.cache.Revision() < rev && !s.await(rev) {
		return nil, false
	}
	obj, ok := s.pods.Get(namespace, name)
	if !ok || obj.GetResourceVersion() != strconv.FormatInt(rev, 10) {
		return nil, false // changed again (or deleted) since rev: not that version
	}
	pod, ok := obj.(*corev1.Pod)
	return pod, ok
}

// await waits a little for the cache to apply rev.
func (s *cachePods) await(rev int64) bool {
	now := time.Now()
	if now.Before(s.noWaits) {
		return false
	}
	ctx, cancel := context.WithTimeout(context.Background(), cacheWait)
	defer cancel()
	if s.cache.AwaitRevision(ctx, rev) != nil {
		s.noWaits = now.Add(cacheLagPause)
		return false
	}
	return true
}
