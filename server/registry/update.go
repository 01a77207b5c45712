package registry

import (
	"bytes"
	"context"
	"errors"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/datastore"
)

// Mutation is one read-modify-write of a stored object.
type Mutation struct {
	Resource  *api.Resource
	Namespace string
	Name      string
	// Subresource is "", "status" or "ephemeralcontainers": it picks the admission (spec and
	// metadata, or status only). Writes the registry makes itself
	// (bindings, scale) set Admit instead.
	Subresource string
	// Mutate turns a private copy of the current object into the desired
	// one. A resourceVersion it leaves on the result is a precondition.
	Mutate func(cur api.Object) (api.Object, error)
	DryRun bool

	// admit overrides the admission Subresource picks; skipAdmission is for
	// the registry's own writes (binding, deletion marks).
	admit         func(next, cur api.Object) error
	skipAdmission bool
	// replace, when set, is the desired object whatever is stored (PUT):
	// Mutate is not called, and the current object is not copied for it.
	replace api.Object
	// again, when set, says replace was made for this write alone: the
	// first attempt admits and keeps replace itself rather than a copy, and
	// a retry admits a fresh object again makes, never one an earlier
	// attempt's admission changed. taken records that replace was used.
	again func() api.Object
	taken bool
}

// desired is the object m wants written over cur, which it leaves alone.
func (m *Mutation) desired(cur api.Object) (api.Object, error) {
	switch {
	case m.replace != nil && m.again == nil:
		return m.replace.DeepCopyObject().(api.Object), nil
	case m.replace != nil && !m.taken:
		m.taken = true
		return m.replace, nil
	case m.replace != nil:
		obj := m.again()
		if err := checkIdentity(m.Resource, m.Namespace, m.Name, obj); err != nil {
			return nil, err
		}
		return obj, nil
	}
	return m.Mutate(cur.DeepCopyObject().(api.Object))
}

// maxUpdateAttempts bounds the retries of a write that races another.
const maxUpdateAttempts = 8

// Update replaces the object of res named name in ns with obj, like PUT
// (sub "status": like PUT on /status). A non-empty
// metadata.resourceVersion must be current (409 Conflict otherwise). obj
// must carry name and, for namespaced kinds, ns or no namespace.
func (r *Registry) Update(ctx context.Context, res *api.Resource, ns, name, sub string, obj api.Object, dryRun bool) (api.Object, error) {
	if err := checkIdentity(res, ns, name, obj); err != nil {
		return nil, err
	}
	return r.Mutate(ctx, Mutation{Resource: res, Namespace: ns, Name: name, Subresource: sub, DryRun: dryRun, replace: obj})
}

// UpdateNew is Update of obj, an object made for this call alone and
// sharing nothing with anyone else's: the registry admits and keeps obj
// itself rather than a copy, and answers with it. A retry (the write lost a
// race) admits a fresh object again makes instead.
func (r *Registry) UpdateNew(ctx context.Context, res *api.Resource, ns, name, sub string, obj api.Object, again func() api.Object) (api.Object, error) {
	if err := checkIdentity(res, ns, name, obj); err != nil {
		return nil, err
	}
	return r.Mutate(ctx, Mutation{Resource: res, Namespace: ns, Name: name, Subresource: sub, replace: obj, again: again})
}

// checkIdentity makes sure an object names the object it is written over.
func checkIdentity(res *api.Resource, ns, name string, obj api.Object) error {
	if obj.GetName() != name {
		return BadRequest("the name of the object (%s) does not match the name on the URL (%s)", obj.GetName(), name)
	}
	return sameNamespace(res, ns, obj)
}

// Mutate reads the object, applies m.Mutate, checks the resourceVersion
// precondition the result carries, admits and stores it. A write that
// loses a race is retried from a fresh read; with a precondition that read
// then fails it with 409. It first tries the shared cache's object
// (mutateCached), which settles most writes with no datastore read.
func (r *Registry) Mutate(ctx context.Context, m Mutation) (api.Object, error) {
	admit := m.admit
	if admit == nil && !m.skipAdmission {
		admit = admitUpdate(m.Resource, m.Subresource)
	}
	if out, done, err := r.mutateCached(ctx, &m, admit); done {
		return out, err
	}
	for attempt := 1; ; attempt++ {
		cur, kv, err := r.loadShared(ctx, m.Resource, m.Namespace, m.Name)
		if err != nil {
			return nil, err
		}
		next, release, err := r.prepare(ctx, &m, admit, cur)
		if err != nil {
			return nil, err
		}
		out, err := r.storeUpdate(ctx, m, next, kv)
		release(err == nil && !m.DryRun)
		if errors.Is(err, datastore.ErrConflict) && attempt < maxUpdateAttempts {
			continue
		}
		if err != nil {
			return nil, StoreError(err, m.Resource, m.Name)
		}
		if checkShared {
			if held, _ := r.cachedShared(m.Resource, m.Namespace, m.Name); held == cur {
				guardAnswer(out, cur)
			}
		}
		return out, nil
	}
}

