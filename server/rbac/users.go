package rbac

import (
	"context"
	"log/slog"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/controllers"
	"github.com/bramble-edge/bramble/informer"
	"github.com/bramble-edge/bramble/server/auth"
)

// UserBindingPrefix starts the name of the ClusterRoleBinding that gives a
// bramble user (`bramble user create NAME --role R`) its ClusterRole:
// bramble-user:NAME, labelled auth.UserLabel=NAME.
const UserBindingPrefix = auth.UserBindingPrefix

var (
	secretsRes             = api.MustLookup("", "v1", "secrets")
	clusterRoleBindingsRes = api.MustLookup(rbacv1.GroupName, "v1", "clusterrolebindings")
)

// BindingWriter is what UserBindings writes through (the registry client).
type BindingWriter interface {
	Create(ctx context.Context, obj api.Object) (api.Object, error)
	Get(ctx context.Context, res *api.Resource, namespace, name string) (api.Object, error)
	Delete(ctx context.Context, res *api.Resource, namespace, name string, o controllers.DeleteOptions) error
}

// UserBindings keeps one ClusterRoleBinding per bramble user: admin users
// are bound to cluster-admin, viewers to view, others to the ClusterRole
// they name. Users made before RBAC was enforced get theirs when the
// server starts (the informer replays every user Secret); a deleted
// user's binding is deleted.
type UserBindings struct {
	secrets *informer.Informer
	client  BindingWriter
	log     *slog.Logger

	mu      sync.Mutex
	pending map[string]bool
	wake    chan struct{}
}

// NewUserBindings follows the Secrets informer of cache.
func NewUserBindings(cache *informer.Cache, client BindingWriter, log *slog.Logger) *UserBindings {
	u := &UserBindings{secrets: cache.Informer(secretsRes), client: client, log: log,
		pending: map[string]bool{}, wake: make(chan struct{}, 1)}
	u.secrets.AddHandler(informer.Handler{OnAdd: u.enqueue, OnUpdate: func(_, cur api.Object) { u.enqueue(cur) }, OnDelete: u.enqueue})
	return u
}

func (u *UserBindings) enqueue(obj api.Object) {
	s, ok := obj.(*corev1.Secret)
	if !ok || s.Namespace != auth.UserNamespace || s.Type != auth.UserSecretType || s.Labels[auth.UserLabel] == "" {
		return
	}
	u.add(s.Labels[auth.UserLabel])
}

func (u *UserBindings) add(user string) {
	u.mu.Lock()
	u.pending[user] = true
	u.mu.Unlock()
	select {
	case u.wake <- struct{}{}:
	default:
	}
}

// Run syncs the queued users until ctx ends; a failed sync is retried
// after a second.
func (u *UserBindings) Run(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-u.wake:
		}
		u.mu.Lock()
		users := u.pending
		u.pending = map[string]bool{}
		u.mu.Unlock()
		for user := range users {
			if err := u.sync(ctx, user); err != nil && ctx.Err() == nil {
				u.log.Warn("user cluster role binding", "user", user, "err", err)
				time.AfterFunc(time.Second, func() { u.add(user) })
			}
		}
	}
}
