package join

import (
	"context"
	"crypto/rand"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/datastore"
)

// secrets is the Secret resource: where Secrets are kept in the datastore
// and how they are encoded, the same as the API server's.
var secrets = mustLookup("", "v1", "secrets")

// nodes is the Node resource: a node's certificate record notes whether
// its Node exists.
var nodes = mustLookup("", "v1", "nodes")

func mustLookup(group, version, name string) *api.Resource {
	r, ok := api.Lookup(group, version, name)
	if !ok {
		panic(fmt.Sprintf("api registry has no %s/%s %s", group, version, name))
	}
	return r
}

// createSecret stores s as the API server would on create: server-set
// metadata, defaulting, validation, then the datastore write. It returns
// datastore.ErrKeyExists (wrapped) when the name is taken.
func createSecret(ctx context.Context, store datastore.Store, s *corev1.Secret, now time.Time) error {
	s.UID = newUID()
	s.CreationTimestamp = metav1.NewTime(now.UTC().Truncate(time.Second))
	s.ResourceVersion = ""
	api.Default(s)
	api.PrepareForCreate(secrets, s)
	if errs := api.ValidateCreate(secrets, s); len(errs) > 0 {
		return fmt.Errorf("secret %s/%s: %w", s.Namespace, s.Name, errs.ToAggregate())
	}
	data, err := api.Encode(s)
	if err != nil {
		return fmt.Errorf("encode secret %s/%s: %w", s.Namespace, s.Name, err)
	}
	if _, err := store.Create(ctx, secrets.Key(s.Namespace, s.Name), data); err != nil {
		return fmt.Errorf("store secret %s/%s: %w", s.Namespace, s.Name, err)
	}
	return nil
}

// getSecret reads one Secret; datastore.ErrNotFound (wrapped) when absent.
func getSecret(ctx context.Context, store datastore.Store, namespace, name string) (*corev1.Secret, error) {
	kv, err := store.Get(ctx, secrets.Key(namespace, name))
	if err != nil {
		return nil, fmt.Errorf("read secret %s/%s: %w", namespace, name, err)
	}
	return decodeSecret(kv)
}

func decodeSecret(kv *datastore.KeyValue) (*corev1.Secret, error) {
	obj, _, err := api.DecodeJSON(secrets, kv.Value, false)
	if err != nil {
		return nil, fmt.Errorf("stored secret %s: %w", kv.Key, err)
	}
	s, ok := obj.(*corev1.Secret)
	if !ok {
		return nil, fmt.Errorf("stored secret %s: decoded as %T", kv.Key, obj)
	}
	return s, nil
}

// newUID returns a random (version 4) UUID, as the API server gives objects.
func newUID() types.UID {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return types.UID(fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16]))
}