// prepare is the object m wants written over cur, which it only reads:
// desired, the precondition, admission. release ends the admitters'
// reservations (kept when the write is done).
func (r *Registry) prepare(ctx context.Context, m *Mutation, admit func(next, cur api.Object) error, cur api.Object) (next api.Object, release func(bool), err error) {
	defer guardShared(cur)()
	if next, err = m.desired(cur); err != nil {
		return nil, nil, err
	}
	if err := checkPrecondition(m.Resource, next, cur); err != nil {
		return nil, nil, err
	}
	next.SetResourceVersion(cur.GetResourceVersion()) // unconditional updates write over cur
	release = func(bool) {}
	if admit == nil {
		return next, release, nil
	}
	if err := admit(next, cur); err != nil {
		return nil, nil, err
	}
	if m.admit == nil {
		release, err = r.runAdmitters(ctx, &Attributes{Resource: m.Resource, Subresource: m.Subresource,
			Object: next, Old: cur, DryRun: m.DryRun})
		if err != nil {
			return nil, nil, err
		}
	}
	return next, release, nil
}

// checkPrecondition: a resourceVersion in the new object must be the
// current one (409 otherwise); an empty one means "whatever is there".
func checkPrecondition(res *api.Resource, next, cur api.Object) error {
	rv := next.GetResourceVersion()
	if rv == "" || rv == cur.GetResourceVersion() {
		return nil
	}
	if _, err := ParseResourceVersion(rv); err != nil {
		return invalid(res, cur.GetName(), field.ErrorList{field.Invalid(
			field.NewPath("metadata", "resourceVersion"), rv, "must be a decimal revision number")})
	}
	return conflict(res, cur.GetName())
}

// storeUpdate writes next over kv unless nothing changed (then the stored
// object is answered, revision unchanged) or this is a dry run. An object
// being deleted whose last finalizer just went is removed.
func (r *Registry) storeUpdate(ctx context.Context, m Mutation, next api.Object, kv *datastore.KeyValue) (api.Object, error) {
	next.SetResourceVersion(FormatResourceVersion(kv.ModRevision))
	data, err := encodeStored(next)
	if err != nil {
		return nil, err
	}
	if m.DryRun || bytes.Equal(data, kv.Value) {
		return next, nil
	}
	offered := r.offer(m.Resource, kv.Key, data, next)
	rev, err := r.store.Update(ctx, kv.Key, data, kv.ModRevision)
	offered.Written(rev, err)
	if err != nil {
		return nil, err
	}
	return r.updated(ctx, &m, next, kv.Key, kv.ModRevision, rev, data)
}

// updated finishes a write of data, next's encoding, over key's value at
// prev, which made revision rev: the fingerprint noted, and an object being
// deleted whose last finalizer just went removed.
func (r *Registry) updated(ctx context.Context, m *Mutation, next api.Object, key string, prev, rev int64, data []byte) (api.Object, error) {
	if r.cache != nil { // only mutateCached reads the fingerprints
		r.sums.note(key, prev, rev, data)
	}
	next.SetResourceVersion(FormatResourceVersion(rev))
	if next.GetDeletionTimestamp() != nil && len(next.GetFinalizers()) == 0 && !waitsForGrace(next) {
		return r.finishDeletion(ctx, m.Resource, next, rev)
	}
	return next, nil
}

// admitUpdate is update admission for the main resource or its status:
// server-owned metadata kept, defaulting, preparation, validation.
func admitUpdate(res *api.Resource, sub string) func(next, cur api.Object) error {
	return func(next, cur api.Object) error {
		keepUpdateFields(next, cur)
		st := res.Strategy()
		st.Default(next)
		var errs field.ErrorList
		switch sub {
		case "status", "approval": // a CSR's approval is a status write
			st.PrepareForStatusUpdate(res, next, cur)
			errs = st.ValidateStatusUpdate(res, next, cur)
		case api.SubresourceEphemeral:
			api.PrepareForEphemeralUpdate(next, cur)
			errs = api.ValidateEphemeralUpdate(next, cur)
		default:
			st.PrepareForUpdate(res, next, cur)
			errs = st.ValidateUpdate(res, next, cur)
		}
		if len(errs) > 0 {
			return invalid(res, next.GetName(), errs)
		}
		return nil
	}
}
