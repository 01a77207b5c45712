package runtime

import (
	"context"
	"reflect"
	"sort"
	"testing"
	"time"
)

func TestImageGCRemovesUnusedLeastRecentlyUsedFirst(t *testing.T) {
	rt := newRuntime(t, "")
	ctx := context.Background()
	importBusybox(t, rt, "docker.io/library/used:1", map[string]string{"v": "used"})
	importBusybox(t, rt, "docker.io/library/recent:1", map[string]string{"v": "recent"})
	importBusybox(t, rt, "docker.io/library/stale:1", map[string]string{"v": "stale"})
	importBusybox(t, rt, "docker.io/library/kept:1", map[string]string{"v": "kept"})
	// "recent" was imported before "stale" but used since.
	if err := rt.RunContainer(ctx, ContainerSpec{ID: "once", Image: "recent:1", Command: []string{"true"}}); err != nil {
		t.Fatal(err)
	}
	waitState(t, rt, "once", StateExited, 10*time.Second)
	if err := rt.RemoveContainer(ctx, "once"); err != nil {
		t.Fatal(err)
	}
	if err := rt.RunContainer(ctx, ContainerSpec{ID: "user", Image: "used:1", Command: []string{"sleep", "30"}}); err != nil {
		t.Fatal(err)
	}

	// The disk has enough free space: nothing goes.
	removed, err := rt.GarbageCollectImages(ctx, ImageGCPolicy{Path: testDaemon(t).Root, MinFreePercent: 0})
	if err != nil || len(removed) != 0 {
		t.Fatalf("GC with enough space: got %v, %v; want nothing removed", removed, err)
	}
	// A goal no disk meets: every unused, unkept image goes, oldest use first.
	removed, err = rt.GarbageCollectImages(ctx, ImageGCPolicy{Path: testDaemon(t).Root, MinFreePercent: 100, Keep: []string{"kept:1"}})
	if err != nil {
		t.Fatalf("GC: %v", err)
	}
	if want := []string{"docker.io/library/stale:1", "docker.io/library/recent:1"}; !reflect.DeepEqual(removed, want) {
		t.Errorf("GC removed: got %v, want %v", removed, want)
	}
	list, err := rt.ListImages(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var left []string
	for _, img := range list {
		left = append(left, img.Name)
	}
	sort.Strings(left)
	if want := []string{"docker.io/library/kept:1", "docker.io/library/used:1"}; !reflect.DeepEqual(left, want) {
		t.Errorf("images left: got %v, want %v", left, want)
	}
	if _, err := rt.GarbageCollectImages(ctx, ImageGCPolicy{Path: testDaemon(t).Root, MinFreePercent: 101}); err == nil {
		t.Errorf("GC with minFreePercent 101: got nil error, want one")
	}
}
