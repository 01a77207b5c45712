// Package agent assembles bramble's node agent: it joins the cluster once,
// keeps the node's desired pods in a local store, runs them through
// agent/pods on containerd, reports node heartbeats and pod status over
// MQTT, imports airgap image tarballs and runs static pods. Pods keep
// running, and come back after a restart, while the server is unreachable.
package agent

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/bramble-edge/bramble/agent/events"
	"github.com/bramble-edge/bramble/agent/eviction"
	agentlogs "github.com/bramble-edge/bramble/agent/logs"
	"github.com/bramble-edge/bramble/agent/nodeinfo"
	"github.com/bramble-edge/bramble/agent/nodemetrics"
	"github.com/bramble-edge/bramble/agent/pods"
	"github.com/bramble-edge/bramble/agent/runtime"
	"github.com/bramble-edge/bramble/imageregistry"
	"github.com/bramble-edge/bramble/join"
	"github.com/bramble-edge/bramble/mqtt/client"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
)

// Folders under <data-dir>/agent.
const (
	StateDir        = "state"
	ImagesDir       = "images"
	PodManifestsDir = "pod-manifests"
)

// agent is one running agent's parts.
type agent struct {
	cfg     *Config
	node    nodeinfo.Config
	rt      *runtime.Containerd
	store   *Store
	manager *pods.Manager
	finish  *finisher              // finish.go
	metrics *nodemetrics.Collector // the node proxy's /metrics and /metrics/cadvisor
	applier *Applier
	status  *statusBatch
	events  *events.Recorder
	images  *imageDir
	static  *staticPods
	net     *network     // overlay routes; nil: --network-backend none
	network *nodeNetwork // pod sandboxes
	tokens  *podTokens   // serviceAccountToken projections
	dns     *clusterDNS  // nil: --disable-cluster-dns or no overlay
	policy  *netPolicy   // NetworkPolicy; nil without the overlay
	wg      sync.WaitGroup
}

// Run runs the agent until ctx ends. The pods run from the local store
// before anything is dialled; then the agent joins (first start only) and
// connects to MQTT. A join that fails because of the token returns at once.
func Run(ctx context.Context, cfg Config) error {
	if err := cfg.setDefaults(); err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	a, err := start(ctx, &cfg)
	if err != nil {
		return err
	}
	defer a.stop(cancel)
	creds, err := credentials(ctx, &cfg)
	if err != nil {
		return err
	}
	if cfg.OnRunning != nil {
		cfg.OnRunning(creds.NodeName)
	}
	// kubectl logs arrive as requests on the node's rpc topic; the handler
	// streams the pods' log files back (the server never dials the agent).
	logRPC := agentlogs.NewHandler(agentlogs.Config{PodLogDir: cfg.PodLogDir, Node: a.node.NodeName, Logger: cfg.Logger,
		Metrics: a.metrics.Gather})
	defer logRPC.Close()
	ren, clock, err := certUpkeep(&cfg, creds)
	if err != nil {
		return err
	}
	streamRPC := a.streamHandler(ren, creds.ServerURL)
	defer streamRPC.Close()
	cl, err := client.Connect(ctx, client.Config{Credentials: creds, Certs: ren.src, Roots: ren.roots, Applier: a.applier,
		Rev: a.store.Rev(), Logger: cfg.Logger, OnConnect: func() { a.status.resend(); a.finish.poke() },
		OnRPC: func(c *client.Client, topic string, payload []byte) {
			logRPC.Handle(c, topic, payload)
			streamRPC.Handle(topic, payload)
		}})
	if err != nil {
		return fmt.Errorf("mqtt: %w", err)
	}
	defer cl.Close()
	a.status.setPublisher(cl)
	a.goRun(func() { a.events.Run(ctx, cl) })
	a.goRun(func() { a.finish.run(ctx) })
	ren.onNew = cl.CertificateRenewed
	a.goRun(func() { ren.watchBundle(ctx, cfg.CABundleInterval) })
	a.goRun(func() { clock.run(ctx) })
	a.goRun(func() { ren.run(ctx) })
	ready := &readyWatch{rec: a.events, node: a.node.NodeName}
	a.goRun(func() { a.network.follow(ctx, ren.http, creds.ServerURL, creds.NodeName) })
	a.tokens.connect(ren.http, creds.ServerURL)
	a.goRun(func() { heartbeats(ctx, cl, a.node, cfg.HeartbeatInterval, cfg.Logger, a.usage(), ready.see) })
	cfg.Logger.Info("agent running", "node", a.node.NodeName, "rev", a.store.Rev())
	<-ctx.Done()
	return nil
}

