package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"path/filepath"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/datastore"
	"github.com/bramble-edge/bramble/datastore/listwatch"
	"github.com/bramble-edge/bramble/informer"
	"github.com/bramble-edge/bramble/mqtt"
	"github.com/bramble-edge/bramble/scheduler"
	"github.com/bramble-edge/bramble/server/admission"
	"github.com/bramble-edge/bramble/server/apiserver"
	"github.com/bramble-edge/bramble/server/auth"
	"github.com/bramble-edge/bramble/server/bootstrap"
	"github.com/bramble-edge/bramble/server/certificates"
	"github.com/bramble-edge/bramble/server/encryption"
	"github.com/bramble-edge/bramble/server/join"
	"github.com/bramble-edge/bramble/server/logs"
	"github.com/bramble-edge/bramble/server/nodestatus"
	"github.com/bramble-edge/bramble/server/publish"
	"github.com/bramble-edge/bramble/server/rbac"
	"github.com/bramble-edge/bramble/server/registry"
	"github.com/bramble-edge/bramble/server/streams"
)

// assemble wires the parts that run on the datastore: node certificate
// revocation, the MQTT side (embedded broker or external Bus), the REST
// API, node status, the publisher and the join endpoints (served before
// authentication: the token in the body is the credential). Each part's
// stop is queued on s.stops; bg ends with Stop.
func (s *Server) assemble(bg context.Context, cfg Config) (http.Handler, error) {
	side := &mqttSide{}
	revStore := datastore.Store(s.Store) // what certificate revocation follows
	if cfg.WrapStore != nil {
		revStore = cfg.WrapStore(revStore)
	}
	certs, err := s.startNodeCerts(bg, cfg, revStore, side)
	if err != nil {
		return nil, err
	}
	viewerCreds, err := s.startViewerRecords(bg, revStore, side)
	if err != nil {
		return nil, err
	}
	if err := side.start(bg, cfg, s.log, s.PKI, certs.Check); err != nil {
		return nil, err
	}
	s.stops = append(s.stops, side.close)
	s.Broker = side.broker.Load()
	saTokens, err := s.serviceAccountTokens(bg, cfg)
	if err != nil {
		return nil, err
	}
	authn := auth.NewAuthenticator(s.PKI.CAPool(), auth.NewSecretTokenLookup(secretLister(s.Store), auth.SecretTokenLookupConfig{}),
		auth.WithNodeCertCheck(certs.Check), auth.WithViewerCertCheck(viewerCreds.Check), auth.WithServiceAccountTokens(saTokens))
	s.startCache(bg)
	if s.Registry, err = registry.New(bg, registry.Config{Store: s.Store, Cache: s.Cache, Log: s.log}); err != nil {
		return nil, err
	}
	if err := s.useAdmission(bg, cfg); err != nil {
		return nil, err
	}
	// Quotas come last (InstallPolicy orders its own plugins so), so they
	// count what allocation and defaulting set.
	if err := admission.InstallPolicy(bg, s.Registry); err != nil {
		return nil, err
	}
	s.Registry.Use(&certificates.Admission{Now: s.Registry.Now})
	s.Client = s.Registry.Client()
	authz := rbac.New(rbac.NewIndex(), auth.NewNodeAuthorizer(apiserver.NewNodeGraph(s.Store, s.Cache)))
	authz.Follow(s.Cache)
	s.startRBAC(bg, authz)
	streamer := logs.New(side.bus, s.log)
	if s.API, err = apiserver.NewAPI(bg, apiserver.APIConfig{Registry: s.Registry, Authn: authn,
		Authz: authz, Logs: streamer, NodeMetrics: streamer, MetricsToken: cfg.MetricsToken, Streams: streams.New(side.bus, s.log), Log: s.log, Tokens: saTokens}); err != nil {
		return nil, err
	}
	s.startServiceAccountController(bg, saTokens)
	s.bootstrapObjects(bg)
	s.startDiskHealth(bg)
	revoker := join.NewNodeRevoker(revStore, certs, listwatch.Config{Logger: s.log}).WithPasswords(join.NewNodePasswords(s.Client, certs))
	if err := revoker.Start(bg); err != nil {
		return nil, fmt.Errorf("node certificate revocation: %w", err)
	}
	s.stops = append(s.stops, revoker.Stop)
	if err := s.startMQTTParts(bg, cfg, side); err != nil {
		return nil, err
	}
	s.bg, s.schedCfg, s.newControllers = bg, cfg.Scheduler, cfg.Controllers
	if err := s.startLeading(bg, cfg); err != nil {
		return nil, err
	}
	return s.joinAndAPI(bg, cfg, certs, side, s.Publisher.ViewHandler(auditedAuthn{authn}, authz), s.secretsHandler(bg, authn, authz))
}

// startCache starts the process's one decoded-object cache, with an
// informer for every built-in kind, fed by one list and one watch of the
// registry; it syncs in the background (its readers wait for it or read
// the datastore meanwhile).
func (s *Server) startCache(bg context.Context) {
	s.Cache = informer.New(s.Store, informer.Config{Logger: s.log.With("component", "cache")})
	for _, res := range api.All() {
		if !res.StorageVersion() {
			continue // its storage version's informer holds its objects
		}
		s.Cache.Informer(res)
	}
	s.Cache.Start(bg)
	s.stops = append(s.stops, s.Cache.Stop)
}

