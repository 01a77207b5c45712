package agent

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/bramble-edge/bramble/agent/events"
	"github.com/bramble-edge/bramble/agent/nodeinfo"
	"github.com/bramble-edge/bramble/mqtt"
)

// The node's own events (docs/EVENTS.md): Rebooted, NodeReady and
// NodeNotReady, ImageGCFailed and FreeDiskSpaceFailed.

// BootIDFileEnv names a file read instead of the kernel's boot id: tests
// make an agent see a reboot by changing it.
const BootIDFileEnv = "BRAMBLE_BOOT_ID_FILE"

const (
	kernelBootID = "/proc/sys/kernel/random/boot_id"
	// bootIDFile, in the agent's folder, holds the boot id of the last run.
	bootIDFile = "boot-id"
)

// noteBoot records Rebooted when the boot id differs from the one the
// agent saw last time it ran, and keeps the new one.
func noteBoot(rec *events.Recorder, agentDir, node string) error {
	src := kernelBootID
	if p := os.Getenv(BootIDFileEnv); p != "" {
		src = p
	}
	raw, err := os.ReadFile(src)
	if err != nil {
		return fmt.Errorf("boot id: %w", err)
	}
	cur := strings.TrimSpace(string(raw))
	if cur == "" {
		return fmt.Errorf("boot id: %s is empty", src)
	}
	saved := filepath.Join(agentDir, bootIDFile)
	prev, err := os.ReadFile(saved)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("last boot id: %w", err)
	}
	if p := strings.TrimSpace(string(prev)); p == cur {
		return nil
	} else if p != "" {
		rec.Eventf(events.NodeRef(node), events.Warning, "Rebooted", "Node %s has been rebooted, boot id: %s", node, cur)
	}
	return writeFileAtomic(saved, []byte(cur+"\n"), 0o600)
}

// readyWatch records NodeReady and NodeNotReady when the node's Ready
// condition, as the agent sees it, changes (and NodeReady at the first
// heartbeat, as the kubelet does when it starts). It runs on the
// heartbeat goroutine.
type readyWatch struct {
	rec  *events.Recorder
	node string
	last corev1.ConditionStatus
}

func (r *readyWatch) see(n *nodeinfo.Node) {
	var st corev1.ConditionStatus
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			st = c.Status
		}
	}
	if st == "" || st == r.last {
		return
	}
	switch {
	case st == corev1.ConditionTrue:
		r.rec.Eventf(events.NodeRef(r.node), events.Normal, "NodeReady", "Node %s status is now: NodeReady", r.node)
	case r.last != "" || st == corev1.ConditionFalse:
		r.rec.Eventf(events.NodeRef(r.node), events.Normal, "NodeNotReady", "Node %s status is now: NodeNotReady", r.node)
	}
	r.last = st
}

// gcTold hears how an image GC round went.
type gcTold func(g ImageGC, removed []string, err error)

// gcEvents records ImageGCFailed when a round fails, and
// FreeDiskSpaceFailed when the disk is still over the high threshold after
// a round that removed what it could.
func gcEvents(rec *events.Recorder, node string) gcTold {
	return func(g ImageGC, removed []string, err error) {
		if err != nil {
			rec.Eventf(events.NodeRef(node), events.Warning, "ImageGCFailed", "%v", err)
			return
		}
		used, uerr := usedPercent(g.Path)
		if uerr != nil || used <= float64(g.High) {
			return
		}
		rec.Eventf(events.NodeRef(node), events.Warning, "FreeDiskSpaceFailed",
			"Failed to garbage collect required amount of images: %s is %d%% used after removing %d unused images, over the high threshold of %d%%",
			g.Path, int(used), len(removed), g.High)
	}
}

// podEvents leaves out the events of static pods: they are no API
// objects, so the server has nothing to write them about.
type podEvents struct {
	rec    *events.Recorder
	static func(types.UID) bool
}

func (p podEvents) Event(obj mqtt.EventObject, eventType, reason, message string) {
	if obj.Kind == mqtt.EventKindPod && p.static(types.UID(obj.UID)) {
		return
	}
	p.rec.Event(obj, eventType, reason, message)
}
