package registry

import (
	"context"
	"sync"

	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/informer"
)

// crdFollower serves what the shared cache says the CRDs are, so that a
// CRD written through another server (several servers on etcd) or
// deleted there is served or dropped here too. Writes through this
// registry are served at once by crdAdmitter; the follower then finds
// them served already. Handlers only mark names; one goroutine serves.
type crdFollower struct {
	r    *Registry
	inf  *informer.Informer
	mu   sync.Mutex
	todo map[string]bool
	wake chan struct{}
}

// followCRDs starts the follower on the cache's CRD informer until ctx ends.
func (r *Registry) followCRDs(ctx context.Context) {
	f := &crdFollower{r: r, inf: r.cache.Informer(crdResource), todo: map[string]bool{}, wake: make(chan struct{}, 1)}
	f.inf.AddHandler(informer.Handler{
		OnAdd:    func(obj api.Object) { f.mark(obj.GetName()) },
		OnUpdate: func(_, cur api.Object) { f.mark(cur.GetName()) },
		OnDelete: func(last api.Object) { f.mark(last.GetName()) },
	})
	go f.run(ctx)
}

func (f *crdFollower) mark(name string) {
	f.mu.Lock()
	f.todo[name] = true
	f.mu.Unlock()
	select {
	case f.wake <- struct{}{}:
	default:
	}
}

func (f *crdFollower) run(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-f.wake:
		}
		f.mu.Lock()
		names := f.todo
		f.todo = map[string]bool{}
		f.mu.Unlock()
		for name := range names {
			f.sync(name)
		}
	}
}

// sync serves the CRD's versions as the cache holds it: nothing when it
// is gone, being deleted or not established.
func (f *crdFollower) sync(name string) {
	obj, ok := f.inf.Get("", name)
	var crd *apiextv1.CustomResourceDefinition
	if ok {
		crd = obj.(*apiextv1.CustomResourceDefinition)
	}
	served := f.r.kinds.crdSource(name)
	if crd == nil || crd.DeletionTimestamp != nil || !established(crd) {
		if served != "" {
			f.r.kinds.serveCRD(name, nil)
		}
		return
	}
	if served == api.CRDSource(crd) {
		return
	}
	kinds, err := servedKinds(crd)
	if err != nil {
		f.r.log.Error("serve CustomResourceDefinition", "crd", name, "err", err)
		return
	}
	f.r.kinds.serveCRD(name, kinds)
}

func established(crd *apiextv1.CustomResourceDefinition) bool {
	c := api.CRDCondition(crd, apiextv1.Established)
	return c != nil && c.Status == apiextv1.ConditionTrue
}

// crdSource is the Source of the kinds served for the CRD, "" for none.
func (k *Kinds) crdSource(crd string) string {
	for _, res := range k.All() {
		if c := res.Custom(); c != nil && c.CRD == crd {
			return c.Source
		}
	}
	return ""
}