// start brings up everything that needs no server: the runtime, the local
// store, the pod manager with the stored and static pods, image imports.
func start(ctx context.Context, cfg *Config) (*agent, error) {
	if err := resolveNodeName(cfg); err != nil {
		return nil, err
	}
	regs, err := imageregistry.LoadConfig(cfg.RegistriesFile)
	if err != nil {
		return nil, fmt.Errorf("--registries: %w", err)
	}
	rt, err := runtime.NewContainerd(ctx, runtime.ContainerdConfig{Address: cfg.RuntimeEndpoint,
		Namespace: cfg.ContainerdNamespace, Registries: regs, Logger: cfg.Logger})
	if err != nil {
		return nil, fmt.Errorf("--container-runtime-endpoint %s: %w", cfg.RuntimeEndpoint, err)
	}
	a := &agent{cfg: cfg, rt: rt}
	if err := a.build(ctx); err != nil {
		rt.Close()
		return nil, err
	}
	if err := noteBoot(a.events, cfg.AgentDir(), a.node.NodeName); err != nil {
		cfg.Logger.Warn("reboot not checked", "err", err) // the agent runs on without the Rebooted event
	}
	a.images.scan(ctx)
	if a.policy != nil { // from the store, before the pod workers start
		a.goRun(func() { a.policy.start(ctx) })
	}
	a.manager.Start(ctx)
	a.syncStatic()
	a.goRun(func() { a.status.run(ctx) })
	a.goRun(func() { a.images.watch(ctx, cfg.ImagePoll) })
	a.goRun(func() { a.watchStatic(ctx) })
	gcTold := gcEvents(a.events, a.node.NodeName)
	a.goRun(func() { runImageGC(ctx, cfg.ImageGC, a.rt, a.applier.WantedImages, cfg.Logger, gcTold) })
	evictor := eviction.New(a.manager, eviction.Config{DataDir: cfg.DataDir, Thresholds: a.node.Thresholds,
		Exempt: func(p *corev1.Pod) bool { return isStaticUID(p.UID) }, Logger: cfg.Logger,
		ReclaimDisk: func(ctx context.Context) { reclaimImages(ctx, cfg.ImageGC, a.rt, a.applier.WantedImages, cfg.Logger) }})
	a.goRun(func() { evictor.Run(ctx) })
	if a.net != nil {
		a.goRun(func() { a.net.run(ctx) })
	}
	if a.dns != nil {
		a.goRun(func() { a.dns.run(ctx) })
	}
	return a, nil
}

func (a *agent) build(ctx context.Context) error {
	cfg := a.cfg
	node, err := nodeConfig(ctx, cfg, a.rt)
	if err != nil {
		return err
	}
	a.node = node
	if a.store, err = OpenStore(filepath.Join(cfg.AgentDir(), StateDir)); err != nil {
		return err
	}
	a.status = newStatusBatch(node.NodeName, 200*time.Millisecond, isStaticUID, cfg.Logger)
	a.events = events.New(node.NodeName, events.Config{Logger: cfg.Logger})
	if a.network, err = newNodeNetwork(cfg); err != nil {
		return fmt.Errorf("pod network: %w", err)
	}
	a.tokens = newPodTokens()
	a.metrics = nodemetrics.New(nodemetrics.Config{DataDir: cfg.DataDir, Namespace: cfg.ContainerdNamespace,
		Alive: func(uid types.UID) bool { return a.manager != nil && a.manager.Runs(uid) }})
	onStatus := func(pod *corev1.Pod, st corev1.PodStatus) { a.metrics.OnStatus(pod, st); a.status.OnStatus(pod, st) }
	a.manager, err = pods.NewManager(a.rt, a.store.Lookup, onStatus, pods.Config{Tokens: a.tokens,
		DataDir: cfg.DataDir, NodeName: node.NodeName, NodeIP: node.NodeIP, Logger: cfg.Logger,
		PodLogDir: cfg.PodLogDir, ContainerLogDir: cfg.ContainerLogDir, Network: a.network.sb,
		Events: podEvents{rec: a.events, static: isStaticUID}, Services: storeServiceEnv(a.store, cfg.Logger),
		ServicesSynced: storeServicesSynced(a.store, func() bool { return a.net != nil }),
		Claims:         a.store.Claim, RefuseEphemeral: cfg.DisableExec, OnFinished: a.status.OnFinished})
	if err != nil {
		return fmt.Errorf("pod manager: %w", err)
	}
	a.status.alive = a.manager.Runs
	a.finish = &finisher{node: node.NodeName, pods: storePods(a.store, cfg.Logger), runs: a.manager.Runs, rt: a.rt,
		finish: a.status.OnFinished, log: cfg.Logger, kick: make(chan struct{}, 1)}
	a.applier = NewApplier(a.store, a.manager)
	a.applier.SetHeldBack(func(pod *corev1.Pod, err error) { a.status.OnStatus(pod, heldBackStatus(err)) })
	if a.net, err = newNetwork(cfg, node.NodeName, node.NodeIP, a.store); err != nil {
		return err
	}
	a.dns = newClusterDNS(cfg, a.store, a.net != nil)
	local, err := newLocalStorage(cfg.LocalStoragePath, node.NodeName, cfg.Logger)
	if err != nil {
		return err
	}
	a.applier.SetOnVolumesGone(local.volumesGone)
	a.node.Annotations = local.annotations()
	if a.net != nil {
		maps.Copy(a.node.Annotations, a.net.annotations())
		a.applier.SetOnNodes(a.net.changed)
		a.policy = newNetPolicy(a.store, a.network.sb, a.net.nodeIP, cfg.Logger)
		a.applier.SetOnPolicy(a.policy.enf.Changed)
		a.network.sb.SetOnChange(a.policy.enf.Changed)
	}
	a.images = newImageDir(filepath.Join(cfg.AgentDir(), ImagesDir), filepath.Join(cfg.AgentDir(), "images-imported.json"), a.rt, cfg.Logger)
	a.static = &staticPods{dir: filepath.Join(cfg.AgentDir(), PodManifestsDir), node: node.NodeName}
	for _, d := range []string{ImagesDir, PodManifestsDir} {
		if err := os.MkdirAll(filepath.Join(cfg.AgentDir(), d), 0o700); err != nil {
			return err
		}
	}
	return nil
}

