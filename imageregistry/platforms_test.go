package imageregistry

import (
	"context"
	"log/slog"
	"net"
	"slices"
	"sync"
	"testing"
	"time"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
)

var (
	linuxArm64 = ocispec.Platform{OS: "linux", Architecture: "arm64"}
	linuxArmV7 = ocispec.Platform{OS: "linux", Architecture: "arm", Variant: "v7"}
	linuxAmd64 = ocispec.Platform{OS: "linux", Architecture: "amd64"}
)

// startPlatformCache builds and starts a cache that logs through t.
func startPlatformCache(t testing.TB, cfg PlatformCacheConfig) *PlatformCache {
	t.Helper()
	cfg.Logger = slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelDebug}))
	c, err := NewPlatformCache(cfg)
	if err != nil {
		t.Fatalf("NewPlatformCache: %v", err)
	}
	if err := c.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Stop)
	return c
}

// settle asks for image until no lookup of it is pending, then returns
// the answer.
func settle(t testing.TB, c *PlatformCache, image string) ([]string, bool) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	c.Platforms(image)
	for c.Pending(image) {
		if time.Now().After(deadline) {
			t.Fatalf("lookup of %s still pending after 15 s", image)
		}
		time.Sleep(5 * time.Millisecond)
	}
	return c.Platforms(image)
}

// mirrorTo points the registry host "registry.test.invalid" at r over
// plain HTTP, as a registries.yaml mirror does.
func mirrorTo(r *ociRegistry) Config {
	return Config{Mirrors: map[string]Mirror{"registry.test.invalid": {Endpoints: []string{r.URL}}}}
}

func TestPlatformCacheReadsIndexesAndManifests(t *testing.T) {
	reg := newOCIRegistry(t, "", "")
	reg.pushIndex(t, "team/multi", "1", linuxArm64, linuxArmV7)
	single := reg.pushImage(t, "team/pi3", "1", linuxArmV7)
	reg.pushIndex(t, "library/busybox", "latest", linuxAmd64)
	c := startPlatformCache(t, PlatformCacheConfig{Registries: Config{
		Mirrors: map[string]Mirror{"registry.test.invalid": {Endpoints: []string{reg.URL}}, "docker.io": {Endpoints: []string{reg.URL}}}}})
	tests := []struct {
		image string
		want  []string
	}{
		{"registry.test.invalid/team/multi:1", []string{"linux/arm64", "linux/arm/v7"}},
		{"registry.test.invalid/team/pi3:1", []string{"linux/arm/v7"}},
		{"registry.test.invalid/team/pi3@" + single.Digest.String(), []string{"linux/arm/v7"}},
		{"registry.test.invalid/team/pi3:1@" + single.Digest.String(), []string{"linux/arm/v7"}},
		{reg.host() + "/team/multi:1", []string{"linux/arm64", "linux/arm/v7"}}, // loopback: plain HTTP without a mirror
		{"docker.io/library/busybox:latest", []string{"linux/amd64"}},
		{"busybox", []string{"linux/amd64"}}, // normalized to the entry above
	}
	for _, tc := range tests {
		got, known := settle(t, c, tc.image)
		if !known || !slices.Equal(got, tc.want) {
			t.Errorf("%s: got %v (known %v), want %v", tc.image, got, known, tc.want)
		}
	}
}

func TestPlatformCachePendingUntilAnswered(t *testing.T) {
	reg := newOCIRegistry(t, "", "")
	reg.pushImage(t, "team/pi3", "1", linuxArmV7)
	c := startPlatformCache(t, PlatformCacheConfig{Registries: mirrorTo(reg)})
	const image = "registry.test.invalid/team/pi3:1"
	release := reg.holdRequests()
	if got, known := c.Platforms(image); known {
		t.Fatalf("first ask: got %v, want no answer yet", got)
	}
	if !c.Pending(image) {
		t.Fatalf("Pending while the registry holds the request: got false, want true")
	}
	if _, known := c.Platforms(image); known || !c.Pending(image) {
		t.Fatalf("second ask while held: got known=%v pending=%v, want false, true", known, c.Pending(image))
	}
	release()
	if got, known := settle(t, c, image); !known || !slices.Equal(got, []string{"linux/arm/v7"}) {
		t.Errorf("after release: got %v (known %v), want [linux/arm/v7]", got, known)
	}
	before := reg.requests.Load()
	c.Platforms(image)
	if after := reg.requests.Load(); after != before || c.Pending(image) {
		t.Errorf("cached answer: got %d more requests (pending %v), want none", after-before, c.Pending(image))
	}
}

