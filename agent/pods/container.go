package pods

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/bramble-edge/bramble/agent/runtime"
)

// Labels the pod worker keeps on its containers (runtime reserves
// bramble.io/ for its own).
const (
	LabelAttempt  = "pods.bramble.io/attempt"
	LabelSpecHash = "pods.bramble.io/spec-hash"
)

// ctrState is what the worker knows about one container of its pod.
type ctrState struct {
	name        string
	id          string // current container, "" before the first start
	attempt     int    // attempt of id: the restart count
	nextAttempt int
	hash        string
	prevID      string // previous attempt, kept for logs --previous
	rs          *runtime.ContainerStatus
	exitHandled bool
	sidecarUp   bool   // a sidecar that has started (sidecars.go)
	msgID, msg  string // termination message of container msgID
	last        *corev1.ContainerStateTerminated

	waiting, message string
	backoff          time.Duration // delay for the next crash
	delay            time.Duration // the delay being waited out
	imageNext        time.Time
	nextStart        time.Time
	imageBackoff     time.Duration
	probes           probeSet
	// The back-off steps already told by a BackOff event: one per step.
	pullBackOffTold, crashBackOffTold time.Time
}

func (w *worker) ctr(name string) *ctrState {
	st, ok := w.ctrs[name]
	if !ok {
		st = &ctrState{name: name}
		w.ctrs[name] = st
	}
	return st
}

var unsafeID = regexp.MustCompile(`[^A-Za-z0-9_.-]`)

// ContainerID is the deterministic containerd ID of one attempt of a
// container: a readable prefix, a hash of pod UID and name, the attempt.
func ContainerID(uid types.UID, name string, attempt int) string {
	sum := sha256.Sum256([]byte(string(uid) + "/" + name))
	prefix := unsafeID.ReplaceAllString(name, "-")
	if len(prefix) > 40 {
		prefix = prefix[:40]
	}
	return fmt.Sprintf("%s-%s-%d", prefix, hex.EncodeToString(sum[:])[:16], attempt)
}

// specHash fingerprints a container's spec; a change restarts it.
func specHash(c *corev1.Container) string {
	b, _ := json.Marshal(c)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])[:16]
}

// adopt finds the containers a previous agent left for this pod: per name
// the newest attempt is current, the one before it previous, the rest go.
func (w *worker) adopt(ctx context.Context, pod *corev1.Pod) {
	cs, err := w.m.rt.ListContainers(ctx)
	if err != nil {
		w.log.Warn("list containers to adopt", "err", err)
		return
	}
	logPaths := map[string]string{}
	for i := range cs {
		c := cs[i]
		if c.PodUID != string(pod.UID) {
			continue
		}
		logPaths[c.ID] = c.LogPath
		n, err := strconv.Atoi(c.Labels[LabelAttempt])
		if err != nil {
			w.remove(ctx, c.ID)
			continue
		}
		st := w.ctr(c.Name)
		switch {
		case st.id == "" || n > st.attempt:
			if st.prevID != "" {
				w.remove(ctx, st.prevID)
			}
			st.prevID, st.id, st.attempt, st.hash, st.rs = st.id, c.ID, n, c.Labels[LabelSpecHash], &c
			st.nextAttempt = n + 1
		default:
			w.remove(ctx, c.ID)
		}
	}
	for _, st := range w.ctrs {
		w.adoptPrevious(ctx, st)
	}
	w.relinkLogs(pod, logPaths)
}

func (w *worker) adoptPrevious(ctx context.Context, st *ctrState) {
	if st.prevID == "" {
		return
	}
	rs, err := w.m.rt.ContainerStatus(ctx, st.prevID)
	if err == nil {
		pod, _ := w.snapshot()
		st.last = terminated(&rs)
		st.last.Message = w.termMessage(podContainer(pod, st.name), &rs)
	}
}

func (w *worker) remove(ctx context.Context, id string) {
	if err := w.m.rt.RemoveContainer(ctx, id); err != nil && !errors.Is(err, runtime.ErrNotFound) {
		w.log.Warn("remove container", "container", id, "err", err)
	}
}

// observe refreshes the runtime's view of the current container.
func (w *worker) observe(ctx context.Context, st *ctrState) {
	if st.id == "" {
		return
	}
	rs, err := w.m.rt.ContainerStatus(ctx, st.id)
	switch {
	case errors.Is(err, runtime.ErrNotFound):
		st.id, st.rs = "", nil // removed behind our back: start anew
	case err != nil:
		w.log.Warn("container status", "container", st.id, "err", err)
	default:
		if rs.State == runtime.StateCreated || rs.State == runtime.StateUnknown {
			rs.State, rs.ExitCode = runtime.StateExited, 255 // no task: host rebooted
			if rs.FinishedAt.IsZero() {
				rs.FinishedAt = w.m.cfg.Clock.Now()
			}
		}
		st.rs = &rs
	}
}

// terminated converts an exited container's runtime status.
func terminated(rs *runtime.ContainerStatus) *corev1.ContainerStateTerminated {
	reason := "Completed"
	switch {
	case rs.OOMKilled:
		reason = "OOMKilled"
	case rs.ExitCode != 0:
		reason = "Error"
	}
	return &corev1.ContainerStateTerminated{
		ExitCode: int32(rs.ExitCode), Reason: reason,
		StartedAt: metaTime(rs.StartedAt), FinishedAt: metaTime(rs.FinishedAt),
		ContainerID: "containerd://" + rs.ID,
	}
}
