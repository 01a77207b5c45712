package main

import (
	"fmt"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/bramble-edge/bramble/agent"
)

func newAgentCommand() *cobra.Command {
	var cfg agent.Config
	var configFile, logLevel string
	cmd := &cobra.Command{
		Use:   "agent",
		Short: "Run the bramble agent: join a server and run this node's pods on containerd",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := applyAgentEnv(cmd.Flags()); err != nil {
				return err
			}
			if err := applyConfigFile(cmd.Flags(), configFile, "agent"); err != nil {
				return err
			}
			level, err := parseLevel(logLevel)
			if err != nil {
				return err
			}
			cfg.Logger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
			cfg.OnRunning = func(node string) { notifyReady(cfg.Logger, "joined as node "+node) }
			tuneAgentMemory()
			go startupPageRelease(cfg.Logger).run(cmd.Context())
			return agent.Run(cmd.Context(), cfg)
		},
	}
	f := cmd.Flags()
	f.StringVar(&configFile, "config", agent.DefaultConfigFile, "config file of flag names to values (flags win)")
	f.StringVar(&cfg.ServerURL, "server", "", "server to join, https://HOST:6443 (env BRAMBLE_URL); only needed for the first start")
	f.StringVar(&cfg.Token, "token", "", "join token (env BRAMBLE_TOKEN); only needed for the first start")
	f.StringVar(&cfg.DataDir, "data-dir", agent.DefaultDataDir, "folder for state; the agent's is <data-dir>/agent")
	addNodeFlags(f, &cfg)
	f.StringVar(&logLevel, "log-level", "info", "log level: debug, info, warn or error")
	return cmd
}

// addNodeFlags adds the flags of the node an agent runs: `bramble agent`
// and `bramble server` (for its embedded agent) share them.
func addNodeFlags(f *pflag.FlagSet, cfg *agent.Config) {
	f.StringVar(&cfg.NodeName, "node-name", "", "node name (default: the hostname, lower-cased)")
	f.StringVar(&cfg.NodeIP, "node-ip", "", "node IP address (default: an address of the default route's interface)")
	f.StringVar(&cfg.NodeExternalIP, "node-external-ip", "", "node external IP address, reported as the Node's ExternalIP")
	f.StringArrayVar(&cfg.NodeLabels, "node-label", nil, "label key=value to register the node with (repeatable)")
	f.StringArrayVar(&cfg.NodeTaints, "node-taint", nil, "taint key=value:Effect to register the node with (repeatable)")
	f.StringVar(&cfg.SystemReserved, "system-reserved", "", "resources kept for the system, e.g. cpu=250m,memory=256Mi")
	f.StringVar(&cfg.EvictionHard, "eviction-hard", "", "pressure thresholds below which pods are evicted, as the kubelet's, e.g. memory.available<100Mi,nodefs.available<10% (those left out keep these defaults; nodefs.inodesFree<5%, pid.available<5%)")
	f.StringVar(&cfg.ContainerdNamespace, "containerd-namespace", agent.DefaultNamespace, "containerd namespace of this agent's images and containers")
	f.StringVar(&cfg.RuntimeEndpoint, "container-runtime-endpoint", agent.DefaultRuntimeEndpoint, "containerd socket")
	f.StringVar(&cfg.RegistriesFile, "registries", agent.DefaultRegistriesFile, "registries file: mirrors, plain-HTTP endpoints and credentials (k3s registries.yaml format)")
	f.StringVar(&cfg.ContainerdRoot, "containerd-root", agent.DefaultContainerdRoot, "containerd's root folder, whose filesystem image garbage collection watches")
	f.BoolVar(&cfg.DisableExec, "disable-exec", false, "refuse kubectl exec, attach, port-forward and cp to this node's pods (for locked-down nodes)")
	f.StringVar(&cfg.PodLogDir, "pod-log-dir", agent.DefaultPodLogDir, "folder of the containers' log files, <ns>_<pod>_<uid>/<container>/<restart>.log as the kubelet writes them")
	f.StringVar(&cfg.ContainerLogDir, "container-log-dir", agent.DefaultContainerLogDir, "folder of the links <pod>_<ns>_<container>-<id>.log to the containers' log files, where log shippers look")
	f.StringVar(&cfg.LocalStoragePath, "default-local-storage-path", "", "folder of the local-path volumes' directories (default <data-dir>/storage)")
	f.IntVar(&cfg.ImageGC.High, "image-gc-high-threshold", 85, "percent of the image filesystem used above which unused images are removed")
	f.IntVar(&cfg.ImageGC.Low, "image-gc-low-threshold", 80, "percent of the image filesystem used that image garbage collection brings it down to")
	f.DurationVar(&cfg.ImageGC.Interval, "image-gc-interval", 5*time.Minute, "how often the image filesystem is checked")
	f.DurationVar(&cfg.HeartbeatInterval, "heartbeat-interval", agent.DefaultHeartbeatInterval, "how often node status is sent")
	addNodeNetworkFlags(f, cfg)
	f.DurationVar(&cfg.CABundleInterval, "ca-bundle-interval", agent.DefaultCABundleInterval, "how often the CA bundle is fetched from the server; for tests of rotate-ca")
	_ = f.MarkHidden("ca-bundle-interval")
	f.StringVar(&cfg.ClusterDNS, "cluster-dns", agent.DefaultClusterDNS, "IPv4 address of the cluster DNS the node serves and pods use")
	f.StringVar(&cfg.ClusterDomain, "cluster-domain", agent.DefaultClusterDomain, "cluster domain the cluster DNS answers")
	f.StringVar(&cfg.ResolvConf, "resolv-conf", "", "resolv.conf of the upstream resolvers (default /etc/resolv.conf, or systemd-resolved's real one when that names only 127.0.0.53)")
	f.BoolVar(&cfg.DisableClusterDNS, "disable-cluster-dns", false, "run no cluster DNS on this node")
}

