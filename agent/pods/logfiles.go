package pods

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/types"
)

// Where container logs live, as the kubelet lays them out, so log shippers
// (fluent-bit, promtail, vector, Alloy) find them unchanged.
const (
	DefaultPodLogDir       = "/var/log/pods"
	DefaultContainerLogDir = "/var/log/containers"
)

// logFiles places a node's container logs: an attempt of a container
// writes <pods>/<ns>_<pod>_<uid>/<container>/<attempt>.log (the attempt is
// the restart count) and <containers>/<pod>_<ns>_<container>-<id>.log links
// to it while the attempt's container exists.
type logFiles struct {
	pods, containers string
}

// podLogDir is a pod's folder under the pod log root. Namespaces and pod
// names hold no '_', so the three parts read back unambiguously.
func podLogDir(root, ns, name string, uid types.UID) string {
	return filepath.Join(root, ns+"_"+name+"_"+string(uid))
}

// attempt is the log file of one attempt of a container.
func (l logFiles) attempt(ns, pod string, uid types.UID, name string, attempt int) string {
	return filepath.Join(podLogDir(l.pods, ns, pod, uid), name, strconv.Itoa(attempt)+".log")
}

// link is the /var/log/containers name of a container's log. The ID part
// is the SHA-256 of bramble's container ID: shippers' file-name patterns
// (fluent-bit's kube tag regex among them) want 64 hex digits there.
func (l logFiles) link(ns, pod, name, containerID string) string {
	sum := sha256.Sum256([]byte(containerID))
	return filepath.Join(l.containers, pod+"_"+ns+"_"+name+"-"+hex.EncodeToString(sum[:])+".log")
}

// addLink points a container's link at its attempt's log file.
func (l logFiles) addLink(link, target string) error {
	if err := os.MkdirAll(l.containers, 0o755); err != nil {
		return fmt.Errorf("make container log dir: %w", err)
	}
	os.Remove(link)
	if err := os.Symlink(target, link); err != nil {
		return fmt.Errorf("link container log: %w", err)
	}
	return nil
}

// removeAttempt deletes an attempt's log files (rotated ones included)
// and its link, once its container is gone.
func (l logFiles) removeAttempt(ns, pod string, uid types.UID, name string, attempt int) {
	matches, _ := filepath.Glob(l.attempt(ns, pod, uid, name, attempt) + "*")
	for _, f := range matches {
		os.Remove(f)
	}
	os.Remove(l.link(ns, pod, name, ContainerID(uid, name, attempt)))
}

// removePod deletes a pod's log folder and every link into it, as the
// kubelet does when a pod goes. Only the UID is needed (orphans found
// after a restart have no name).
func (l logFiles) removePod(uid types.UID) error {
	dirs, _ := filepath.Glob(filepath.Join(l.pods, "*_*_"+string(uid)))
	if len(dirs) == 0 {
		return nil
	}
	links, _ := os.ReadDir(l.containers)
	for _, e := range links {
		p := filepath.Join(l.containers, e.Name())
		target, err := os.Readlink(p)
		if err != nil {
			continue
		}
		for _, d := range dirs {
			if strings.HasPrefix(target, d+string(filepath.Separator)) {
				os.Remove(p)
			}
		}
	}
	for _, d := range dirs {
		if err := os.RemoveAll(d); err != nil {
			return fmt.Errorf("remove pod logs: %w", err)
		}
	}
	return nil
}
