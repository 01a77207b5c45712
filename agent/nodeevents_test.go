package agent

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/bramble-edge/bramble/agent/events"
	"github.com/bramble-edge/bramble/agent/nodeinfo"
	"github.com/bramble-edge/bramble/mqtt"
)

// keep is an events.Publisher that keeps the events it is given.
type keep struct{ evs []mqtt.NodeEvent }

func (k *keep) Publish(_ context.Context, _ string, _ byte, payload []byte) error {
	r, err := mqtt.DecodeEvents(payload)
	if err != nil {
		return err
	}
	k.evs = append(k.evs, r.Events...)
	return nil
}

func sent(t *testing.T, rec *events.Recorder) []mqtt.NodeEvent {
	t.Helper()
	k := &keep{}
	if _, err := rec.Flush(context.Background(), k); err != nil {
		t.Fatal(err)
	}
	return k.evs
}

func TestRebootedWhenTheBootIDChanges(t *testing.T) {
	dir := t.TempDir()
	boot := filepath.Join(dir, "boot_id")
	t.Setenv(BootIDFileEnv, boot)
	rec := events.New("pi-0", events.Config{})
	write := func(id string) {
		if err := os.WriteFile(boot, []byte(id+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("boot-1")
	if err := noteBoot(rec, dir, "pi-0"); err != nil {
		t.Fatal(err)
	}
	if err := noteBoot(rec, dir, "pi-0"); err != nil {
		t.Fatal(err)
	}
	if evs := sent(t, rec); len(evs) != 0 {
		t.Fatalf("first start and a restart without reboot: got %+v, want no event", evs)
	}
	write("boot-2")
	if err := noteBoot(rec, dir, "pi-0"); err != nil {
		t.Fatal(err)
	}
	evs := sent(t, rec)
	if len(evs) != 1 || evs[0].Reason != "Rebooted" || evs[0].Message != "Node pi-0 has been rebooted, boot id: boot-2" ||
		evs[0].Object.Kind != "Node" || evs[0].Type != "Warning" {
		t.Fatalf("after the boot id changed: got %+v, want one Warning Rebooted about Node pi-0", evs)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, bootIDFile)); string(got) != "boot-2\n" {
		t.Errorf("kept boot id: got %q, want boot-2", got)
	}
}

func TestReadyTransitionsAreTold(t *testing.T) {
	rec := events.New("pi-0", events.Config{})
	w := &readyWatch{rec: rec, node: "pi-0"}
	node := func(st corev1.ConditionStatus) *nodeinfo.Node {
		return &nodeinfo.Node{Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: st}}}}
	}
	for _, st := range []corev1.ConditionStatus{corev1.ConditionTrue, corev1.ConditionTrue, corev1.ConditionFalse, corev1.ConditionFalse, corev1.ConditionTrue} {
		w.see(node(st))
	}
	evs := sent(t, rec)
	if len(evs) != 2 || evs[0].Reason != "NodeReady" || evs[0].Count != 2 || evs[1].Reason != "NodeNotReady" || evs[1].Count != 1 {
		t.Fatalf("got %+v, want NodeReady x2 and NodeNotReady x1", evs)
	}
}

func TestImageGCFailureIsTold(t *testing.T) {
	rec := events.New("pi-0", events.Config{})
	gcEvents(rec, "pi-0")(ImageGC{Path: t.TempDir(), High: 100}, nil, errors.New("image gc: desired pods: store closed"))
	gcEvents(rec, "pi-0")(ImageGC{Path: t.TempDir(), High: 0}, []string{"a"}, nil)
	evs := sent(t, rec)
	if len(evs) != 2 || evs[0].Reason != "ImageGCFailed" || evs[0].Message != "image gc: desired pods: store closed" ||
		evs[1].Reason != "FreeDiskSpaceFailed" {
		t.Fatalf("got %+v, want ImageGCFailed with the error, then FreeDiskSpaceFailed (disk over a 0%% threshold)", evs)
	}
}
