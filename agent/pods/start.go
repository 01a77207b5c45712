package pods

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"

	corev1 "k8s.io/api/core/v1"

	"github.com/bramble-edge/bramble/agent/events"
	"github.com/bramble-edge/bramble/agent/runtime"
	"github.com/bramble-edge/bramble/imageregistry"
)

// errConfig marks a container whose config cannot be resolved yet (a
// missing ConfigMap key...): reason CreateContainerConfigError.
var errConfig = errors.New("container config")

// start pulls the image, resolves the container's config and runs its
// next attempt; on failure the container waits with the reason.
func (w *worker) start(ctx context.Context, pod *corev1.Pod, c *corev1.Container, st *ctrState) {
	if w.volErr != nil {
		st.waiting, st.message = "ContainerCreating", w.volErr.Error()
		return
	}
	if w.netErr != nil || w.m.cfg.Network != nil && w.sb == nil {
		st.waiting, st.message = "ContainerCreating", fmt.Sprint("pod network: ", w.netErr)
		return
	}
	img, ok := w.ensureImage(ctx, pod, c, st)
	if !ok {
		return
	}
	spec, err := w.containerSpec(ctx, pod, c, st.nextAttempt)
	if err != nil {
		st.waiting, st.message = "CreateContainerConfigError", err.Error()
		w.event(pod, c.Name, events.Warning, "Failed", "Error: %v", err)
		return
	}
	spec.Image = img.Name
	if err := w.m.rt.RunContainer(ctx, spec); err != nil {
		w.log.Warn("run container", "container", c.Name, "err", err)
		st.waiting, st.message = "RunContainerError", err.Error()
		if ce := new(runtime.ConfigError); errors.As(err, &ce) {
			st.waiting, st.message, err = "CreateContainerConfigError", ce.Msg, ce
		}
		w.event(pod, c.Name, events.Warning, "Failed", "Error: %v", err)
		st.nextStart = w.m.cfg.Clock.Now().Add(st.backoff)
		st.delay, st.backoff = st.backoff, nextBackoff(st.backoff, w.m.cfg.BackoffInitial, w.m.cfg.BackoffMax)
		return
	}
	if err := w.m.logs.addLink(w.m.logs.link(pod.Namespace, pod.Name, c.Name, spec.ID), spec.LogPath); err != nil {
		w.log.Warn("container log link", "container", c.Name, "err", err)
	}
	w.event(pod, c.Name, events.Normal, "Created", "Created container: %s", c.Name)
	w.event(pod, c.Name, events.Normal, "Started", "Started container %s", c.Name)
	w.retire(ctx, pod, st)
	st.id, st.attempt, st.hash, st.rs = spec.ID, st.nextAttempt, spec.Labels[LabelSpecHash], nil
	st.nextAttempt++
	st.exitHandled, st.waiting, st.message = false, "", ""
	st.probes = newProbeSet(c, w.m.cfg.Clock.Now())
	w.observe(ctx, st)
	w.postStart(ctx, pod, c, st)
}

// retire makes the current container the previous one, removing the one
// before it with its logs: two attempts are kept, for logs --previous.
func (w *worker) retire(ctx context.Context, pod *corev1.Pod, st *ctrState) {
	if st.id == "" {
		return
	}
	if st.rs != nil && st.rs.State == runtime.StateExited {
		st.last = w.exitState(st)
	}
	if st.prevID != "" {
		w.remove(ctx, st.prevID)
		os.Remove(w.termMessageFile(st.prevID))
		w.m.logs.removeAttempt(pod.Namespace, pod.Name, w.uid, st.name, st.attempt-1)
	}
	st.prevID = st.id
}

