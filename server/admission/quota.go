// Package admission holds the registry's admission plugins that read
// other objects: resource quotas, limit ranges, priority classes and
// runtime classes. Each is a registry.Admitter; server/assemble.go adds
// them with Registry.Use.
package admission

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/api/quota"
	"github.com/bramble-edge/bramble/server/registry"
)

var quotasResource = api.MustLookup("", "v1", "resourcequotas")

// Quota enforces ResourceQuotas on creates: an object whose usage would
// take a namespace over a quota's hard limit is refused, as is a pod that
// does not request or limit a compute resource a quota limits. Admission
// in one namespace is serialised, and what admitted creates use counts
// until they are stored or fail, so concurrent creates cannot overshoot.
type Quota struct {
	reg *registry.Registry

	mu  sync.Mutex
	nss map[string]*nsQuota
}

// nsQuota is one namespace's admission lock, its in-flight creates and
// the usage of its stored objects, remembered by resourceVersion.
type nsQuota struct {
	mu       sync.Mutex
	inFlight map[string]inFlight // by storage key
	memo     map[string]memoEntry
	round    uint64 // counts checks; entries not seen in the last one go
}

type memoEntry struct {
	rv    string
	usage corev1.ResourceList
	round uint64
}

type inFlight struct {
	res *api.Resource
	obj api.Object
}

var _ registry.Admitter = (*Quota)(nil)

// NewQuota makes the quota plugin on reg.
func NewQuota(reg *registry.Registry) *Quota {
	return &Quota{reg: reg, nss: map[string]*nsQuota{}}
}

// Admit checks a create, or an update that grows what an object uses (a
// service made a NodePort, a claim resized), against the namespace's
// quotas and reserves what it uses until release.
func (p *Quota) Admit(ctx context.Context, a *registry.Attributes) (func(bool), error) {
	if a.Subresource != "" || !a.Resource.Namespaced {
		return nil, nil
	}
	ns := a.Object.GetNamespace()
	quotas, err := p.quotas(ctx, ns, a.Revision)
	if err != nil || len(quotas) == 0 {
		return nil, err
	}
	relevant, err := p.relevant(a, quotas)
	if err != nil || len(relevant) == 0 {
		return nil, err
	}
	st := p.namespace(ns)
	st.mu.Lock()
	defer st.mu.Unlock()
	st.round++
	defer st.forget()
	for _, q := range relevant {
		if err := p.check(ctx, a, q, st); err != nil {
			return nil, err
		}
	}
	key := a.Resource.Key(ns, a.Object.GetName())
	// a copy: the writer goes on setting the object's metadata
	st.inFlight[key] = inFlight{res: a.Resource, obj: a.Object.DeepCopyObject().(api.Object)}
	return func(bool) {
		st.mu.Lock()
		delete(st.inFlight, key)
		st.mu.Unlock()
	}, nil
}

func (p *Quota) namespace(ns string) *nsQuota {
	p.mu.Lock()
	defer p.mu.Unlock()
	st, ok := p.nss[ns]
	if !ok {
		st = &nsQuota{inFlight: map[string]inFlight{}, memo: map[string]memoEntry{}}
		p.nss[ns] = st
	}
	return st
}

