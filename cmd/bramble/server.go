package main

import (
	"time"

	"github.com/spf13/cobra"

	"github.com/bramble-edge/bramble/server"
)

func newServerCommand() *cobra.Command {
	var cfg server.Config
	cmd := &cobra.Command{
		Use:   "server",
		Short: "Run the bramble server: datastore, Kubernetes API and controllers",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return server.Run(cmd.Context(), cfg)
		},
	}
	f := cmd.Flags()
	f.StringVar(&cfg.DataDir, "data-dir", server.DefaultDataDir, "folder for the datastore, certificates and state")
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
	f.DurationVar(&cfg.NodeMonitorGracePeriod, "node-monitor-grace-period", 0, "how long a node may stay silent before it is NotReady (0: adapts to the number of nodes, 40s up to 100)")
	f.BoolVar(&cfg.DisableAgent, "disable-agent", false, "do not run the embedded agent for this machine")
	f.StringVar(&cfg.LogLevel, "log-level", "info", "log level: debug, info, warn or error")
	return cmd
}
