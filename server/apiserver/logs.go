package apiserver

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// defaultContainerAnnotation names the container kubectl picks by default.
const defaultContainerAnnotation = "kubectl.kubernetes.io/default-container"

// podLogs answers GET pods/{name}/log: the container's log as plain text,
// streamed from the pod's agent; with follow=true it stays open.
func (a *API) podLogs(w http.ResponseWriter, r *http.Request, ri *requestInfo) error {
	opts, err := parseLogOptions(ri.query)
	if err != nil {
		return err
	}
	pod, err := a.logTarget(r.Context(), ri, opts)
	if err != nil {
		return err
	}
	node := pod.Spec.NodeName
	lw := &logWriter{w: w, rc: http.NewResponseController(w), follow: opts.Follow}
	if opts.Follow {
		noWriteDeadline(w)
	}
	err = a.logs.StreamLogs(r.Context(), node, pod, opts, lw)
	if err != nil && !lw.started {
		return logStreamError(err, pod, opts.Container, node)
	}
	if err != nil && !errors.Is(err, context.Canceled) {
		a.log.Debug("log stream ended with error", "pod", pod.Namespace+"/"+pod.Name, "node", node, "err", err)
	}
	lw.start()
	return nil
}

// logTarget loads the pod, resolves the container and checks there is an
// agent to ask.
func (a *API) logTarget(ctx context.Context, ri *requestInfo, opts *corev1.PodLogOptions) (*corev1.Pod, error) {
	obj, err := a.reg.Get(ctx, podsResource, ri.namespace, ri.name)
	if err != nil {
		return nil, err
	}
	pod := obj.(*corev1.Pod)
	if opts.Container, err = pickContainer(pod, opts.Container); err != nil {
		return nil, err
	}
	if pod.Spec.NodeName == "" {
		return nil, badRequest("pod %s does not have a host assigned, so it has no logs yet", pod.Name)
	}
	if a.logs == nil {
		return nil, apierrors.NewServiceUnavailable(fmt.Sprintf("no agent connected for node %q (pod %s/%s)",
			pod.Spec.NodeName, pod.Namespace, pod.Name))
	}
	return pod, nil
}

func logStreamError(err error, pod *corev1.Pod, container, node string) error {
	var se apierrors.APIStatus
	if errors.As(err, &se) {
		return err
	}
	return apierrors.NewServiceUnavailable(fmt.Sprintf("get logs of container %s in pod %s/%s from node %q: %v",
		container, pod.Namespace, pod.Name, node, err))
}

// logWriter starts the text/plain response on the first byte (so an error
// before it can still be a Status) and flushes each write when following.
type logWriter struct {
	w       http.ResponseWriter
	rc      *http.ResponseController
	follow  bool
	started bool
}

func (lw *logWriter) start() {
	if lw.started {
		return
	}
	lw.started = true
	lw.w.Header().Set("Content-Type", "text/plain")
	lw.w.Header().Set("X-Content-Type-Options", "nosniff")
	lw.w.WriteHeader(http.StatusOK)
}

func (lw *logWriter) Write(p []byte) (int, error) {
	lw.start()
	n, err := lw.w.Write(p)
	if err == nil && lw.follow {
		err = lw.rc.Flush()
	}
	return n, err
}

// parseLogOptions reads container, follow, previous, timestamps,
// tailLines, sinceSeconds, sinceTime and limitBytes.
func parseLogOptions(q url.Values) (*corev1.PodLogOptions, error) {
	opts := &corev1.PodLogOptions{Container: q.Get("container")}
	var err error
	for name, dst := range map[string]*bool{"follow": &opts.Follow, "previous": &opts.Previous, "timestamps": &opts.Timestamps} {
		if *dst, err = boolParam(q, name); err != nil {
			return nil, err
		}
	}
	for name, dst := range map[string]**int64{"tailLines": &opts.TailLines, "sinceSeconds": &opts.SinceSeconds, "limitBytes": &opts.LimitBytes} {
		n, ok, err := intParam(q, name)
		if err != nil {
			return nil, err
		}
		if ok && n == 0 && name != "tailLines" {
			return nil, badRequest("query parameter %s=0: must be greater than 0", name)
		}
		if ok {
			*dst = &n
		}
	}
	return opts, parseSinceTime(q.Get("sinceTime"), opts)
}

func parseSinceTime(v string, opts *corev1.PodLogOptions) error {
	if v == "" {
		return nil
	}
	t, err := time.Parse(time.RFC3339, v)
	if err != nil {
		return badRequest("query parameter sinceTime=%q: must be an RFC 3339 time such as 2026-01-02T15:04:05Z", v)
	}
	if opts.SinceSeconds != nil {
		return badRequest("at most one of sinceTime or sinceSeconds may be specified")
	}
	mt := metav1.NewTime(t)
	opts.SinceTime = &mt
	return nil
}

// pickContainer resolves the container to read (init and ephemeral ones
// included): the one asked for, the pod's only container, or its
// default-container annotation.
func pickContainer(pod *corev1.Pod, name string) (string, error) {
	var names []string
	for _, c := range pod.Spec.Containers {
		names = append(names, c.Name)
	}
	for _, c := range pod.Spec.InitContainers {
		names = append(names, c.Name)
	}
	for _, c := range pod.Spec.EphemeralContainers {
		names = append(names, c.Name)
	}
	if name == "" {
		if len(pod.Spec.Containers) == 1 {
			return pod.Spec.Containers[0].Name, nil
		}
		if def := pod.Annotations[defaultContainerAnnotation]; def != "" && slices.Contains(names, def) {
			return def, nil
		}
		return "", badRequest("a container name must be specified for pod %s, choose one of: [%s]", pod.Name, strings.Join(names, " "))
	}
	if !slices.Contains(names, name) {
		return "", badRequest("container %s is not valid for pod %s", name, pod.Name)
	}
	return name, nil
}