// ensureImage makes the image present; failures wait with ErrImagePull,
// then ImagePullBackOff until the next try.
func (w *worker) ensureImage(ctx context.Context, pod *corev1.Pod, c *corev1.Container, st *ctrState) (runtime.Image, bool) {
	now := w.m.cfg.Clock.Now()
	if now.Before(st.imageNext) {
		st.waiting = "ImagePullBackOff"
		if !st.pullBackOffTold.Equal(st.imageNext) {
			st.pullBackOffTold = st.imageNext
			w.event(pod, c.Name, events.Normal, "BackOff", "Back-off pulling image %q", c.Image)
			w.event(pod, c.Name, events.Warning, "Failed", "Error: ImagePullBackOff")
		}
		return runtime.Image{}, false
	}
	pull, present := w.pullWanted(ctx, c)
	if pull {
		w.event(pod, c.Name, events.Normal, "Pulling", "Pulling image %q", c.Image)
	}
	img, err := w.m.rt.EnsureImage(ctx, c.Image, runtime.PullPolicy(c.ImagePullPolicy), w.pullCreds(ctx, pod))
	w.pullEvents(pod, c, pull, present, img, w.m.cfg.Clock.Now().Sub(now), err)
	if err != nil {
		st.waiting, st.message = "ErrImagePull", err.Error()
		st.imageBackoff = nextBackoff(st.imageBackoff, w.m.cfg.BackoffInitial, w.m.cfg.BackoffMax)
		st.imageNext = now.Add(st.imageBackoff)
		return runtime.Image{}, false
	}
	st.imageBackoff, st.imageNext = 0, now
	return img, true
}

// pullCreds reads the pod's imagePullSecrets; missing ones are skipped.
func (w *worker) pullCreds(ctx context.Context, pod *corev1.Pod) imageregistry.Credentials {
	var creds imageregistry.Credentials
	for _, ref := range pod.Spec.ImagePullSecrets {
		data, err := w.m.lookup(ctx, KindSecret, pod.Namespace, ref.Name)
		if err != nil {
			w.log.Warn("imagePullSecret", "secret", ref.Name, "err", err)
			continue
		}
		for _, key := range []string{corev1.DockerConfigJsonKey, corev1.DockerConfigKey} {
			if b, ok := data[key]; ok {
				c, err := imageregistry.ParseDockerConfig(b)
				if err != nil {
					w.log.Warn("imagePullSecret", "secret", ref.Name, "err", err)
					continue
				}
				creds = creds.Merge(c)
			}
		}
	}
	return creds
}

// containerSpec resolves a container of the pod into the runtime's spec.
func (w *worker) containerSpec(ctx context.Context, pod *corev1.Pod, c *corev1.Container, attempt int) (runtime.ContainerSpec, error) {
	svcEnv, err := w.m.serviceEnv(pod)
	if err != nil {
		return runtime.ContainerSpec{}, err
	}
	env, err := resolveEnv(ctx, w.m.lookup, pod, c, w.m.cfg.NodeIP, svcEnv)
	if err != nil {
		return runtime.ContainerSpec{}, err
	}
	mounts, err := w.vols.mounts(c, env)
	if err != nil {
		return runtime.ContainerSpec{}, fmt.Errorf("%w: %w", errConfig, err)
	}
	id := ContainerID(pod.UID, c.Name, attempt)
	msgMount, err := w.termMessageMount(c, id)
	if err != nil {
		return runtime.ContainerSpec{}, err
	}
	mounts = append(mounts, msgMount)
	s := runtime.ContainerSpec{
		ID: id, PodUID: string(pod.UID), Name: c.Name, Image: c.Image,
		Command: c.Command, Args: c.Args, Env: env, WorkingDir: c.WorkingDir, Mounts: mounts,
		LogPath: w.m.logs.attempt(pod.Namespace, pod.Name, pod.UID, c.Name, attempt),
		Labels:  map[string]string{LabelAttempt: strconv.Itoa(attempt), LabelSpecHash: specHash(c)},
		Stdin:   c.Stdin, StdinOnce: c.StdinOnce, TTY: c.TTY,
	}
	applyResources(&s, c.Resources)
	s.PodCgroup = w.podCgroup
	s.Sandbox = w.runtimeSandbox(pod)
	if s.Security, err = w.security(pod, c); err != nil {
		return runtime.ContainerSpec{}, fmt.Errorf("%w: %w", errConfig, err)
	}
	return s, nil
}

// applyResources maps limits to the cgroup: CPU quota per 100 ms period,
// memory bytes; CPU requests become shares.
func applyResources(s *runtime.ContainerSpec, r corev1.ResourceRequirements) {
	if q, ok := r.Limits[corev1.ResourceCPU]; ok && !q.IsZero() {
		s.CPUQuota = max(q.MilliValue()*100, 1000)
		s.CPUPeriod = 100000
	}
	if q, ok := r.Limits[corev1.ResourceMemory]; ok && !q.IsZero() {
		s.MemoryLimit = q.Value()
	}
	if q, ok := r.Requests[corev1.ResourceCPU]; ok && !q.IsZero() {
		s.CPUShares = uint64(max(q.MilliValue()*1024/1000, 2))
	}
}
