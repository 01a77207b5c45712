package runtime

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/opencontainers/go-digest"

	"github.com/bramble-edge/bramble/agent/runtime/runtimetest"
	"github.com/bramble-edge/bramble/imageregistry"
)

func pushBusybox(t testing.TB, reg *testRegistry, repo, tag string) *runtimetest.Image {
	t.Helper()
	img, err := runtimetest.Busybox(repo+":"+tag, map[string]string{"pushed": tag})
	if err != nil {
		t.Fatal(err)
	}
	reg.push(repo, tag, img)
	return img
}

func TestPullThroughPlainHTTPMirrorWithAuth(t *testing.T) {
	reg := newTestRegistry(t, "pi", "secret")
	img := pushBusybox(t, reg, "lib/busybox", "pulled")
	rt := newRuntime(t, "")
	rt.cfg.Registries = imageregistry.Config{
		Mirrors: map[string]imageregistry.Mirror{"registry.invalid": {Endpoints: []string{reg.URL}}},
		Configs: map[string]imageregistry.HostConfig{reg.host(): {Auth: &imageregistry.AuthConfig{Username: "pi", Password: "secret"}}},
	}
	ctx := context.Background()
	got, err := rt.EnsureImage(ctx, "registry.invalid/lib/busybox:pulled", PullIfNotPresent, nil)
	if err != nil {
		t.Fatalf("EnsureImage: %v", err)
	}
	if want := digest.FromBytes(img.Manifest).String(); got.Name != "registry.invalid/lib/busybox:pulled" || got.Digest != want {
		t.Errorf("EnsureImage: got %s %s, want registry.invalid/lib/busybox:pulled %s", got.Name, got.Digest, want)
	}
	if log := strings.Join(reg.requestLog(), "\n"); !strings.Contains(log, "ns=registry.invalid") {
		t.Errorf("mirror requests: got\n%s\nwant them to name the mirrored registry (ns=registry.invalid)", log)
	}
	logPath := filepath.Join(t.TempDir(), "0.log")
	spec := ContainerSpec{ID: "pulled", Image: "registry.invalid/lib/busybox:pulled", LogPath: logPath, Command: []string{"echo", "pulled and ran"}}
	if err := rt.RunContainer(ctx, spec); err != nil {
		t.Fatalf("RunContainer from the pulled image: %v", err)
	}
	waitFile(t, logPath, "stdout F pulled and ran", 10*time.Second)
	before := len(reg.requestLog())
	if _, err := rt.EnsureImage(ctx, "registry.invalid/lib/busybox:pulled", PullIfNotPresent, nil); err != nil {
		t.Fatal(err)
	}
	if after := len(reg.requestLog()); after != before {
		t.Errorf("IfNotPresent with the image present: got %d registry requests, want 0", after-before)
	}
	if _, err := rt.EnsureImage(ctx, "registry.invalid/lib/busybox:pulled", PullAlways, nil); err != nil {
		t.Fatal(err)
	}
	if after := len(reg.requestLog()); after == before {
		t.Errorf("Always with the image present: got no registry request, want a resolve")
	}
}

func TestPullWithPullSecretCredentials(t *testing.T) {
	reg := newTestRegistry(t, "pi", "secret")
	pushBusybox(t, reg, "lib/busybox", "v2")
	rt := newRuntime(t, "")
	ctx := context.Background()
	// A registry on loopback may speak plain HTTP without any config.
	ref := reg.host() + "/lib/busybox:v2"
	dockerConfig := func(pass string) imageregistry.Credentials {
		auth := base64.StdEncoding.EncodeToString([]byte("pi:" + pass))
		creds, err := imageregistry.ParseDockerConfig([]byte(fmt.Sprintf(`{"auths":{"http://%s":{"auth":%q}}}`, reg.host(), auth)))
		if err != nil {
			t.Fatal(err)
		}
		return creds
	}
	if _, err := rt.EnsureImage(ctx, ref, PullIfNotPresent, nil); err == nil {
		t.Errorf("pull without credentials: got nil error, want one")
	}
	_, err := rt.EnsureImage(ctx, ref, PullIfNotPresent, dockerConfig("wrong"))
	if err == nil || !strings.Contains(err.Error(), "401") && !strings.Contains(strings.ToLower(err.Error()), "unauthorized") {
		t.Errorf("pull with a wrong password: got %v, want an unauthorized error", err)
	}
	if _, err := rt.EnsureImage(ctx, ref, PullIfNotPresent, dockerConfig("secret")); err != nil {
		t.Fatalf("pull with the pull secret: %v", err)
	}
}

func TestEnsureImagePolicies(t *testing.T) {
	rt := newRuntime(t, "")
	importBusybox(t, rt, busybox, nil)
	ctx := context.Background()
	for _, p := range []PullPolicy{"", PullIfNotPresent, PullNever} {
		got, err := rt.EnsureImage(ctx, "busybox:test", p, nil)
		if err != nil || got.Name != busybox {
			t.Errorf("EnsureImage(%q) of a present image: got %+v, %v; want %s", p, got, err, busybox)
		}
	}
	if _, err := rt.EnsureImage(ctx, "busybox:absent", PullNever, nil); !errors.Is(err, ErrNotFound) {
		t.Errorf("Never with the image absent: got %v, want ErrNotFound", err)
	}
	if _, err := rt.EnsureImage(ctx, "busybox:test", "Sometimes", nil); err == nil || !strings.Contains(err.Error(), "Sometimes") {
		t.Errorf("unknown policy: got %v, want an error naming it", err)
	}
	if _, err := rt.EnsureImage(ctx, "Not A Ref", PullNever, nil); err == nil || !strings.Contains(err.Error(), "Not A Ref") {
		t.Errorf("bad reference: got %v, want an error naming it", err)
	}
}
