package agent

import (
	"context"
	"log/slog"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/bramble-edge/bramble/agent/runtime"
)

// finisher finishes, after every (re)connect, the deletion of pods the
// API is deleting that this agent no longer runs: it stopped them, but the
// server may never have heard (the report was lost with a server that
// went down, or the agent restarted after removing their containers). A
// pod still running a container is left to its worker, which finishes it
// when it has stopped it.
type finisher struct {
	node string
	pods func() []*corev1.Pod // the desired copies of the node's pods
	runs func(types.UID) bool // the pod manager has a worker for it
	rt   interface {
		ListContainers(context.Context) ([]runtime.ContainerStatus, error)
	}
	finish func(*corev1.Pod)
	log    *slog.Logger
	kick   chan struct{}
}

// poke asks for a pass (the MQTT client's OnConnect; never blocks).
func (f *finisher) poke() {
	select {
	case f.kick <- struct{}{}:
	default:
	}
}

// run makes a pass per poke until ctx ends.
func (f *finisher) run(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-f.kick:
			f.pass(ctx)
		}
	}
}

// pass finishes every terminating pod of the node with neither a worker
// nor a container.
func (f *finisher) pass(ctx context.Context) {
	var idle []*corev1.Pod
	for _, p := range f.pods() {
		if p.DeletionTimestamp != nil && p.Spec.NodeName == f.node && !f.runs(p.UID) {
			idle = append(idle, p)
		}
	}
	if len(idle) == 0 {
		return
	}
	cs, err := f.rt.ListContainers(ctx)
	if err != nil {
		f.log.Warn("list containers to finish deleted pods", "err", err)
		return
	}
	busy := map[string]bool{}
	for _, c := range cs {
		busy[c.PodUID] = true
	}
	for _, p := range idle {
		if !busy[string(p.UID)] {
			f.log.Info("finishing the deletion of a pod stopped earlier", "pod", p.Namespace+"/"+p.Name)
			f.finish(p)
		}
	}
}

// storePods decodes the pods of the agent's local store.
func storePods(s *Store, log *slog.Logger) func() []*corev1.Pod {
	return func() []*corev1.Pod {
		var out []*corev1.Pod
		for ref, raw := range s.List("pods") {
			p, err := decodePod(raw)
			if err != nil {
				log.Warn("decode stored pod", "pod", ref.Namespace+"/"+ref.Name, "err", err)
				continue
			}
			out = append(out, p)
		}
		return out
	}
}
