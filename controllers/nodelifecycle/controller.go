// Package nodelifecycle acts on nodes that stop being Ready. The server's
// node status monitor (server/nodestatus) already turns a silent node's
// Ready condition Unknown after the grace period; this controller:
//
//   - taints a node whose Ready condition is Unknown with
//     node.kubernetes.io/unreachable:NoExecute, one whose Ready is False with
//     node.kubernetes.io/not-ready:NoExecute (timeAdded set), and removes
//     them when Ready turns True again;
//   - evicts (deletes) the pods on a node with a NoExecute taint they do not
//     tolerate: at once when no toleration matches, or tolerationSeconds
//     after the taint's timeAdded (pods get 300 s for both taints by
//     default; see api.DefaultTolerations).
//
// It does not mark an unreachable node's pods not Ready, as Kubernetes'
// node controller does: the agent reports a pod's status only when it
// changes, so a server-side Ready=False would outlive the outage of a pod
// that never stopped. The pods keep their last reported status until they
// are evicted or their node reports again.
//
// Edge-friendly choices, different from Kubernetes: pods owned by a
// DaemonSet, static (mirror) pods and bare pods without a controller are
// never evicted. Nothing would re-create the last two elsewhere, and an
// agent cut off from the server keeps running its pods on its own, so
// deleting them would only lose them once the node is back. Pods a
// controller owns are evicted so that it re-creates them on a Ready node.
package nodelifecycle

import (
	"context"
	"log/slog"
	"time"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/controllers"
)

// Component names the controller in events.
const Component = "node-controller"

var (
	nodesRes = controllers.MustResource("", "nodes")
	podsRes  = controllers.MustResource("", "pods")
)

// Controller taints unready nodes and evicts their pods.
type Controller struct {
	client    controllers.Client
	cache     *controllers.Cache
	log       *slog.Logger
	now       func() time.Time
	nodeInf   *controllers.Informer
	podInf    *controllers.Informer
	nodeQueue *controllers.Queue // node names: taints
	podQueue  *controllers.Queue // pod keys: eviction, readiness
	events    *controllers.Recorder
}

// New asks d.Cache for the Node and Pod informers and registers its
// handlers; nothing runs until Run.
func New(d controllers.Deps) *Controller {
	log := d.Logger("nodelifecycle")
	c := &Controller{
		client: d.Client, cache: d.Cache, log: log, now: d.Clock(),
		nodeInf: d.Cache.Informer(nodesRes), podInf: d.Cache.Informer(podsRes),
		nodeQueue: controllers.NewQueue(10*time.Millisecond, 2*time.Minute),
		podQueue:  controllers.NewQueue(10*time.Millisecond, 2*time.Minute),
		events:    controllers.NewRecorder(d.Client, Component, log),
	}
	c.nodeInf.AddHandler(controllers.Handler{OnAdd: c.nodeAdded, OnUpdate: c.nodeUpdated})
	c.podInf.AddHandler(controllers.Handler{OnAdd: c.enqueuePod,
		OnUpdate: func(_, cur api.Object) { c.enqueuePod(cur) }})
	return c
}

// Run waits for the cache, then runs workers workers on nodes and as many
// on pods until ctx ends.
func (c *Controller) Run(ctx context.Context, workers int) {
	controllers.Run(ctx, c.cache, c.events, c.log, workers,
		controllers.Loop{Queue: c.nodeQueue, Sync: c.syncNode}, controllers.Loop{Queue: c.podQueue, Sync: c.syncPod})
}

func (c *Controller) nodeAdded(o api.Object) {
	c.nodeQueue.Add(o.GetName())
	c.enqueuePodsOn(o.GetName())
}

// nodeUpdated queues the node when its readiness, pressure or taints
// changed, and
// its pods, whose fate may have changed with them.
func (c *Controller) nodeUpdated(old, cur api.Object) {
	if readyStatus(asNode(old)) == readyStatus(asNode(cur)) && sameTaints(asNode(old), asNode(cur)) &&
		samePressure(asNode(old), asNode(cur)) {
		return
	}
	c.nodeQueue.Add(cur.GetName())
	c.enqueuePodsOn(cur.GetName())
}

func (c *Controller) enqueuePodsOn(node string) {
	for _, p := range c.podInf.ByIndex(controllers.IndexNode, node) {
		c.podQueue.Add(controllers.KeyOf(p))
	}
}

func (c *Controller) enqueuePod(o api.Object) {
	if asPod(o).Spec.NodeName != "" {
		c.podQueue.Add(controllers.KeyOf(o))
	}
}
