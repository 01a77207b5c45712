package serviceaccounts

import (
	"context"
	"log/slog"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/informer"
	"github.com/bramble-edge/bramble/server/registry"
)

// RootCAConfigMap is the ConfigMap every namespace gets with the cluster
// CA under RootCAKey, as upstream's root CA publisher makes it.
const (
	RootCAConfigMap = "kube-root-ca.crt"
	RootCAKey       = "ca.crt"
)

var (
	configMaps = api.MustLookup("", "v1", "configmaps")
	secrets    = api.MustLookup("", "v1", "secrets")
)

// LegacyTokens signs the token of a kubernetes.io/service-account-token
// Secret (server/satoken).
type LegacyTokens interface {
	IssueLegacy(ctx context.Context, sa *corev1.ServiceAccount, secret *corev1.Secret) (string, error)
	// LegacyStale: the token's signing key is retired (sign it again).
	LegacyStale(ctx context.Context, token string) bool
}

// ControllerConfig is what the controller needs besides the registry.
type ControllerConfig struct {
	Cache  *informer.Cache // required
	CAPEM  []byte          // the CA bundle pods trust for the API
	Tokens LegacyTokens    // nil: legacy token Secrets stay empty
	Log    *slog.Logger
}

// Controller keeps every namespace's default ServiceAccount and
// kube-root-ca.crt ConfigMap, making them again when deleted or changed,
// and fills in legacy ServiceAccount token Secrets. Its writes are
// idempotent, so every server may run it.
type Controller struct {
	reg *registry.Registry
	cfg ControllerConfig

	mu      sync.Mutex
	pending map[key]bool
	kick    chan struct{}
	wg      sync.WaitGroup
	cancel  context.CancelFunc
}

// key is one unit of work: a namespace (name "") or a Secret.
type key struct{ ns, secret string }

// NewController returns the controller; Start runs it.
func NewController(reg *registry.Registry, cfg ControllerConfig) *Controller {
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	return &Controller{reg: reg, cfg: cfg, pending: map[key]bool{}, kick: make(chan struct{}, 1)}
}

// Start registers the cache handlers and runs the worker until Stop.
func (c *Controller) Start(ctx context.Context) {
	ctx, c.cancel = context.WithCancel(ctx)
	nsOf := func(o api.Object) { c.enqueue(key{ns: o.GetNamespace()}) }
	c.cfg.Cache.Informer(namespaces).AddHandler(informer.Handler{
		OnAdd: func(o api.Object) { c.enqueue(key{ns: o.GetName()}) }})
	c.cfg.Cache.Informer(serviceAccounts).AddHandler(informer.Handler{OnDelete: nsOf})
	c.cfg.Cache.Informer(configMaps).AddHandler(informer.Handler{
		OnUpdate: func(_, o api.Object) { c.onConfigMap(o) }, OnDelete: c.onConfigMap})
	c.cfg.Cache.Informer(secrets).AddHandler(informer.Handler{
		OnAdd: c.onSecret, OnUpdate: func(_, o api.Object) { c.onSecret(o) }})
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		c.run(ctx)
	}()
}

// Stop ends the worker and waits for it.
func (c *Controller) Stop() {
	if c.cancel != nil {
		c.cancel()
	}
	c.wg.Wait()
}

func (c *Controller) onConfigMap(o api.Object) {
	if o.GetName() == RootCAConfigMap {
		c.enqueue(key{ns: o.GetNamespace()})
	}
}

// onSecret queues every legacy token Secret; the worker fills those that
// are empty or whose token's key is retired (seen when the server
// restarts with a new key).
func (c *Controller) onSecret(o api.Object) {
	if s := o.(*corev1.Secret); s.Type == corev1.SecretTypeServiceAccountToken {
		c.enqueue(key{ns: s.Namespace, secret: s.Name})
	}
}

func (c *Controller) needsToken(ctx context.Context, s *corev1.Secret) bool {
	if s.Type != corev1.SecretTypeServiceAccountToken || c.cfg.Tokens == nil {
		return false
	}
	tok := s.Data[corev1.ServiceAccountTokenKey]
	return len(tok) == 0 || c.cfg.Tokens.LegacyStale(ctx, string(tok))
}

func (c *Controller) enqueue(k key) {
	c.mu.Lock()
	c.pending[k] = true
	c.mu.Unlock()
	select {
	case c.kick <- struct{}{}:
	default:
	}
}

// run syncs the pending keys; failed ones are tried again after a second.
func (c *Controller) run(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-c.kick:
		case <-time.After(time.Second):
		}
		c.mu.Lock()
		work := c.pending
		c.pending = map[key]bool{}
		c.mu.Unlock()
		for k := range work {
			if err := c.sync(ctx, k); err != nil && ctx.Err() == nil {
				c.cfg.Log.Warn("service account sync", "namespace", k.ns, "secret", k.secret, "err", err)
				c.mu.Lock()
				c.pending[k] = true
				c.mu.Unlock()
			}
		}
	}
}
