package scheduler

import (
	"strconv"

	"github.com/bramble-edge/bramble/api"
)

// Reasons of the volume filter, in kube-scheduler's words where it has
// them (VolumeBinding, NodeVolumeLimits).
var (
	reasonVolumeAffinity = []string{"node(s) had volume node affinity conflict"}
	reasonNoVolume       = []string{"node(s) didn't find available persistent volumes to bind"}
	reasonNoStorage      = []string{"node(s) did not have enough free storage"}
	reasonNoLocalPath    = []string{"node(s) did not report a local storage path"}
)

// volumeFilter keeps a pod on nodes its claims can be used on: the node
// affinity of bound volumes, an available static volume for each unbound
// WaitForFirstConsumer claim, and room on the node's local storage for
// the local-path claims (what the node reports, less what local-path
// volumes and placed claims already take), so an SD card is not filled.
type volumeFilter struct{}

func (volumeFilter) filter(c *cycle, n *nodeInfo) []string {
	v := c.volumes
	if v == nil {
		return nil
	}
	for _, m := range v.bound {
		if !m.Matches(n.labels, n.name) {
			return reasonVolumeAffinity
		}
	}
	for _, cands := range v.static {
		if !anyMatches(cands, n) {
			return reasonNoVolume
		}
	}
	if v.local > 0 {
		switch {
		case n.localStorage < 0:
			return reasonNoLocalPath
		case n.localStorage > 0 && v.used[n.name]+v.local > n.localStorage:
			return reasonNoStorage
		}
	}
	return nil
}

func anyMatches(ms []*api.NodeMatcher, n *nodeInfo) bool {
	for _, m := range ms {
		if m.Matches(n.labels, n.name) {
			return true
		}
	}
	return false
}

// localStorageOf reads the node's local-path figures from its agent's
// annotations: the capacity in bytes, 0 when the path is reported but
// not its size (no limit), -1 when the node reports no path.
func localStorageOf(annotations map[string]string) int64 {
	if annotations[api.AnnotationLocalStoragePath] == "" {
		return -1
	}
	n, err := strconv.ParseInt(annotations[api.AnnotationLocalStorageCapacity], 10, 64)
	if err != nil || n < 0 {
		return 0
	}
	return n
}