func TestPlatformCacheUsesRegistryLogins(t *testing.T) {
	reg := newOCIRegistry(t, "pi", "secret")
	reg.pushImage(t, "team/pi3", "1", linuxArmV7)
	image := reg.host() + "/team/pi3:1"
	anonymous := startPlatformCache(t, PlatformCacheConfig{})
	if got, known := settle(t, anonymous, image); known {
		t.Errorf("without a login: got %v, want no answer", got)
	}
	withLogin := startPlatformCache(t, PlatformCacheConfig{Registries: Config{
		Configs: map[string]HostConfig{reg.host(): {Auth: &AuthConfig{Username: "pi", Password: "secret"}}}}})
	if got, known := settle(t, withLogin, image); !known || !slices.Equal(got, []string{"linux/arm/v7"}) {
		t.Errorf("with the registries file's login: got %v (known %v), want [linux/arm/v7]", got, known)
	}
}

// fakeNow is a settable clock for the cache's expiry.
type fakeNow struct {
	mu sync.Mutex
	t  time.Time
}

func (f *fakeNow) now() time.Time { f.mu.Lock(); defer f.mu.Unlock(); return f.t }
func (f *fakeNow) advance(d time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.t = f.t.Add(d)
}

func TestPlatformCacheRemembersFailures(t *testing.T) {
	reg := newOCIRegistry(t, "", "")
	c := startPlatformCache(t, PlatformCacheConfig{Registries: mirrorTo(reg), Timeout: 2 * time.Second})
	clock := &fakeNow{t: time.Unix(1_700_000_000, 0)}
	c.now = clock.now
	const image = "registry.test.invalid/team/missing:1"
	if got, known := settle(t, c, image); known {
		t.Fatalf("unknown repository: got %v, want no answer", got)
	}
	before := reg.requests.Load()
	clock.advance(59 * time.Second)
	if _, known := c.Platforms(image); known || c.Pending(image) || reg.requests.Load() != before {
		t.Errorf("within a minute of the failure: got pending=%v, %d more requests, want no new lookup", c.Pending(image), reg.requests.Load()-before)
	}
	clock.advance(2 * time.Second)
	settle(t, c, image)
	if reg.requests.Load() == before {
		t.Errorf("after a minute: got no new request, want the image looked up again")
	}
	reg.pushImage(t, "team/missing", "1", linuxArm64)
	clock.advance(90 * time.Second) // the second failure backs off 2 minutes
	if _, known := c.Platforms(image); known || c.Pending(image) {
		t.Errorf("90 s after the second failure: got a new lookup, want the back-off kept")
	}
	clock.advance(31 * time.Second)
	if got, known := settle(t, c, image); !known || !slices.Equal(got, []string{"linux/arm64"}) {
		t.Errorf("once pushed and the back-off over: got %v (known %v), want [linux/arm64]", got, known)
	}
}

// silentListener accepts connections on loopback and never answers.
func silentListener(t testing.TB) net.Listener {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			conn, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, conn)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		l.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	return l
}

func TestPlatformCacheGivesUpOnSilentRegistry(t *testing.T) {
	l := silentListener(t)
	c := startPlatformCache(t, PlatformCacheConfig{Timeout: 300 * time.Millisecond, Registries: Config{
		Mirrors: map[string]Mirror{"registry.test.invalid": {Endpoints: []string{"http://" + l.Addr().String()}}}}})
	const image = "registry.test.invalid/team/app:1"
	if _, known := c.Platforms(image); known || !c.Pending(image) {
		t.Fatalf("first ask: got known=%v pending=%v, want false, true", known, c.Pending(image))
	}
	if got, known := settle(t, c, image); known || c.Pending(image) {
		t.Errorf("after the timeout: got %v (known %v, pending %v), want no answer and nothing pending", got, known, c.Pending(image))
	}
}

func TestPlatformCacheStopEndsHeldLookups(t *testing.T) {
	reg := newOCIRegistry(t, "", "")
	c := startPlatformCache(t, PlatformCacheConfig{Registries: mirrorTo(reg), Timeout: time.Minute})
	release := reg.holdRequests()
	defer release()
	c.Platforms("registry.test.invalid/a:1")
	done := make(chan struct{})
	go func() { c.Stop(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Stop: still waiting after 10 s for a lookup the registry holds, want it cancelled")
	}
	if c.Pending("registry.test.invalid/a:1") {
		t.Errorf("after Stop: got a pending lookup, want none")
	}
}
