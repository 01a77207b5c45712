package pods

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
)

func ephemeral(name, target string) corev1.EphemeralContainer {
	return corev1.EphemeralContainer{TargetContainerName: target,
		EphemeralContainerCommon: corev1.EphemeralContainerCommon{Name: name, Image: "busybox", Stdin: true, TTY: true}}
}

// TestEphemeralContainerStartsOnce: an ephemeral container added to a
// running pod starts in its target's PID namespace, is reported apart
// from the app containers, and is never restarted after it exits.
func TestEphemeralContainerStartsOnce(t *testing.T) {
	h := newHarness(t, testPod(corev1.RestartPolicyAlways, "app"))
	h.step()
	h.rt.ctrs[h.rt.running("app")[0]].status.Pid = 4242
	h.step()
	h.pod.Spec.EphemeralContainers = []corev1.EphemeralContainer{ephemeral("dbg", "app")}
	s := h.step()
	ids := h.rt.running("dbg")
	if len(ids) != 1 {
		t.Fatalf("got %d running dbg containers, want 1", len(ids))
	}
	spec := h.rt.ctrs[ids[0]].spec
	if spec.Security.PIDNamespace != "/proc/4242/ns/pid" || !spec.Stdin || !spec.TTY {
		t.Fatalf("got pid namespace %q stdin %v tty %v, want /proc/4242/ns/pid with stdin and tty",
			spec.Security.PIDNamespace, spec.Stdin, spec.TTY)
	}
	if len(s.ContainerStatuses) != 1 || len(s.EphemeralContainerStatuses) != 1 {
		t.Fatalf("got %d app and %d ephemeral statuses, want 1 and 1", len(s.ContainerStatuses), len(s.EphemeralContainerStatuses))
	}
	es := s.EphemeralContainerStatuses[0]
	if es.State.Running == nil || es.Ready || !strings.HasPrefix(es.ContainerID, "containerd://") || es.ImageID == "" {
		t.Fatalf("got %+v, want running, not ready, with container and image IDs", es)
	}
	h.rt.exit("dbg", 0, false)
	for range 3 {
		h.clock.Advance(time.Minute)
		s = h.step()
	}
	if n := len(h.rt.running("dbg")); n != 0 || h.rt.count() != 2 {
		t.Fatalf("got %d running dbg and %d containers, want 0 and 2: an ephemeral container never restarts", n, h.rt.count())
	}
	if term := s.EphemeralContainerStatuses[0].State.Terminated; term == nil || term.ExitCode != 0 || s.Phase != corev1.PodRunning {
		t.Fatalf("got %+v in phase %s, want terminated with 0 in a running pod", s.EphemeralContainerStatuses[0].State, s.Phase)
	}
}

// TestEphemeralTargetNotRunning: a target that is not running holds the
// start back with a reason naming it.
func TestEphemeralTargetNotRunning(t *testing.T) {
	h := newHarness(t, testPod(corev1.RestartPolicyOnFailure, "app", "quit"))
	h.rt.autoExit["quit"] = 0
	h.step()
	h.step()
	h.pod.Spec.EphemeralContainers = []corev1.EphemeralContainer{ephemeral("dbg", "quit")}
	s := h.step()
	w := s.EphemeralContainerStatuses[0].State.Waiting
	if w == nil || w.Reason != "CreateContainerConfigError" || !strings.Contains(w.Message, `target container "quit" is not running`) {
		t.Fatalf("got %+v, want CreateContainerConfigError naming the target", s.EphemeralContainerStatuses[0].State)
	}
}

// TestEphemeralRefusedWithoutExec: a node that refuses exec does not run
// ephemeral containers either; the status says why.
func TestEphemeralRefusedWithoutExec(t *testing.T) {
	h := newHarness(t, testPod(corev1.RestartPolicyAlways, "app"))
	h.w.m.cfg.RefuseEphemeral = true
	h.step()
	h.pod.Spec.EphemeralContainers = []corev1.EphemeralContainer{ephemeral("dbg", "")}
	s := h.step()
	if n := len(h.rt.running("dbg")); n != 0 {
		t.Fatalf("got %d running dbg containers, want 0", n)
	}
	w := s.EphemeralContainerStatuses[0].State.Waiting
	if w == nil || !strings.Contains(w.Message, `ephemeral containers are refused on node "pi-1" (--disable-exec)`) {
		t.Fatalf("got %+v, want waiting with the refusal", s.EphemeralContainerStatuses[0].State)
	}
}
