package server

import (
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/bramble-edge/bramble/scheduler"

	"github.com/bramble-edge/bramble/datastore"
	"github.com/bramble-edge/bramble/server/nodestatus"
	"github.com/bramble-edge/bramble/server/publish"
)

// Config is what `bramble server` is told by its flags. Zero values get the
// defaults k3s users expect.
type Config struct {
	DataDir             string        // --data-dir, default /var/lib/bramble
	BindAddress         string        // --bind-address, default 0.0.0.0
	HTTPSPort           int           // --https-listen-port, default 6443
	TLSSANs             []string      // --tls-san, extra names and addresses for the serving certificate
	WriteKubeconfig     string        // --write-kubeconfig, default /etc/bramble/bramble.yaml
	WriteKubeconfigMode string        // --write-kubeconfig-mode, octal, default 0600
	DatastoreEndpoint   string        // --datastore-endpoint, default SQLite in the data dir
	CompactInterval     time.Duration // --datastore-compact-interval, default 5m
	CompactRetain       int64         // --datastore-compact-retain, revisions kept, default 1000
	MQTTListenPort      int           // --mqtt-listen-port of the embedded broker, default 8883
	MQTTBroker          string        // --mqtt-broker mqtts://HOST:PORT: use an external broker instead
	MQTTCA              string        // --mqtt-ca: CA bundle that signed the external broker's certificate
	MQTTCert, MQTTKey   string        // --mqtt-cert, --mqtt-key: the server's identity at the external broker
	MosquittoACL        string        // --mosquitto-acl: the external mosquitto's ACL file, kept in step with the nodes
	MosquittoPID        string        // --mosquitto-pid: its pid file, signalled after each change
	// NodeMonitorGracePeriod (--node-monitor-grace-period): how long a node
	// may stay silent before it is Ready=Unknown; 0 adapts to the node count.
	NodeMonitorGracePeriod time.Duration
	// HPASyncPeriod (--horizontal-pod-autoscaler-sync-period): how often
	// each HorizontalPodAutoscaler is looked at (0: 15 s).
	HPASyncPeriod time.Duration
	// TerminatedPodGCThreshold (--terminated-pod-gc-threshold): how many
	// finished pods the pod GC keeps (0: 12500; negative: all).
	TerminatedPodGCThreshold int
	// ServiceCIDR (--service-cidr, default 10.43.0.0/16) and
	// ServiceNodePortRange (--service-node-port-range, default
	// 30000-32767) are where Services' ClusterIPs and NodePorts come from.
	ServiceCIDR string
	// ClusterDomain (the node's --cluster-domain, default cluster.local)
	// names kubernetes.default.svc.<domain> in the serving certificate.
	ClusterDomain        string
	ServiceNodePortRange string
	// ClusterCIDR (--cluster-cidr, default 10.42.0.0/16) is cut into
	// ranges of NodeCIDRMaskSize bits (--node-cidr-mask-size, default 24),
	// one per Node (controllers/nodeipam).
	ClusterCIDR      string
	NodeCIDRMaskSize int
	DisableAgent     bool // --disable-agent
	DisableScheduler bool // --disable-scheduler
	// MetricsToken (--metrics-token) is a bearer token that may read
	// /metrics and nothing else (docs/OBSERVABILITY.md).
	MetricsToken       string
	DisableControllers bool // --disable-controllers
	// Disable (--disable, repeatable) names built-in components not to
	// run: servicelb (the LoadBalancer controller, controllers/servicelb).
	Disable []string
	// DisableManifests (--disable-manifests): do not apply the files of
	// <data-dir>/server/manifests; ManifestsInterval (--manifests-interval)
	// is how often that folder is read (0: every 10 s).
	DisableManifests  bool
	ManifestsInterval time.Duration
	// DisableSecretsEncryption (--disable-secrets-encryption): a new
	// cluster's keys file starts with no key, so Secrets are stored in
	// plaintext. It has no effect once the keys file exists (then
	// `bramble secrets-encrypt enable|disable` decides).
	DisableSecretsEncryption bool
	// LeaderElect (--leader-elect): run the scheduler and the controllers
	// only while this server holds the kube-system/bramble-server Lease,
	// for servers that share one datastore.
	LeaderElect bool
	// NodeCertValidity (hidden --node-cert-validity, a test hook) is the
	// lifetime of node certificates issued at join and renewal; 0 is one
	// year. Agents renew once a third of it is left.
	NodeCertValidity time.Duration
	// ServiceAccountMaxTokenExpiration (--service-account-max-token-expiration)
	// caps the life of ServiceAccount tokens (0: 48 h); a retired signing
	// key stays trusted this long.
	ServiceAccountMaxTokenExpiration time.Duration
	// Controllers makes the control loops (`bramble server` passes
	// controllers/manager's); nil runs none.
	Controllers NewControllers
	// Scheduler tunes the scheduler (its Store, Binder and Logger are
	// set by the server).
	Scheduler scheduler.Config
	Audit     AuditConfig // --audit-log-*, --audit-policy-file

	// Not flags: tests and benchmarks that run the server in process tune
	// its parts here (zero values get each part's defaults) and may give a
	// logger.
	NodeStatus nodestatus.Config // Bus, Store, Writer and Logger are filled in
	Publish    publish.Config    // Store, Bus and Logger are filled in
	Logger     *slog.Logger
	LogLevel   string // --log-level: debug, info, warn, error
	// WrapStore, when set, wraps the datastore that node certificate
	// revocation follows: tests inject watch faults there.
	WrapStore func(datastore.Store) datastore.Store
}

