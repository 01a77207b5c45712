// Package minicluster runs `bramble server` in the test process, through
// server.Start (the same assembly `bramble server` runs), on loopback
// ports with tunable parts, for hollow-agent tests and benchmarks that
// need the server's store and API at hand.
package minicluster

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"strconv"

	"github.com/bramble-edge/bramble/controllers"
	"github.com/bramble-edge/bramble/controllers/manager"
	"github.com/bramble-edge/bramble/datastore"
	"github.com/bramble-edge/bramble/internal/porttest"
	"github.com/bramble-edge/bramble/internal/servergc"
	"github.com/bramble-edge/bramble/mqtt/broker"
	"github.com/bramble-edge/bramble/server"
	"github.com/bramble-edge/bramble/server/nodestatus"
	"github.com/bramble-edge/bramble/server/pki"
	"github.com/bramble-edge/bramble/server/publish"
	"github.com/bramble-edge/bramble/server/registry"
)

// Config says where the cluster keeps its data and how its parts are
// tuned. Dir is required.
type Config struct {
	Dir        string
	Logger     *slog.Logger
	NodeStatus nodestatus.Config // Bus, Store and Writer are filled in
	Publish    publish.Config    // Store, Bus and Logger are filled in
	// DisableScheduler starts the server without its scheduler; call
	// StartScheduler when the pods are pending.
	DisableScheduler bool
	// Controllers runs the control loops (Deployments, ReplicaSets, ...)
	// as `bramble server` does.
	Controllers bool
}

// Cluster is a running in-process server.
type Cluster struct {
	URL        string // https://127.0.0.1:port of the API
	MQTTURL    string // mqtts://127.0.0.1:port of the broker
	Token      string // the default join token
	Kubeconfig string // an admin kubeconfig for the API
	Store      datastore.Store
	Client     *registry.Client // the registry, for in-process writes
	PKI        *pki.PKI
	Broker     *broker.Broker
	Monitor    *nodestatus.Monitor
	Pub        *publish.Publisher

	srv      *server.Server
	stopTune context.CancelFunc
}

// Start brings the server up on free loopback ports.
func Start(ctx context.Context, cfg Config) (*Cluster, error) {
	if cfg.Dir == "" {
		return nil, errors.New("minicluster: Dir is required")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	apiPort, err := porttest.Pick()
	if err != nil {
		return nil, err
	}
	mqttPort, err := porttest.Pick()
	if err != nil {
		return nil, err
	}
	var controllers server.NewControllers
	if cfg.Controllers {
		controllers = startControllers
	}
	s, err := server.Start(ctx, server.Config{Controllers: controllers, DataDir: cfg.Dir, BindAddress: "127.0.0.1", HTTPSPort: apiPort,
		MQTTListenPort: mqttPort, WriteKubeconfig: filepath.Join(cfg.Dir, "kubeconfig.yaml"), DisableAgent: true,
		NodeStatus: cfg.NodeStatus, Publish: cfg.Publish, Logger: cfg.Logger, DisableScheduler: cfg.DisableScheduler})
	if err != nil {
		return nil, fmt.Errorf("minicluster: %w", err)
	}
	// The collector policy `bramble server` applies, so that the figures
	// are the server's as it runs (GOGC in the environment still wins).
	tctx, stopTune := context.WithCancel(context.Background())
	servergc.Tune(tctx, cfg.Logger)
	return &Cluster{URL: s.URL, MQTTURL: "mqtts://127.0.0.1:" + strconv.Itoa(mqttPort), Token: s.Token,
		Kubeconfig: s.Kubeconfig, Store: s.Store, Client: s.Client, PKI: s.PKI, Broker: s.Broker, Monitor: s.Monitor,
		Pub: s.Publisher, srv: s, stopTune: stopTune}, nil
}

func startControllers(d controllers.Deps) (server.ControllerSet, error) { return manager.New(d) }

// StartScheduler starts the scheduler of a cluster started without it.
func (c *Cluster) StartScheduler() error { return c.srv.StartScheduler() }

// Stop shuts the server down.
func (c *Cluster) Stop() {
	_ = c.srv.Stop()
	c.stopTune()
}
