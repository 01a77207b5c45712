//go:build !agentonly

package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/bramble-edge/bramble/agent"
	"github.com/bramble-edge/bramble/controllers/hpa"
	"github.com/bramble-edge/bramble/controllers/podgc"
	"github.com/bramble-edge/bramble/imageregistry"
	"github.com/bramble-edge/bramble/internal/servergc"
	"github.com/bramble-edge/bramble/scheduler"
	"github.com/bramble-edge/bramble/server"
	"github.com/bramble-edge/bramble/server/encryption"
	"github.com/bramble-edge/bramble/server/manifests"
	"github.com/bramble-edge/bramble/server/servicealloc"
)

func newServerCommand() *cobra.Command {
	var cfg server.Config
	var node agent.Config
	var configFile string
	cmd := &cobra.Command{
		Use:   "server",
		Short: "Run the bramble server: datastore, Kubernetes API, MQTT broker and an agent for this machine",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := applyConfigFile(cmd.Flags(), configFile, "server"); err != nil {
				return err
			}
			level, err := parseLevel(cfg.LogLevel)
			if err != nil {
				return err
			}
			cfg.Logger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
			return runServer(cmd.Context(), cfg, node)
		},
	}
	f := cmd.Flags()
	f.StringVar(&configFile, "config", agent.DefaultConfigFile, "config file of flag names to values (flags win)")
	addServerFlags(f, &cfg)
	addNodeFlags(f, &node)
	return cmd
}

func addServerFlags(f *pflag.FlagSet, cfg *server.Config) {
	f.StringVar(&cfg.DataDir, "data-dir", server.DefaultDataDir, "folder for the datastore, certificates and state (the embedded agent's is <data-dir>/agent)")
	f.StringVar(&cfg.BindAddress, "bind-address", "0.0.0.0", "address the API server listens on")
	f.IntVar(&cfg.HTTPSPort, "https-listen-port", server.DefaultHTTPSPort, "HTTPS port of the API server")
	f.StringSliceVar(&cfg.TLSSANs, "tls-san", nil, "extra DNS name or IP address for the serving certificate (repeatable)")
	f.StringVar(&cfg.WriteKubeconfig, "write-kubeconfig", server.DefaultKubeconfigPath, "where to write the admin kubeconfig")
	f.StringVar(&cfg.WriteKubeconfigMode, "write-kubeconfig-mode", "0600", "file mode of the admin kubeconfig, in octal")
	f.StringVar(&cfg.DatastoreEndpoint, "datastore-endpoint", "", "datastore to use (default: SQLite in <data-dir>/server/db/state.db)")
	f.DurationVar(&cfg.CompactInterval, "datastore-compact-interval", 5*time.Minute, "how often old datastore revisions are compacted")
	f.Int64Var(&cfg.CompactRetain, "datastore-compact-retain", 1000, "how many recent revisions compaction keeps readable")
	f.IntVar(&cfg.MQTTListenPort, "mqtt-listen-port", server.DefaultMQTTPort, "port of the embedded MQTT broker (TLS)")
	f.StringVar(&cfg.MQTTBroker, "mqtt-broker", "", "use this external broker (mqtts://HOST:PORT) instead of the embedded one")
	f.StringVar(&cfg.MQTTCA, "mqtt-ca", "", "with --mqtt-broker: CA certificate(s) of the external broker")
	f.StringVar(&cfg.MQTTCert, "mqtt-cert", "", "with --mqtt-broker: the server's client certificate")
	f.StringVar(&cfg.MQTTKey, "mqtt-key", "", "with --mqtt-broker: the server's client key")
	f.StringVar(&cfg.MosquittoACL, "mosquitto-acl", "", "with --mqtt-broker: mosquitto's ACL file, rewritten when nodes join or are deleted")
	f.StringVar(&cfg.MosquittoPID, "mosquitto-pid", "", "with --mosquitto-acl: mosquitto's pid file, signalled (SIGHUP) to reload the ACL")
	f.DurationVar(&cfg.HPASyncPeriod, "horizontal-pod-autoscaler-sync-period", hpa.DefaultSyncPeriod, "how often each HorizontalPodAutoscaler is looked at")
	f.IntVar(&cfg.TerminatedPodGCThreshold, "terminated-pod-gc-threshold", podgc.DefaultThreshold, "how many finished (Succeeded or Failed) pods to keep before the oldest are deleted (negative: keep all)")
	f.DurationVar(&cfg.NodeMonitorGracePeriod, "node-monitor-grace-period", 0, "how long a node may stay silent before it is NotReady (0: adapts to the number of nodes, 40s up to 100)")
	f.StringVar(&cfg.ServiceCIDR, "service-cidr", servicealloc.DefaultServiceCIDR, "IPv4 network Services' ClusterIPs come from (its first address is the kubernetes Service's)")
	f.StringVar(&cfg.ServiceNodePortRange, "service-node-port-range", servicealloc.DefaultNodePorts, "port range NodePort Services' node ports come from")
	addClusterNetworkFlags(f, cfg)
	f.BoolVar(&cfg.DisableAgent, "disable-agent", false, "do not run the embedded agent for this machine")
	f.StringVar(&cfg.MetricsToken, "metrics-token", "", "a bearer token (at least 16 characters) that may read /metrics and nothing else, for a Prometheus scraper")
	f.BoolVar(&cfg.DisableScheduler, "disable-scheduler", false, "do not run the scheduler (pods then need spec.nodeName)")
	f.BoolVar(&cfg.DisableControllers, "disable-controllers", false, "do not run the controllers (Deployments, ReplicaSets, DaemonSets, Jobs, Endpoints, EndpointSlices, node lifecycle, garbage collection)")
	f.BoolVar(&cfg.DisableManifests, "disable-manifests", false, "do not apply the YAML files of <data-dir>/server/manifests (docs/MANIFESTS.md)")
	f.BoolVar(&cfg.DisableSecretsEncryption, "disable-secrets-encryption", false, "start a new cluster with Secrets stored in plaintext (no effect once <data-dir>/server/cred/"+encryption.KeysFileName+" exists; see bramble secrets-encrypt)")
	f.DurationVar(&cfg.ManifestsInterval, "manifests-interval", manifests.DefaultInterval, "how often <data-dir>/server/manifests is read for changes")
	f.BoolVar(&cfg.LeaderElect, "leader-elect", false, "run the scheduler and the controllers only while holding the kube-system/bramble-server Lease (servers sharing one datastore)")
	f.StringVar(&cfg.LogLevel, "log-level", "info", "log level: debug, info, warn or error")
	f.DurationVar(&cfg.NodeCertValidity, "node-cert-validity", 0, "lifetime of node certificates (0: one year); for tests of renewal")
	_ = f.MarkHidden("node-cert-validity")
	f.DurationVar(&cfg.ServiceAccountMaxTokenExpiration, "service-account-max-token-expiration", 0, "longest life of a ServiceAccount token; longer requests are cut to it (0: 48h)")
	f.StringVar(&cfg.Audit.Path, "audit-log-path", "", "write the audit log (audit.k8s.io/v1 Event JSON lines) to this file; - is standard output (docs/AUDIT.md)")
	f.StringVar(&cfg.Audit.PolicyFile, "audit-policy-file", "", "audit.k8s.io/v1 Policy saying what to log at which level (default: Metadata for every request)")
	f.IntVar(&cfg.Audit.MaxAgeDays, "audit-log-maxage", 0, "days to keep rotated audit log files (0: no limit)")
	f.IntVar(&cfg.Audit.MaxBackups, "audit-log-maxbackup", 0, "rotated audit log files to keep (0: no limit)")
	f.IntVar(&cfg.Audit.MaxSizeMB, "audit-log-maxsize", 100, "megabytes an audit log file may reach before it is rotated")
}