// Defaults applied to zero fields.
const (
	DefaultDataDir        = "/var/lib/bramble"
	DefaultHTTPSPort      = 6443
	DefaultKubeconfigPath = "/etc/bramble/bramble.yaml"
	DefaultMQTTPort       = 8883
)

func (c *Config) setDefaults() {
	if c.DataDir == "" {
		c.DataDir = DefaultDataDir
	}
	if c.BindAddress == "" {
		c.BindAddress = "0.0.0.0"
	}
	if c.HTTPSPort == 0 {
		c.HTTPSPort = DefaultHTTPSPort
	}
	if c.MQTTListenPort == 0 {
		c.MQTTListenPort = DefaultMQTTPort
	}
	if c.WriteKubeconfig == "" {
		c.WriteKubeconfig = DefaultKubeconfigPath
	}
	if c.WriteKubeconfigMode == "" {
		c.WriteKubeconfigMode = "0600"
	}
	if c.LogLevel == "" {
		c.LogLevel = "info"
	}
}

// validate names the flag that is wrong and why.
func (c *Config) validate() error {
	if c.HTTPSPort < 1 || c.HTTPSPort > 65535 {
		return fmt.Errorf("--https-listen-port %d: must be between 1 and 65535", c.HTTPSPort)
	}
	if net.ParseIP(c.BindAddress) == nil {
		return fmt.Errorf("--bind-address %q: not an IP address", c.BindAddress)
	}
	if err := c.validateMQTT(); err != nil {
		return err
	}
	if c.MetricsToken != "" && (len(c.MetricsToken) < 16 || strings.ContainsAny(c.MetricsToken, " \t\r\n")) {
		return fmt.Errorf("--metrics-token: must be at least 16 characters without spaces")
	}
	if _, err := c.serviceAllocConfig(); err != nil {
		return err
	}
	if _, err := c.kubeconfigMode(); err != nil {
		return err
	}
	if !filepath.IsAbs(c.DataDir) {
		return fmt.Errorf("--data-dir %q: must be an absolute path", c.DataDir)
	}
	for _, san := range c.TLSSANs {
		if strings.TrimSpace(san) == "" || strings.ContainsAny(san, " /") {
			return fmt.Errorf("--tls-san %q: must be a DNS name or an IP address", san)
		}
	}
	if _, err := c.sqlitePath(); err != nil {
		return err
	}
	if c.CompactInterval < 0 {
		return fmt.Errorf("--datastore-compact-interval %s: must not be negative", c.CompactInterval)
	}
	if c.HPASyncPeriod < 0 || (c.HPASyncPeriod > 0 && c.HPASyncPeriod < 100*time.Millisecond) {
		return fmt.Errorf("--horizontal-pod-autoscaler-sync-period %s: want at least 100ms", c.HPASyncPeriod)
	}
	if c.NodeMonitorGracePeriod < 0 {
		return fmt.Errorf("--node-monitor-grace-period %s: must not be negative (0 adapts it to the number of nodes)", c.NodeMonitorGracePeriod)
	}
	if c.CompactRetain < 0 {
		return fmt.Errorf("--datastore-compact-retain %d: must not be negative", c.CompactRetain)
	}
	if err := c.Audit.validate(); err != nil {
		return err
	}
	switch c.LogLevel {
	case "debug", "info", "warn", "error":
	default:
		return fmt.Errorf("--log-level %q: must be debug, info, warn or error", c.LogLevel)
	}
	return nil
}