// stop ends the background work and the pod workers; containers keep
// running for the next start to adopt.
func (a *agent) stop(cancel context.CancelFunc) {
	cancel()
	a.wg.Wait()
	a.manager.Stop()
	a.rt.Close()
	a.store.Close()
}

func (a *agent) goRun(f func()) {
	a.wg.Add(1)
	go func() {
		defer a.wg.Done()
		f()
	}()
}

// resolveNodeName takes the node name from the saved credentials, else
// --node-name, else the hostname.
func resolveNodeName(cfg *Config) error {
	if creds, err := join.LoadCredentials(cfg.AgentDir()); err == nil {
		if cfg.NodeName != "" && cfg.NodeName != creds.NodeName {
			return fmt.Errorf("--node-name: got %q, but %s joined as %q (remove it to join again)",
				cfg.NodeName, cfg.AgentDir(), creds.NodeName)
		}
		cfg.NodeName = creds.NodeName
	} else if !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("load credentials: %w", err)
	}
	if cfg.NodeName == "" {
		host, err := os.Hostname()
		if err != nil {
			return fmt.Errorf("--node-name not given and no hostname: %w", err)
		}
		cfg.NodeName = strings.ToLower(host)
	}
	if err := join.ValidateNodeName(cfg.NodeName); err != nil {
		return fmt.Errorf("--node-name: %w", err)
	}
	return nil
}

// nodeConfig parses the node flags and settles the node's IP (an address
// of the default route's interface when --node-ip is not given).
func nodeConfig(ctx context.Context, cfg *Config, rt *runtime.Containerd) (nodeinfo.Config, error) {
	labels, err := nodeinfo.ParseLabels(cfg.NodeLabels)
	if err != nil {
		return nodeinfo.Config{}, fmt.Errorf("--node-label: %w", err)
	}
	taints, err := nodeinfo.ParseTaints(cfg.NodeTaints)
	if err != nil {
		return nodeinfo.Config{}, fmt.Errorf("--node-taint: %w", err)
	}
	reserved, err := nodeinfo.ParseReserved(cfg.SystemReserved)
	if err != nil {
		return nodeinfo.Config{}, fmt.Errorf("--system-reserved: %w", err)
	}
	th, err := nodeinfo.ParseEvictionHard(cfg.EvictionHard)
	if err != nil {
		return nodeinfo.Config{}, err
	}
	nc := nodeinfo.Config{NodeName: cfg.NodeName, NodeIP: cfg.NodeIP, NodeExternalIP: cfg.NodeExternalIP, SystemReserved: reserved,
		DataDir: cfg.DataDir, Labels: labels, Taints: taints, Runtime: rt, Thresholds: th}
	if nc.NodeIP == "" {
		n, err := nodeinfo.Collect(ctx, nc)
		if err != nil {
			return nodeinfo.Config{}, fmt.Errorf("node status: %w", err)
		}
		for _, addr := range n.Status.Addresses {
			if addr.Type == corev1.NodeInternalIP {
				nc.NodeIP = addr.Address
				break
			}
		}
	}
	return nc, nil
}
