package pods

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"

	corev1 "k8s.io/api/core/v1"

	"github.com/bramble-edge/bramble/agent/runtime"
)

// The kubelet's bounds on a termination message: 4 KiB from the file;
// from the log (FallbackToLogsOnError) the last 80 lines, at most 2 KiB.
const (
	maxTermMessage = 4096
	maxLogMessage  = 2048
	logMessageTail = 80
)

// termMessageMount makes the empty file a container attempt writes its
// termination message to, mounted at terminationMessagePath (default
// /dev/termination-log), as the kubelet does.
func (w *worker) termMessageMount(c *corev1.Container, id string) (runtime.Mount, error) {
	path := c.TerminationMessagePath
	if path == "" {
		path = corev1.TerminationMessagePathDefault
	}
	host := w.termMessageFile(id)
	if err := os.MkdirAll(filepath.Dir(host), 0o755); err != nil {
		return runtime.Mount{}, fmt.Errorf("termination message file: %w", err)
	}
	f, err := os.OpenFile(host, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o666)
	if err != nil {
		return runtime.Mount{}, fmt.Errorf("termination message file: %w", err)
	}
	f.Close()
	// umask would otherwise keep non-root users from writing it.
	if err := os.Chmod(host, 0o666); err != nil {
		return runtime.Mount{}, fmt.Errorf("termination message file: %w", err)
	}
	return runtime.Mount{HostPath: host, ContainerPath: path}, nil
}

func (w *worker) termMessageFile(id string) string {
	return filepath.Join(w.vols.dir, "termination", id)
}

// termMessage is an exited container's message: its file, else (with
// FallbackToLogsOnError and a failure) the tail of its log.
func (w *worker) termMessage(c *corev1.Container, rs *runtime.ContainerStatus) string {
	if b := readHead(w.termMessageFile(rs.ID), maxTermMessage); len(b) > 0 {
		return string(b)
	}
	if c == nil || c.TerminationMessagePolicy != corev1.TerminationMessageFallbackToLogsOnError ||
		rs.ExitCode == 0 || rs.LogPath == "" {
		return ""
	}
	return logTail(rs.LogPath, logMessageTail, maxLogMessage)
}

func readHead(path string, n int64) []byte {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	b, _ := io.ReadAll(io.LimitReader(f, n))
	return b
}

// logTail reads the last lines of a CRI-format log file as the container
// printed them (timestamp, stream and tag dropped), at most max bytes.
func logTail(path string, lines, limit int) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	const window = 64 << 10
	seeked := false
	if st, err := f.Stat(); err == nil && st.Size() > window {
		_, err = f.Seek(st.Size()-window, io.SeekStart)
		seeked = err == nil
	}
	raw, _ := io.ReadAll(f)
	if i := bytes.IndexByte(raw, '\n'); seeked && i >= 0 {
		raw = raw[i+1:] // a line cut by the window
	}
	var out []byte
	for _, l := range bytes.Split(raw, []byte("\n")) {
		parts := bytes.SplitN(l, []byte(" "), 4)
		if len(parts) < 4 {
			continue
		}
		out = append(out, parts[3]...)
		if string(parts[2]) != "P" {
			out = append(out, '\n')
		}
	}
	all := bytes.SplitAfter(out, []byte("\n"))
	if len(all) > 0 && len(all[len(all)-1]) == 0 {
		all = all[:len(all)-1]
	}
	out = bytes.Join(all[max(0, len(all)-lines):], nil)
	if len(out) > limit {
		out = out[len(out)-limit:]
	}
	return string(out)
}

// exitState is the exited current container's state with its message,
// read once per container.
func (w *worker) exitState(st *ctrState) *corev1.ContainerStateTerminated {
	t := terminated(st.rs)
	if st.msgID != st.rs.ID {
		pod, _ := w.snapshot()
		st.msg, st.msgID = w.termMessage(podContainer(pod, st.name), st.rs), st.rs.ID
	}
	t.Message = st.msg
	return t
}
