package agent

import (
	"context"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bramble-edge/bramble/agent/runtime"
)

type recordingCollector struct{ calls []runtime.ImageGCPolicy }

func (r *recordingCollector) GarbageCollectImages(_ context.Context, p runtime.ImageGCPolicy) ([]string, error) {
	r.calls = append(r.calls, p)
	return []string{"docker.io/library/old:1"}, nil
}

func TestCollectImagesOnlyOverTheHighThreshold(t *testing.T) {
	dir := t.TempDir()
	used, err := usedPercent(dir)
	if err != nil {
		t.Fatal(err)
	}
	if used < 1 || used > 99 {
		t.Fatalf("test filesystem is %.1f%% used; need 1-99%% to place thresholds around it", used)
	}
	wanted := func() ([]string, error) { return []string{"busybox:1"}, nil }
	var rc recordingCollector
	// Below the high threshold: nothing happens.
	g := ImageGC{High: 100, Low: 100, Interval: time.Minute, Path: dir}
	if got, err := collectImages(context.Background(), g, &rc, wanted, slog.Default()); err != nil || got != nil || len(rc.calls) != 0 {
		t.Fatalf("under threshold: got %v, %v, %d calls; want nothing", got, err, len(rc.calls))
	}
	// Above it: collect down to the low threshold, keeping desired images.
	g = ImageGC{High: 0, Low: 0, Interval: time.Minute, Path: dir}
	got, err := collectImages(context.Background(), g, &rc, wanted, slog.Default())
	if err != nil || len(got) != 1 || len(rc.calls) != 1 {
		t.Fatalf("over threshold: got %v, %v, %d calls; want one collection", got, err, len(rc.calls))
	}
	p := rc.calls[0]
	if p.MinFreePercent != 100 || p.Path != dir || !slices.Equal(p.Keep, []string{"busybox:1"}) {
		t.Errorf("policy: got %+v, want MinFreePercent 100, Path %s, Keep [busybox:1]", p, dir)
	}
}

func TestImageGCValidate(t *testing.T) {
	for _, tt := range []struct {
		g    ImageGC
		want string
	}{
		{ImageGC{High: 85, Low: 80, Interval: time.Minute}, ""},
		{ImageGC{High: 101, Low: 80, Interval: time.Minute}, "--image-gc-high-threshold"},
		{ImageGC{High: 85, Low: -1, Interval: time.Minute}, "--image-gc-low-threshold"},
		{ImageGC{High: 70, Low: 80, Interval: time.Minute}, "at most --image-gc-high-threshold"},
		{ImageGC{High: 85, Low: 80, Interval: time.Millisecond}, "--image-gc-interval"},
	} {
		err := tt.g.Validate()
		if tt.want == "" && err != nil || tt.want != "" && (err == nil || !contains(err.Error(), tt.want)) {
			t.Errorf("%+v: got %v, want error containing %q", tt.g, err, tt.want)
		}
	}
}

func contains(s, sub string) bool { return len(sub) > 0 && strings.Contains(s, sub) }
