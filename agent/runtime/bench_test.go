package runtime

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkRunContainer measures RunContainer (image present, log driver
// attached) until the task is running, then removes the container outside
// the timer.
func BenchmarkRunContainer(b *testing.B) {
	rt := newRuntime(b, "")
	importBusybox(b, rt, busybox, nil)
	ctx := context.Background()
	dir := b.TempDir()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		id := fmt.Sprintf("bench-%d", i)
		err := rt.RunContainer(ctx, ContainerSpec{ID: id, Image: busybox, LogPath: filepath.Join(dir, id+".log"), Command: []string{"sleep", "60"}})
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		waitState(b, rt, id, StateRunning, 10*time.Second)
		if err := rt.RemoveContainer(ctx, id); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
}

// BenchmarkContainerStatus measures one status read of a running container.
func BenchmarkContainerStatus(b *testing.B) {
	rt := newRuntime(b, "")
	importBusybox(b, rt, busybox, nil)
	ctx := context.Background()
	if err := rt.RunContainer(ctx, ContainerSpec{ID: "status", Image: busybox, Command: []string{"sleep", "60"}}); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := rt.ContainerStatus(ctx, "status"); err != nil {
			b.Fatal(err)
		}
	}
}