// StartScheduler runs the scheduler on the datastore, binding through the
// API's admission path. Start does it unless --disable-scheduler (or,
// with --leader-elect, while this server holds the lease); benchmarks call
// it later, once their pods are pending.
func (s *Server) StartScheduler() error {
	if s.Scheduler != nil {
		return errors.New("scheduler: already running")
	}
	sched, err := s.startScheduler(s.bg)
	if err != nil {
		return err
	}
	s.Scheduler = sched
	s.stops = append(s.stops, sched.Stop)
	return nil
}

func (s *Server) startScheduler(ctx context.Context) (*scheduler.Scheduler, error) {
	scfg := s.schedCfg
	scfg.Store, scfg.Cache, scfg.Binder = s.Store, s.Cache, &schedulerBinder{reg: s.Registry}
	if s.Cache != nil {
		scfg.Preemptor = &schedulerPreemptor{reg: s.Registry, pdbs: s.Cache.Informer(pdbsResource)}
	}
	scfg.Logger = s.log.With("component", "scheduler")
	sched, err := scheduler.New(scfg)
	if err != nil {
		return nil, fmt.Errorf("scheduler: %w", err)
	}
	if err := sched.Start(ctx); err != nil {
		return nil, fmt.Errorf("scheduler: %w", err)
	}
	return sched, nil
}

// The registry takes over the pod node status makes for each status write.
var _ nodestatus.NewStatusWriter = (*registry.Client)(nil)

// startMQTTParts starts node status and the publisher on the Bus.
func (s *Server) startMQTTParts(bg context.Context, cfg Config, side *mqttSide) error {
	ncfg := cfg.NodeStatus
	ncfg.Bus, ncfg.Store, ncfg.Writer, ncfg.Logger = side.bus, s.Store, s.Client, s.log
	if ncfg.Pods == nil {
		ncfg.Pods = s.Cache.Informer(api.MustLookup("", "v1", "pods"))
	}
	if ncfg.GracePeriod == 0 {
		ncfg.GracePeriod = cfg.NodeMonitorGracePeriod
	}
	var err error
	if s.Monitor, err = nodestatus.New(ncfg); err != nil {
		return fmt.Errorf("node status: %w", err)
	}
	if err := s.Monitor.Start(bg); err != nil {
		return fmt.Errorf("node status: %w", err)
	}
	s.stops = append(s.stops, s.Monitor.Stop)
	s.usage = &monitorUsage{m: s.Monitor}
	s.API.SetUsageSource(s.usage)
	if err := s.startNodeEvents(bg, side.bus); err != nil {
		return err
	}
	pcfg := cfg.Publish
	pcfg.Store, pcfg.Bus, pcfg.Logger = s.Store, side.bus, s.log
	if pcfg.Pods == nil {
		pcfg.Pods = publish.CachePods(s.Cache)
	}
	s.Publisher = publish.New(pcfg)
	if err := s.Publisher.Start(bg); err != nil {
		return fmt.Errorf("mqtt publisher: %w", err)
	}
	s.stops = append(s.stops, s.Publisher.Stop)
	return nil
}

// joinAndAPI makes sure the default join token exists and routes the join
// endpoints, the nodes' relist (views) and secrets-encrypt beside the API.
func (s *Server) joinAndAPI(bg context.Context, cfg Config, certs *join.NodeCertRegistry, side *mqttSide, views, secrets http.Handler) (http.Handler, error) {
	tokens := join.NewTokenStore(s.Store, s.Client, join.TokenStoreConfig{Logger: s.log})
	var err error
	if s.Token, err = join.EnsureDefaultToken(bg, tokens, s.PKI, cfg.DataDir); err != nil {
		return nil, fmt.Errorf("default join token: %w", err)
	}
	jh, err := join.Handler(join.HandlerConfig{Tokens: tokens, CA: s.PKI, Certs: certs,
		Passwords: join.NewNodePasswords(s.Client, certs), Logger: s.log,
		MQTTAddresses: func() []string { return side.addrs }, CertValidity: cfg.NodeCertValidity})
	if err != nil {
		return nil, err
	}
	rh, err := join.RenewHandler(join.RenewConfig{CA: s.PKI, Certs: certs, Logger: s.log,
		MQTTAddresses: func() []string { return side.addrs }, CertValidity: cfg.NodeCertValidity})
	if err != nil {
		return nil, err
	}
	bh, err := join.BundleHandler(join.BundleConfig{CA: s.PKI, Certs: certs, Logger: s.log,
		ReportFile: filepath.Join(cfg.serverDir(), "tls", join.BundleReportFile)})
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	mux.Handle(join.CABundlePath, bh)
	for _, p := range join.Paths {
		mux.Handle(p, jh)
	}
	mux.Handle(join.RenewPath, rh)
	mux.Handle(mqtt.ViewPrefix, views)
	mux.Handle(encryption.PathPrefix, secrets)
	mux.Handle("/", s.API)
	return s.withAudit(cfg.Audit, mux)
}

// bootstrapObjects makes, in the background, the objects every cluster
// has: upstream's default ClusterRoles, and an APIService per group
// version served here, kept in step with the kinds served; and starts the
// signer of approved kube-apiserver-client certificate requests.
func (s *Server) bootstrapObjects(bg context.Context) {
	bootstrap.Start(bg, s.Registry, s.log.With("component", "bootstrap"))
	signer := &certificates.Signer{CA: s.PKI, Client: s.Client, Cache: s.Cache, Log: s.log.With("component", "csr-signer")}
	signer.Start(bg)
	s.stops = append(s.stops, signer.Stop)
}
