package pods

import (
	"context"
	"fmt"
	"io"
	"sort"
	"sync"
	"time"

	"github.com/bramble-edge/bramble/agent/runtime"
	"github.com/bramble-edge/bramble/clock"
	"github.com/bramble-edge/bramble/clock/clocktest"
	"github.com/bramble-edge/bramble/imageregistry"
)

// newFakeClock is the clock pod tests move by hand.
func newFakeClock() *clocktest.Fake {
	return clocktest.NewFake(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
}

// fakeRuntime keeps containers in memory. Containers named in autoExit
// exit as soon as they start, with that code; exit ends a running one.
type fakeRuntime struct {
	mu       sync.Mutex
	clock    clock.Clock
	ctrs     map[string]*fakeCtr
	autoExit map[string]int
	pullErr  error
	runErr   error
	execCode map[string]int // by container name
	started  []string       // container IDs in start order
	stops    map[string]time.Duration
}

type fakeCtr struct {
	spec   runtime.ContainerSpec
	status runtime.ContainerStatus
}

var _ runtime.Runtime = (*fakeRuntime)(nil)

func newFakeRuntime(clk clock.Clock) *fakeRuntime {
	return &fakeRuntime{clock: clk, ctrs: map[string]*fakeCtr{}, autoExit: map[string]int{},
		execCode: map[string]int{}, stops: map[string]time.Duration{}}
}

func (f *fakeRuntime) EnsureImage(_ context.Context, ref string, _ runtime.PullPolicy, _ imageregistry.Credentials) (runtime.Image, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.pullErr != nil {
		return runtime.Image{}, f.pullErr
	}
	return runtime.Image{Name: "docker.io/library/" + ref, Digest: "sha256:feed"}, nil
}

func (f *fakeRuntime) ImportImages(context.Context, io.Reader) ([]runtime.Image, error) {
	return nil, nil
}
func (f *fakeRuntime) ListImages(context.Context) ([]runtime.Image, error) { return nil, nil }
func (f *fakeRuntime) GarbageCollectImages(context.Context, runtime.ImageGCPolicy) ([]string, error) {
	return nil, nil
}

func (f *fakeRuntime) RunContainer(_ context.Context, s runtime.ContainerSpec) error {
	if err := s.Validate(); err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.runErr != nil {
		return f.runErr
	}
	if _, ok := f.ctrs[s.ID]; ok {
		return fmt.Errorf("container %s exists", s.ID)
	}
	now := f.clock.Now()
	st := runtime.ContainerStatus{ID: s.ID, PodUID: s.PodUID, Name: s.Name, Image: s.Image,
		ImageDigest: "sha256:feed", Labels: s.Labels, State: runtime.StateRunning, CreatedAt: now, StartedAt: now}
	if code, ok := f.autoExit[s.Name]; ok {
		st.State, st.ExitCode, st.FinishedAt = runtime.StateExited, code, now
	}
	f.ctrs[s.ID] = &fakeCtr{spec: s, status: st}
	f.started = append(f.started, s.ID)
	return nil
}

// exit ends the running container named name with code.
func (f *fakeRuntime) exit(name string, code int, oom bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, c := range f.ctrs {
		if c.spec.Name == name && c.status.State == runtime.StateRunning {
			c.status.State, c.status.ExitCode, c.status.OOMKilled = runtime.StateExited, code, oom
			c.status.FinishedAt = f.clock.Now()
		}
	}
}

func (f *fakeRuntime) StopContainer(_ context.Context, id string, grace time.Duration) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	c, ok := f.ctrs[id]
	if !ok {
		return nil
	}
	f.stops[id] = grace
	if c.status.State == runtime.StateRunning {
		c.status.State, c.status.ExitCode, c.status.FinishedAt = runtime.StateExited, 143, f.clock.Now()
	}
	return nil
}

func (f *fakeRuntime) RemoveContainer(_ context.Context, id string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.ctrs[id]; !ok {
		return fmt.Errorf("container %s: %w", id, runtime.ErrNotFound)
	}
	delete(f.ctrs, id)
	return nil
}

func (f *fakeRuntime) ContainerStatus(_ context.Context, id string) (runtime.ContainerStatus, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	c, ok := f.ctrs[id]
	if !ok {
		return runtime.ContainerStatus{}, fmt.Errorf("container %s: %w", id, runtime.ErrNotFound)
	}
	return c.status, nil
}

func (f *fakeRuntime) ListContainers(context.Context) ([]runtime.ContainerStatus, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []runtime.ContainerStatus
	for _, c := range f.ctrs {
		out = append(out, c.status)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}

func (f *fakeRuntime) Exec(_ context.Context, id string, _ []string) (runtime.ExecResult, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	c, ok := f.ctrs[id]
	if !ok || c.status.State != runtime.StateRunning {
		return runtime.ExecResult{}, fmt.Errorf("exec in %s: not running", id)
	}
	return runtime.ExecResult{ExitCode: f.execCode[c.spec.Name]}, nil
}

// running lists the IDs of running containers named name.
func (f *fakeRuntime) running(name string) []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var ids []string
	for id, c := range f.ctrs {
		if c.spec.Name == name && c.status.State == runtime.StateRunning {
			ids = append(ids, id)
		}
	}
	return ids
}

func (f *fakeRuntime) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.ctrs)
}

// fakeStore is a Lookup over maps keyed "Kind/ns/name".
type fakeStore struct {
	mu   sync.Mutex
	objs map[string]map[string][]byte
}

func (s *fakeStore) set(kind, ns, name string, data map[string]string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.objs == nil {
		s.objs = map[string]map[string][]byte{}
	}
	m := map[string][]byte{}
	for k, v := range data {
		m[k] = []byte(v)
	}
	s.objs[kind+"/"+ns+"/"+name] = m
}

func (s *fakeStore) lookup(_ context.Context, kind, ns, name string) (map[string][]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	d, ok := s.objs[kind+"/"+ns+"/"+name]
	if !ok {
		return nil, fmt.Errorf("%s %s/%s: %w", kind, ns, name, ErrNotFound)
	}
	return d, nil
}

func runtimeStatus(id, podUID string) runtime.ContainerStatus {
	return runtime.ContainerStatus{ID: id, PodUID: podUID, State: runtime.StateRunning}
}
