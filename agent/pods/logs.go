package pods

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/types"
)

// LogPath finds a container's log file for kubectl logs: the newest
// attempt's, or with previous the one before it. Files are
// <root>/<ns>_<pod>_<uid>/<container>/<attempt>.log, rotated ones
// with .1, .2 ... appended (the runtime's rotation).
func LogPath(root, ns, pod string, uid types.UID, container string, previous bool) (string, error) {
	dir := filepath.Join(podLogDir(root, ns, pod, uid), container)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", fmt.Errorf("logs of container %s in pod %s: %w", container, uid, err)
	}
	newest, second := -1, -1
	for _, e := range entries {
		n, err := strconv.Atoi(strings.TrimSuffix(e.Name(), ".log"))
		if err != nil || !strings.HasSuffix(e.Name(), ".log") {
			continue
		}
		switch {
		case n > newest:
			newest, second = n, newest
		case n > second && n != newest:
			second = n
		}
	}
	want := newest
	if previous {
		want = second
	}
	if want < 0 {
		return "", fmt.Errorf("logs of container %s in pod %s: no %s attempt: %w", container, uid, attemptWord(previous), os.ErrNotExist)
	}
	return filepath.Join(dir, strconv.Itoa(want)+".log"), nil
}

func attemptWord(previous bool) string {
	if previous {
		return "previous"
	}
	return "current"
}
