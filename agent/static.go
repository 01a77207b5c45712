package agent

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/internal/periodic"
)

// Static pods run from manifests in <data-dir>/agent/pod-manifests/*.yaml
// (or .yml, .json) without the server, as the kubelet's static pods do:
// the pod's name gets "-<node>" appended, its namespace defaults to
// "default", and its UID is derived from the node and the manifest's bytes,
// so an edited manifest replaces the pod. They are not API objects: the
// agent neither creates mirror pods nor reports their status.

// staticUIDPrefix marks static pods' UIDs.
const staticUIDPrefix = "static-"

// isStaticUID says whether uid belongs to a static pod.
func isStaticUID(uid types.UID) bool { return strings.HasPrefix(string(uid), staticUIDPrefix) }

// staticPods reads a manifests folder and remembers what it last read, so
// the caller syncs only when something changed.
type staticPods struct {
	dir  string
	node string

	mu     sync.Mutex
	last   string // digest of the last set read
	synced bool   // the manager has been synced once
}

// read returns the static pods and whether the set differs from the last
// read. A manifest that does not parse is an error naming its file; the
// others still run.
func (s *staticPods) read() ([]*corev1.Pod, bool, []error) {
	var errs []error
	names, err := filepath.Glob(filepath.Join(s.dir, "*"))
	if err != nil {
		return nil, false, []error{err}
	}
	sort.Strings(names)
	var pods []*corev1.Pod
	digest := sha256.New()
	for _, path := range names {
		ext := filepath.Ext(path)
		if ext != ".yaml" && ext != ".yml" && ext != ".json" {
			continue
		}
		data, err := os.ReadFile(path)
		if err != nil {
			errs = append(errs, fmt.Errorf("static pod %s: %w", path, err))
			continue
		}
		pod, err := parseStaticPod(data, s.node)
		if err != nil {
			errs = append(errs, fmt.Errorf("static pod %s: %w", path, err))
			continue
		}
		digest.Write([]byte(path + "\x00" + string(pod.UID) + "\x00"))
		pods = append(pods, pod)
	}
	sum := hex.EncodeToString(digest.Sum(nil))
	s.mu.Lock()
	changed := sum != s.last
	s.last = sum
	s.mu.Unlock()
	return pods, changed, errs
}

// parseStaticPod decodes one manifest into the pod the agent runs.
func parseStaticPod(data []byte, node string) (*corev1.Pod, error) {
	js, err := api.YAMLToJSON(data, true)
	if err != nil {
		return nil, err
	}
	var pod corev1.Pod
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&pod); err != nil {
		return nil, fmt.Errorf("decode: %w", err)
	}
	if pod.Kind != "Pod" || pod.APIVersion != "v1" {
		return nil, fmt.Errorf("kind: got %q %q, want apiVersion v1, kind Pod", pod.APIVersion, pod.Kind)
	}
	if pod.Name == "" || len(pod.Spec.Containers) == 0 {
		return nil, fmt.Errorf("metadata.name and spec.containers are required")
	}
	if pod.Namespace == "" {
		pod.Namespace = metav1.NamespaceDefault
	}
	pod.Name += "-" + node
	pod.Spec.NodeName = node
	sum := sha256.Sum256(append([]byte(node+"\x00"), data...))
	pod.UID = types.UID(staticUIDPrefix + hex.EncodeToString(sum[:16]))
	api.Default(&pod)
	return &pod, nil
}

// syncStatic reads the manifests and, when the set changed, syncs the pod
// manager with it (the first call always syncs: it also starts the pods
// from the local store).
func (a *agent) syncStatic() {
	static, changed, errs := a.static.read()
	for _, err := range errs {
		a.cfg.Logger.Error("static pod", "err", err)
	}
	if !changed && a.static.synced {
		return
	}
	a.static.synced = true
	if err := a.applier.SetStatic(static); err != nil {
		a.cfg.Logger.Error("sync pods", "err", err)
	}
}

// watchStatic looks at the manifests every ImagePoll until ctx ends.
func (a *agent) watchStatic(ctx context.Context) {
	periodic.Every(ctx, a.cfg.ImagePoll, a.syncStatic)
}
