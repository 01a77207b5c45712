package runtime

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestLogRotation has a container print numbered lines past the 64 KiB
// rotation size newRuntime sets; three files stay, in order, none too big.
func TestLogRotation(t *testing.T) {
	rt := newRuntime(t, "")
	importBusybox(t, rt, busybox, nil)
	logPath := filepath.Join(t.TempDir(), "0.log")
	const n = 6000 // ~60 bytes per CRI line: about 5 rotations
	script := fmt.Sprintf(`for i in $(seq 1 %d); do echo "line $i padding-padding"; done`, n)
	if err := rt.RunContainer(context.Background(), ContainerSpec{ID: "chatty", Image: busybox, LogPath: logPath, Command: []string{"sh", "-c", script}}); err != nil {
		t.Fatal(err)
	}
	waitState(t, rt, "chatty", StateExited, 30*time.Second)
	waitFile(t, logPath, fmt.Sprintf("line %d padding", n), 10*time.Second)
	if _, err := os.Stat(logPath + ".3"); !os.IsNotExist(err) {
		t.Errorf("%s.3: got %v, want it absent (3 files kept)", logPath, err)
	}
	var nums []int
	for _, p := range []string{logPath + ".2", logPath + ".1", logPath} {
		content := readFile(t, p)
		if len(content) > 64<<10 {
			t.Errorf("%s: got %d bytes, want at most %d", p, len(content), 64<<10)
		}
		for _, l := range strings.Split(strings.TrimSuffix(content, "\n"), "\n") {
			m := criLine.FindStringSubmatch(l)
			if m == nil {
				t.Fatalf("%s: line %q is not a CRI line", p, l)
			}
			num, err := strconv.Atoi(strings.Fields(m[4])[1])
			if err != nil {
				t.Fatalf("%s: line %q: %v", p, l, err)
			}
			nums = append(nums, num)
		}
	}
	for i := range nums {
		if nums[i] != nums[0]+i {
			t.Fatalf("lines across the kept files: got %d after %d, want consecutive numbers", nums[i], nums[i-1])
		}
	}
	if nums[len(nums)-1] != n || nums[0] == 1 {
		t.Errorf("kept lines: got %d..%d, want a rotated-away start and the last line %d", nums[0], nums[len(nums)-1], n)
	}
}
