package hollownode

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strconv"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/join"
	"github.com/bramble-edge/bramble/mqtt"
	"github.com/bramble-edge/bramble/mqtt/client"
	"github.com/bramble-edge/bramble/version"
)

// Node is one hollow node: an MQTT client with the node's certificate, a
// heartbeat, and pods it pretends to run.
type Node struct {
	name   string
	cfg    *Config
	log    *slog.Logger
	client *client.Client
	pods   *podRunner
	hb     mqtt.Heartbeat
	seq    atomic.Uint64
	beats  atomic.Uint64 // heartbeats handed to the connection

	cancel context.CancelFunc
	done   chan struct{}
}

// startNode connects the node (in the background: paho keeps retrying)
// and starts its loop.
func startNode(ctx context.Context, cfg *Config, creds *join.Credentials) (*Node, error) {
	n := &Node{name: creds.NodeName, cfg: cfg, log: cfg.Logger.With("node", creds.NodeName), done: make(chan struct{})}
	n.pods = newPodRunner(n)
	n.hb = n.heartbeatTemplate()
	ccfg := client.Config{Credentials: creds, Applier: n.pods, Logger: cfg.Logger, OnConnect: n.pods.resend}
	if cfg.OnReceive != nil {
		name := n.name
		ccfg.OnReceive = func(ev *mqtt.Event, at time.Time) { cfg.OnReceive(name, ev, at) }
	}
	ctx, n.cancel = context.WithCancel(ctx)
	cl, err := client.Connect(ctx, ccfg)
	if err != nil {
		n.cancel()
		return nil, fmt.Errorf("node %s: %w", n.name, err)
	}
	n.client = cl
	go n.run(ctx)
	return n, nil
}

// Name is the node's name.
func (n *Node) Name() string { return n.name }

// Heartbeats counts the heartbeats the node sent.
func (n *Node) Heartbeats() uint64 { return n.beats.Load() }

// Rev is the revision of the node's desired view.
func (n *Node) Rev() int64 { return n.client.Rev() }

// ResourceVersion is the resourceVersion of an object in the node's
// desired view (false when the view does not hold it).
func (n *Node) ResourceVersion(ref mqtt.ObjectRef) (int64, bool) {
	o, ok := n.pods.Get(ref)
	return o.ResourceVersion, ok
}

func (n *Node) stop() {
	n.cancel()
	<-n.done
	n.client.Close()
}

// run heartbeats every cfg.Heartbeat (the first one at once) and sends
// pod status when pods change, until ctx ends.
func (n *Node) run(ctx context.Context) {
	defer close(n.done)
	beat := time.NewTimer(0)
	defer beat.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-beat.C:
			next := n.cfg.Heartbeat
			if !n.heartbeat(ctx) {
				next = min(next, 200*time.Millisecond) // not connected yet: try again soon
			}
			beat.Reset(next)
		case <-n.pods.changed:
			n.pods.report(ctx)
		}
	}
}

// heartbeat sends one heartbeat and reports whether it went out.
func (n *Node) heartbeat(ctx context.Context) bool {
	hb := n.hb // the template's maps and slices are shared, never changed
	hb.Seq = n.seq.Add(1)
	data, err := hb.Encode()
	if err != nil {
		n.log.Error("cannot encode heartbeat", "err", err)
		return true // retrying will not help
	}
	if err := n.client.Publish(ctx, mqtt.StatusTopic(n.name), 0, data); err != nil {
		n.log.Debug("heartbeat not sent", "err", err)
		return false
	}
	n.beats.Add(1)
	return true
}

// heartbeatTemplate is the node's heartbeat without its sequence number.
func (n *Node) heartbeatTemplate() mqtt.Heartbeat {
	c := n.cfg
	res := corev1.ResourceList{corev1.ResourceCPU: c.CPU.DeepCopy(), corev1.ResourceMemory: c.Memory.DeepCopy(),
		corev1.ResourcePods:             *resource.NewQuantity(int64(c.MaxPods), resource.DecimalSI),
		corev1.ResourceEphemeralStorage: resource.MustParse("32Gi")}
	labels := map[string]string{"kubernetes.io/arch": c.Arch, "kubernetes.io/os": "linux", "kubernetes.io/hostname": n.name}
	maps.Copy(labels, c.Labels)
	id := sha256.Sum256([]byte(n.name))
	hb := mqtt.Heartbeat{Node: n.name, IntervalSeconds: int32(c.Heartbeat / time.Second), Labels: labels, Taints: c.Taints,
		Status: mqtt.NodeReport{Capacity: res, Allocatable: res.DeepCopy(),
			Conditions: []mqtt.NodeCondition{
				{Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "AgentReady", Message: "hollow agent is posting ready status"},
				{Type: corev1.NodeMemoryPressure, Status: corev1.ConditionFalse, Reason: "AgentHasSufficientMemory"},
				{Type: corev1.NodeDiskPressure, Status: corev1.ConditionFalse, Reason: "AgentHasNoDiskPressure"},
				{Type: corev1.NodePIDPressure, Status: corev1.ConditionFalse, Reason: "AgentHasSufficientPID"}},
			Addresses: []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: n.pods.hostIP},
				{Type: corev1.NodeHostName, Address: n.name}},
			NodeInfo: corev1.NodeSystemInfo{Architecture: c.Arch, OperatingSystem: "linux",
				MachineID: hex.EncodeToString(id[:16]), SystemUUID: hex.EncodeToString(id[16:]),
				KernelVersion: "6.6.0-hollow", OSImage: "bramble hollow node",
				ContainerRuntimeVersion: "hollow://" + version.Version, KubeletVersion: version.KubeletVersion()}}}
	for _, ref := range slices.Sorted(maps.Keys(c.Images)) {
		hb.Status.Images = append(hb.Status.Images, corev1.ContainerImage{Names: []string{ref}, SizeBytes: 4 << 20})
	}
	if len(c.Images) > 0 {
		hb.Status.ImagePlatforms = c.Images
	}
	if !c.LocalStorage.IsZero() {
		hb.Annotations = map[string]string{api.AnnotationLocalStoragePath: "/var/lib/bramble/storage",
			api.AnnotationLocalStorageCapacity: strconv.FormatInt(c.LocalStorage.Value(), 10)}
	}
	if c.UsagePods > 0 {
		hb.Usage = syntheticUsage(c.UsagePods, hb.IntervalSeconds)
	}
	return hb
}

// syntheticUsage is a usage report of pods usage-0 .. usage-(n-1) in the
// default namespace, two containers each, with made-up figures.
func syntheticUsage(n int, window int32) *mqtt.Usage {
	u := &mqtt.Usage{WindowSeconds: window, CPU: 1_234_567_890, Memory: 1_987_654_321}
	for i := range n {
		u.Pods = append(u.Pods, mqtt.PodUsage{Namespace: "default", Name: fmt.Sprintf("usage-%d", i),
			Containers: []mqtt.ContainerUsage{{Name: "app", CPU: uint64(12_345_678 * (i + 1)), Memory: uint64(45_678_912 + i)},
				{Name: "sidecar", CPU: 1_234_567, Memory: 8_765_432}}})
	}
	return u
}