// addNodeNetworkFlags adds the pod networking flags of a node; on `bramble
// server` --network-backend is also the cluster's, told to every agent.
func addNodeNetworkFlags(f *pflag.FlagSet, cfg *agent.Config) {
	f.StringVar(&cfg.NetworkBackend, "network-backend", "", "pod networking: vxlan, host-gw or none (none: bring your own CNI config); an agent without it follows its server's, which defaults to vxlan")
	f.StringSliceVar(&cfg.CNIBinDirs, "cni-bin-dir", []string{agent.DefaultCNIBinDir}, "folders holding the CNI plugins (repeatable)")
	f.StringVar(&cfg.CNIBridge, "cni-bridge", agent.DefaultCNIBridge, "name of the pod bridge")
	_ = f.MarkHidden("cni-bridge") // tests run several agents on one machine
	f.BoolVar(&cfg.DisableOverlay, "disable-overlay", false, "no vxlan device, routes or nftables rules (tests running agents in the host's network namespace)")
	_ = f.MarkHidden("disable-overlay")
}

// applyAgentEnv sets --server and --token from BRAMBLE_URL and
// BRAMBLE_TOKEN unless given on the command line; both beat the config file.
func applyAgentEnv(f *pflag.FlagSet) error {
	for flag, env := range map[string]string{"server": "BRAMBLE_URL", "token": "BRAMBLE_TOKEN"} {
		if v := os.Getenv(env); v != "" && !f.Changed(flag) {
			if err := f.Set(flag, v); err != nil {
				return fmt.Errorf("%s: %w", env, err)
			}
		}
	}
	return nil
}

// applyConfigFile sets every flag the command line left unset from the
// config file. The default file may be missing; one named by --config may
// not.
func applyConfigFile(f *pflag.FlagSet, path, command string) error {
	values, err := agent.ReadConfigFile(path, !f.Changed("config"))
	if err != nil {
		return err
	}
	for _, name := range agent.SortedKeys(values) {
		fl := f.Lookup(name)
		if fl == nil || name == "config" {
			return fmt.Errorf("config file %s: %q is not a flag of bramble %s", path, name, command)
		}
		if fl.Changed {
			continue
		}
		for _, v := range values[name] {
			if err := f.Set(name, v); err != nil {
				return fmt.Errorf("config file %s: %s: %w", path, name, err)
			}
		}
	}
	return nil
}

func parseLevel(s string) (slog.Level, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(strings.ToUpper(s))); err != nil {
		return 0, fmt.Errorf("--log-level: got %q, want debug, info, warn or error", s)
	}
	return l, nil
}
