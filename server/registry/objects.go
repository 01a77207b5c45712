package registry

import (
	"crypto/rand"
	"fmt"
	"reflect"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/managedfields"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/informer"
	"github.com/bramble-edge/bramble/internal/uuid"
)

// encodeStored encodes obj for the datastore, without its resourceVersion:
// the datastore revision is the resourceVersion.
func encodeStored(obj api.Object) ([]byte, error) {
	obj, err := api.ToStorage(obj) // another version of a kind is stored as its storage version
	if err != nil {
		return nil, err
	}
	rv := obj.GetResourceVersion()
	obj.SetResourceVersion("")
	data, err := api.EncodeOwned(obj) // obj is the write's own, as its resourceVersion says
	obj.SetResourceVersion(rv)
	if err != nil {
		return nil, fmt.Errorf("encode %s %q: %w", obj.GetObjectKind().GroupVersionKind().Kind, obj.GetName(), err)
	}
	return data, nil
}

// setCreateFields fills the metadata only the server sets on create.
func (r *Registry) setCreateFields(obj api.Object) {
	obj.SetUID(newUID())
	obj.SetCreationTimestamp(metav1.NewTime(r.now().UTC()))
	obj.SetResourceVersion("")
	obj.SetDeletionTimestamp(nil)
	obj.SetDeletionGracePeriodSeconds(nil)
	if !validManagedFields(obj.GetManagedFields()) {
		obj.SetManagedFields(nil)
	}
}

// validManagedFields is managedfields.ValidateManagedFields without the
// decoding (two allocations) when there are none, as on most writes.
func validManagedFields(fields []metav1.ManagedFieldsEntry) bool {
	return len(fields) == 0 || managedfields.ValidateManagedFields(fields) == nil
}

// keepUpdateFields carries over what an update may not change or may leave
// out: identity, timestamps, managedFields when the client sent none.
func keepUpdateFields(obj, old api.Object) {
	if obj.GetUID() == "" {
		obj.SetUID(old.GetUID())
	}
	obj.SetCreationTimestamp(old.GetCreationTimestamp())
	api.KeepDeletion(obj, old)
	obj.SetGeneration(old.GetGeneration())
	if obj.GetManagedFields() == nil || !validManagedFields(obj.GetManagedFields()) {
		obj.SetManagedFields(copyManagedFields(old.GetManagedFields()))
	}
}

// copyManagedFields is a deep copy of fields: old may be the shared
// cache's object, which the written object must not share.
func copyManagedFields(fields []metav1.ManagedFieldsEntry) []metav1.ManagedFieldsEntry {
	if fields == nil {
		return nil
	}
	out := make([]metav1.ManagedFieldsEntry, len(fields))
	for i := range fields {
		fields[i].DeepCopyInto(&out[i])
	}
	return out
}

// randomBytes serves the UIDs and generated names of creates.
var randomBytes randomPool

// randomPool hands out crypto/rand bytes from a buffer refilled 4 KiB at a
// time: a pod's create took two getrandom system calls (its UID and its
// name), its Scheduled Event one; now 4 KiB serve some 180 pods.
type randomPool struct {
	mu   sync.Mutex
	buf  [4096]byte
	left int // unused bytes at the end of buf
}

// read fills b (at most len(p.buf) bytes) with random bytes.
func (p *randomPool) read(b []byte) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.left < len(b) {
		_, _ = rand.Read(p.buf[:])
		p.left = len(p.buf)
	}
	start := len(p.buf) - p.left
	copy(b, p.buf[start:start+len(b)])
	clear(p.buf[start : start+len(b)]) // served once, not kept
	p.left -= len(b)
}

// newUID returns a random (version 4) UUID.
func newUID() types.UID {
	var b [16]byte
	randomBytes.read(b[:])
	return types.UID(uuid.V4(b))
}

// generatedNameChars are the characters the apiserver uses for generateName
// suffixes (no vowels, no look-alikes).
const generatedNameChars = "bcdfghjklmnpqrstvwxz2456789"

// generateName appends five random characters to base, trimmed so the
// result fits in 63 characters.
func generateName(base string) string {
	if len(base) > 58 {
		base = base[:58]
	}
	var b [5]byte
	nameSuffix(&b)
	return base + string(b[:])
}

// nameSuffix fills in generateName's five characters; a variable so that
// a test can make generated names collide.
var nameSuffix = randomSuffix

func randomSuffix(b *[5]byte) {
	randomBytes.read(b[:])
	for i := range b {
		b[i] = generatedNameChars[int(b[i])%len(generatedNameChars)]
	}
}

// sameNamespace checks a body's namespace against the URL's and fills it in
// when empty; cluster-scoped objects never carry one.
func sameNamespace(res *api.Resource, urlNS string, obj api.Object) error {
	if !res.Namespaced {
		obj.SetNamespace("")
		return nil
	}
	switch obj.GetNamespace() {
	case "":
		obj.SetNamespace(urlNS)
	case urlNS:
	default:
		return BadRequest("the namespace of the provided object (%s) does not match the namespace sent on the request (%s)",
			obj.GetNamespace(), urlNS)
	}
	return nil
}

// offer gives the shared cache obj, encoded as data and about to be
// written at key, so that the cache need not decode those bytes again when
// the watch brings them (informer.Cache.Offer). It must be called before
// the write, and the write's outcome reported to what it returns. The
// cache copies what it takes before offer returns: obj stays the caller's,
// who may change it.
func (r *Registry) offer(res *api.Resource, key string, data []byte, obj api.Object) *informer.Offered {
	if r.cache == nil {
		return nil
	}
	return r.cache.Offer(res, key, data, obj)
}

// giveNew hands the shared cache obj, a new object of the registry's own
// encoded as data, without the copy offer makes (informer.Cache.Give):
// obj is first brought to its stored form in place (api.FixStored, as
// the copy would be). out is a shallow copy of obj, made before the
// cache may take obj and set its resourceVersion, to answer with: it
// shares obj's maps, slices and pointers, which nobody changes. When obj
// cannot be given so, it is offered as a copy and is out itself.
func (r *Registry) giveNew(res *api.Resource, key string, data []byte, obj api.Object) (out api.Object, _ *informer.Offered) {
	if r.cache == nil {
		return obj, nil
	}
	if !api.Copyable(res, obj) || !api.FixStored(obj) {
		return obj, r.offer(res, key, data, obj)
	}
	obj.GetObjectKind().SetGroupVersionKind(res.GroupVersionKind())
	guardGiven(res, obj)
	out = shallowCopy(obj)
	offered := r.cache.Give(res, key, data, obj)
	if offered == nil {
		return obj, nil // not taken: obj stays the caller's
	}
	return out, offered
}

// shallowCopy is a new struct with obj's fields (Copyable objects are
// pointers to structs).
func shallowCopy(obj api.Object) api.Object {
	v := reflect.ValueOf(obj).Elem()
	cp := reflect.New(v.Type())
	cp.Elem().Set(v)
	return cp.Interface().(api.Object)
}
