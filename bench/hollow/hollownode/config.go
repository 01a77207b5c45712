// Package hollownode runs simulated bramble nodes ("hollow" agents): each
// joins over the real join endpoint, connects over the real MQTT client
// with its own certificate, heartbeats with the hardware it is told to
// have, and reports the pods bound to it Running and Ready without
// starting anything (pods that do not restart report Succeeded a moment
// later, so Jobs complete). Stopping a fleet makes its nodes go silent, as
// Raspberry Pis that lost power would. bench/hollow is its command; the
// benchmarks and end-to-end tests use it directly.
package hollownode

import (
	"errors"
	"fmt"
	"io"
	corev1 "k8s.io/api/core/v1"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/bramble-edge/bramble/join"
	"github.com/bramble-edge/bramble/mqtt"
)

// Config describes a fleet. Server, Token and Nodes are required; zero
// values of the rest get defaults. Field comments name the bench/hollow
// flag that sets them.
type Config struct {
	Server string // -server: https://host:port of the API server
	Token  string // -token: a join token
	Nodes  int    // -nodes: how many nodes
	Prefix string // -prefix: nodes are named Prefix-0 .. Prefix-(Nodes-1); default "hollow"
	Arch   string // -arch: kubernetes.io/arch and nodeInfo.architecture; default arm64
	CPU    resource.Quantity
	Memory resource.Quantity
	// MaxPods is the pods capacity (default 110).
	MaxPods int
	// Labels are added to kubernetes.io/arch, kubernetes.io/os and
	// kubernetes.io/hostname (-labels k=v,...).
	Labels map[string]string
	// Taints the nodes register with.
	Taints []corev1.Taint
	// Images the nodes report holding, by reference, with the platforms
	// each offers (the scheduler's architecture check reads them).
	Images    map[string][]string
	Heartbeat time.Duration // -heartbeat, default 10s
	// UsagePods, when > 0, makes every heartbeat carry synthetic resource
	// usage (node and that many pods of two containers), as a real agent's
	// does (-usage-pods).
	UsagePods int
	// StateDir keeps each node's credentials (StateDir/<node>/), so a
	// restarted fleet does not join again (-state-dir; default
	// $TMPDIR/bramble-hollow).
	StateDir string
	// Stagger is the pause between starting two nodes (-stagger, default
	// 5ms), so a large fleet does not hit the server all at once.
	Stagger time.Duration
	// JoinWorkers is how many nodes join at once (default 8).
	JoinWorkers int
	// SucceedAfter is how long a pod with restartPolicy Never or OnFailure
	// runs before it reports Succeeded (default 1s).
	SucceedAfter time.Duration
	// LocalStorage, when set, is the local-path capacity the nodes report
	// (-local-storage), so the local-path provisioner serves them.
	LocalStorage resource.Quantity
	Logger       *slog.Logger
	// OnReceive, when set, sees every desired Event a node receives, on the
	// MQTT delivery goroutine (benchmarks time commit-to-receipt with it).
	OnReceive func(node string, ev *mqtt.Event, at time.Time)
}

func (c *Config) setDefaults() error {
	if c.Prefix == "" {
		c.Prefix = "hollow"
	}
	if c.Arch == "" {
		c.Arch = "arm64"
	}
	if c.CPU.IsZero() {
		c.CPU = resource.MustParse("4")
	}
	if c.Memory.IsZero() {
		c.Memory = resource.MustParse("4Gi")
	}
	setDefault(&c.MaxPods, 110)
	setDefault(&c.Heartbeat, 10*time.Second)
	setDefault(&c.Stagger, 5*time.Millisecond)
	setDefault(&c.JoinWorkers, 8)
	setDefault(&c.SucceedAfter, time.Second)
	if c.StateDir == "" {
		c.StateDir = filepath.Join(os.TempDir(), "bramble-hollow")
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return c.validate()
}

func setDefault[T int | time.Duration](v *T, def T) {
	if *v == 0 {
		*v = def
	}
}

// validate names the flag that is wrong.
func (c *Config) validate() error {
	switch {
	case !strings.HasPrefix(c.Server, "https://"):
		return fmt.Errorf("-server %q: want https://host:port of the API server", c.Server)
	case c.Token == "":
		return errors.New("-token: required (the server writes one to <data-dir>/server/token)")
	case c.Nodes < 1:
		return fmt.Errorf("-nodes %d: want at least 1", c.Nodes)
	case c.Heartbeat < time.Second || c.Heartbeat > time.Hour:
		return fmt.Errorf("-heartbeat %s: want 1s to 1h", c.Heartbeat)
	case c.CPU.Sign() <= 0:
		return fmt.Errorf("-cpu %s: want more than 0", c.CPU.String())
	case c.Memory.Sign() <= 0:
		return fmt.Errorf("-memory %s: want more than 0", c.Memory.String())
	case c.MaxPods < 1:
		return fmt.Errorf("max pods %d: want at least 1", c.MaxPods)
	case c.UsagePods < 0 || c.UsagePods > mqtt.MaxUsagePods:
		return fmt.Errorf("-usage-pods %d: want 0 to %d", c.UsagePods, mqtt.MaxUsagePods)
	case c.Stagger < 0:
		return fmt.Errorf("-stagger %s: must not be negative", c.Stagger)
	}
	if _, err := join.ParseToken(c.Token); err != nil {
		return fmt.Errorf("-token: %w", err)
	}
	if err := join.ValidateNodeName(nodeName(c.Prefix, c.Nodes-1)); err != nil {
		return fmt.Errorf("-prefix %q: %w", c.Prefix, err)
	}
	if msgs := validation.IsValidLabelValue(c.Arch); len(msgs) > 0 || c.Arch == "" {
		return fmt.Errorf("-arch %q: not a valid label value: %s", c.Arch, strings.Join(msgs, "; "))
	}
	for k, v := range c.Labels {
		if msgs := append(validation.IsQualifiedName(k), validation.IsValidLabelValue(v)...); len(msgs) > 0 {
			return fmt.Errorf("-labels %s=%s: %s", k, v, strings.Join(msgs, "; "))
		}
	}
	return nil
}

func nodeName(prefix string, i int) string { return fmt.Sprintf("%s-%d", prefix, i) }

// ParseLabels reads k=v,k2=v2 (the -labels flag); empty gives none.
func ParseLabels(s string) (map[string]string, error) {
	out := map[string]string{}
	if strings.TrimSpace(s) == "" {
		return out, nil
	}
	for _, kv := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(kv), "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("-labels: %q: want key=value", kv)
		}
		out[k] = v
	}
	return out, nil
}