// quotas lists ns's ResourceQuotas by name, no older than revision rev
// (only their hard limits are read; the usage is counted afresh by used).
func (p *Quota) quotas(ctx context.Context, ns string, rev int64) ([]*corev1.ResourceQuota, error) {
	items, err := p.reg.ListItems(ctx, quotasResource, ns, registry.ListOptions{ResourceVersion: rev})
	if err != nil {
		return nil, fmt.Errorf("list resource quotas: %w", err)
	}
	if len(items) == 0 { // most namespaces
		return nil, nil
	}
	out := make([]*corev1.ResourceQuota, 0, len(items))
	for _, o := range items {
		out = append(out, o.(*corev1.ResourceQuota))
	}
	slices.SortFunc(out, func(a, b *corev1.ResourceQuota) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// relevant keeps the quotas that count the new object, refusing a pod
// that leaves out a compute resource one of them limits.
func (p *Quota) relevant(a *registry.Attributes, quotas []*corev1.ResourceQuota) ([]*corev1.ResourceQuota, error) {
	usage := p.requested(a)
	var out []*corev1.ResourceQuota
	for _, q := range quotas {
		if !quota.Matches(q, a.Object) {
			continue
		}
		if pod, ok := a.Object.(*corev1.Pod); ok && a.Create() && !quota.Terminal(pod, p.reg.Now()) {
			if missing := quota.MissingCompute(q.Spec.Hard, pod); missing != "" {
				return nil, forbidden(a, fmt.Sprintf("failed quota: %s: must specify %s", q.Name, missing))
			}
		}
		if len(quota.Limited(q.Spec.Hard, usage)) > 0 {
			out = append(out, q)
		}
	}
	return out, nil
}

// requested is what the write adds: the new object's usage, or on an
// update what grew since the stored one.
func (p *Quota) requested(a *registry.Attributes) corev1.ResourceList {
	usage := quota.Usage(a.Resource, a.Object, p.reg.Now())
	if a.Create() {
		return usage
	}
	return quota.Grown(usage, quota.Usage(a.Resource, a.Old, p.reg.Now()))
}

// check refuses the create when it takes q over a hard limit, counting
// the stored objects and the creates in flight.
func (p *Quota) check(ctx context.Context, a *registry.Attributes, q *corev1.ResourceQuota, st *nsQuota) error {
	requested := quota.Limited(q.Spec.Hard, p.requested(a))
	used, err := p.used(ctx, q, st)
	if err != nil {
		return err
	}
	over := quota.Exceeded(q.Spec.Hard, used, requested)
	if len(over) == 0 {
		return nil
	}
	return forbidden(a, fmt.Sprintf("exceeded quota: %s, requested: %s, used: %s, limited: %s",
		q.Name, quota.Print(requested, over), quota.Print(used, over), quota.Print(q.Spec.Hard, over)))
}

// used sums q's usage over the stored objects and those in flight (an
// object both stored and in flight counts once).
func (p *Quota) used(ctx context.Context, q *corev1.ResourceQuota, st *nsQuota) (corev1.ResourceList, error) {
	var listErr error
	objects := func(res *api.Resource) []api.Object {
		l, err := p.reg.List(ctx, res, q.Namespace, registry.ListOptions{})
		if err != nil {
			listErr = err
			return nil
		}
		var out []api.Object
		for _, o := range l.Items {
			if _, flying := st.inFlight[res.Key(o.GetNamespace(), o.GetName())]; !flying {
				out = append(out, o)
			}
		}
		for _, f := range st.inFlight {
			if f.res.GroupResource() == res.GroupResource() {
				out = append(out, f.obj)
			}
		}
		return out
	}
	used := quota.Used(q, quota.Sources(q.Spec.Hard, p.lookup), objects, st.usage(p.reg.Now()))
	if listErr != nil {
		return nil, fmt.Errorf("quota %s usage: %w", q.Name, listErr)
	}
	return used, nil
}

// usage is quota.Usage, remembered per stored object and resourceVersion
// (a pod being deleted is recomputed: its grace period runs out).
func (st *nsQuota) usage(now time.Time) quota.UsageFunc {
	return func(res *api.Resource, obj api.Object) corev1.ResourceList {
		rv := obj.GetResourceVersion()
		if rv == "" || obj.GetDeletionTimestamp() != nil {
			return quota.Usage(res, obj, now)
		}
		key := res.Key(obj.GetNamespace(), obj.GetName())
		e, ok := st.memo[key]
		if !ok || e.rv != rv {
			e = memoEntry{rv: rv, usage: quota.Usage(res, obj, now)}
		}
		e.round = st.round
		st.memo[key] = e
		return e.usage
	}
}

// forget drops the remembered usage of objects the last check did not see.
func (st *nsQuota) forget() {
	for k, e := range st.memo {
		if e.round != st.round {
			delete(st.memo, k)
		}
	}
}

// lookup finds a served collection, built in or added at run time.
func (p *Quota) lookup(gr schema.GroupResource) (*api.Resource, bool) {
	for _, r := range p.reg.Kinds().All() {
		if r.Group == gr.Group && r.Name == gr.Resource {
			return r, true
		}
	}
	return nil, false
}

// forbidden is upstream's 403 for a refused write.
func forbidden(a *registry.Attributes, msg string) error {
	return apierrors.NewForbidden(a.Resource.GroupResource(), a.Object.GetName(), fmt.Errorf("%s", msg))
}