// runServer runs the server and, unless --disable-agent, an agent for this
// machine that joins it with the default token over loopback, as a
// separate agent would. A failing agent stops the server too (a node
// without containerd should say so, not run half a cluster).
func runServer(ctx context.Context, cfg server.Config, node agent.Config) error {
	ctrl, err := controllersFor(cfg, node.NetworkBackend)
	if err != nil {
		return err
	}
	cfg.Controllers = ctrl
	cfg.ClusterDomain = node.ClusterDomain
	platforms, err := startImagePlatforms(ctx, node.RegistriesFile, cfg.Logger)
	if err != nil {
		return err
	}
	defer platforms.Stop()
	cfg.Scheduler.ImagePlatforms = platforms
	s, err := server.Start(ctx, cfg)
	if err != nil {
		return err
	}
	notifyReady(cfg.Logger, "serving "+s.URL)
	servergc.Tune(ctx, cfg.Logger)
	go startupPageRelease(cfg.Logger).run(ctx)
	agentErr := make(chan error, 1)
	actx, stopAgent := context.WithCancel(ctx)
	if !cfg.DisableAgent {
		node.ServerURL, node.Token, node.DataDir, node.Logger = s.URL, s.Token, cfg.DataDir, cfg.Logger.With("part", "agent")
		go func() { agentErr <- agent.Run(actx, node) }()
	}
	running := !cfg.DisableAgent
	select {
	case <-ctx.Done():
	case err = <-s.Wait():
		err = fmt.Errorf("serve %s: %w", s.URL, err)
	case err = <-agentErr:
		running = false
		if err == nil {
			err = errors.New("stopped")
		}
		err = fmt.Errorf("embedded agent (run with --disable-agent to go without one): %w", err)
	}
	stopAgent()
	if running {
		<-agentErr // the agent leaves its containers running for the next start
	}
	cfg.Logger.Info("shutting down")
	return errors.Join(err, s.Stop())
}

// The scheduler holds a pod back while its images' platforms are looked up.
var _ scheduler.PendingImagePlatforms = (*imageregistry.PlatformCache)(nil)

// startImagePlatforms starts the scheduler's registry lookups of image
// platforms, through the same registries file (mirrors, plain-HTTP
// endpoints, logins) as the embedded agent's pulls; it is read with or
// without --disable-agent.
func startImagePlatforms(ctx context.Context, registriesFile string, log *slog.Logger) (*imageregistry.PlatformCache, error) {
	regs, err := imageregistry.LoadConfig(registriesFile)
	if err != nil {
		return nil, fmt.Errorf("--registries: %w", err)
	}
	c, err := imageregistry.NewPlatformCache(imageregistry.PlatformCacheConfig{Registries: regs, Logger: log.With("part", "image-platforms")})
	if err != nil {
		return nil, fmt.Errorf("--registries %s: %w", registriesFile, err)
	}
	if err := c.Start(ctx); err != nil {
		return nil, err
	}
	return c, nil
}