func (c *Config) kubeconfigMode() (os.FileMode, error) {
	m, err := strconv.ParseUint(c.WriteKubeconfigMode, 8, 32)
	if err != nil || m > 0o777 {
		return 0, fmt.Errorf("--write-kubeconfig-mode %q: must be an octal file mode such as 0600 or 0644", c.WriteKubeconfigMode)
	}
	return os.FileMode(m), nil
}

// sqlitePath resolves --datastore-endpoint to a SQLite file. Empty means
// <data-dir>/server/db/state.db; "sqlite:///path" or a plain path name one.
func (c *Config) sqlitePath() (string, error) {
	ep := c.DatastoreEndpoint
	switch {
	case ep == "":
		return datastore.DefaultSQLitePath(c.DataDir), nil
	case strings.HasPrefix(ep, "sqlite://"):
		p := strings.TrimPrefix(ep, "sqlite://")
		if !filepath.IsAbs(p) {
			return "", fmt.Errorf("--datastore-endpoint %q: sqlite path must be absolute (sqlite:///var/lib/x.db)", ep)
		}
		return p, nil
	case strings.HasPrefix(ep, "postgres://"), strings.HasPrefix(ep, "postgresql://"):
		return "", fmt.Errorf("--datastore-endpoint %q: PostgreSQL is not supported by this build yet; use SQLite (leave the flag empty)", ep)
	case filepath.IsAbs(ep):
		return ep, nil
	}
	return "", fmt.Errorf("--datastore-endpoint %q: expected sqlite:///path/to/file.db or an absolute path", ep)
}

func (c *Config) serverDir() string { return filepath.Join(c.DataDir, "server") }

func (c *Config) validateMQTT() error {
	if c.MQTTListenPort < 1 || c.MQTTListenPort > 65535 {
		return fmt.Errorf("--mqtt-listen-port %d: must be between 1 and 65535", c.MQTTListenPort)
	}
	if c.MQTTBroker == "" {
		if c.MQTTCA != "" || c.MQTTCert != "" || c.MQTTKey != "" || c.MosquittoACL != "" || c.MosquittoPID != "" {
			return fmt.Errorf("--mqtt-ca, --mqtt-cert, --mqtt-key, --mosquitto-acl and --mosquitto-pid go with --mqtt-broker")
		}
		return nil
	}
	if (c.MosquittoACL == "") != (c.MosquittoPID == "") {
		return fmt.Errorf("--mosquitto-acl and --mosquitto-pid go together (the ACL file is useless until mosquitto reloads it)")
	}
	if !strings.HasPrefix(c.MQTTBroker, "mqtts://") {
		return fmt.Errorf("--mqtt-broker %q: must be mqtts://HOST:PORT (identities are TLS certificates)", c.MQTTBroker)
	}
	for flag, v := range map[string]string{"--mqtt-ca": c.MQTTCA, "--mqtt-cert": c.MQTTCert, "--mqtt-key": c.MQTTKey} {
		if v == "" {
			return fmt.Errorf("%s is required with --mqtt-broker", flag)
		}
	}
	return nil
}
