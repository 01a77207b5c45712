package imageregistry

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/containerd/containerd/images"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
)

const (
	seedDockerList = `{"schemaVersion":2,"mediaType":"application/vnd.docker.distribution.manifest.list.v2+json","manifests":[
{"mediaType":"application/vnd.docker.distribution.manifest.v2+json","digest":"sha256:aa","size":1,"platform":{"os":"linux","architecture":"arm","variant":"v6"}},
{"mediaType":"application/vnd.docker.distribution.manifest.v2+json","digest":"sha256:bb","size":1,"platform":{"os":"Linux","architecture":"ARM64","variant":"v8"}},
{"mediaType":"application/vnd.docker.distribution.manifest.v2+json","digest":"sha256:cc","size":1,"platform":{"os":"linux","architecture":"arm","variant":"v6"}},
{"mediaType":"application/vnd.docker.distribution.manifest.v2+json","digest":"sha256:dd","size":1}]}`
	seedManifest = `{"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json",
"config":{"mediaType":"application/vnd.oci.image.config.v1+json","digest":"sha256:ee","size":2},"layers":[]}`
	seedConfig = `{"architecture":"arm","os":"linux","variant":"v7","rootfs":{"type":"layers","diff_ids":[]}}`
)

func TestParseManifestPlatforms(t *testing.T) {
	tests := []struct {
		name, mediaType, body string
		want                  []string
		config                string // digest of the config to fetch next
		err                   string
	}{
		{"docker manifest list", images.MediaTypeDockerSchema2ManifestList, seedDockerList,
			[]string{"linux/arm/v6", "linux/arm64/v8"}, "", ""},
		{"oci manifest", ocispec.MediaTypeImageManifest, seedManifest, nil, "sha256:ee", ""},
		{"generic content type, index inside", "application/json", seedDockerList,
			[]string{"linux/arm/v6", "linux/arm64/v8"}, "", ""},
		{"generic content type, manifest inside", "", seedManifest, nil, "sha256:ee", ""},
		{"index of attestations only", ocispec.MediaTypeImageIndex,
			`{"manifests":[{"digest":"sha256:aa","platform":{"os":"unknown","architecture":"unknown"}}]}`, nil, "", "no platform"},
		{"manifest without config", ocispec.MediaTypeImageManifest, `{"layers":[]}`, nil, "", "no config"},
		{"schema 1", "application/vnd.docker.distribution.manifest.v1+prettyjws", `{"schemaVersion":1}`, nil, "", "neither"},
		{"not json", ocispec.MediaTypeImageIndex, `<html>`, nil, "", "decode"},
	}
	for _, tc := range tests {
		got, config, err := parseManifestPlatforms(tc.mediaType, []byte(tc.body))
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: got error %v, want one containing %q", tc.name, err, tc.err)
			}
			continue
		}
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("%s: got %v, %v, want %v", tc.name, got, err, tc.want)
		}
		if gotCfg := ""; config != nil {
			gotCfg = config.Digest.String()
			if gotCfg != tc.config {
				t.Errorf("%s: got config %s, want %q", tc.name, gotCfg, tc.config)
			}
		} else if tc.config != "" {
			t.Errorf("%s: got no config, want %s", tc.name, tc.config)
		}
	}
}

func TestParseConfigPlatform(t *testing.T) {
	tests := map[string]string{
		seedConfig:                              "linux/arm/v7",
		`{"architecture":"amd64","os":"linux"}`: "linux/amd64",
		`{"architecture":"arm64","os":"linux","variant":"v8"}`: "linux/arm64/v8",
		`{"os":"linux"}`:                      "",
		`{"architecture":"a/b","os":"linux"}`: "",
		`[]`:                                  "",
	}
	for body, want := range tests {
		got, err := parseConfigPlatform([]byte(body))
		if got != want || (err == nil) != (want != "") {
			t.Errorf("parseConfigPlatform(%s): got %q, %v, want %q", body, got, err, want)
		}
	}
}

// FuzzParseManifestPlatforms feeds registry answers to the decoders:
// they must not panic, and what they accept is well formed.
func FuzzParseManifestPlatforms(f *testing.F) {
	for _, seed := range []string{seedDockerList, seedManifest, seedConfig, `{}`, `{"manifests":null}`, `null`} {
		f.Add(ocispec.MediaTypeImageIndex, seed)
		f.Add("", seed)
	}
	f.Fuzz(func(t *testing.T, mediaType, body string) {
		list, config, err := parseManifestPlatforms(mediaType, []byte(body))
		if err == nil && len(list) == 0 && config == nil {
			t.Fatalf("accepted %q with neither platforms nor a config", body)
		}
		for _, p := range list {
			if n := strings.Count(p, "/"); n < 1 || n > 2 {
				t.Fatalf("platform %q from %q: want os/arch[/variant]", p, body)
			}
		}
		if p, err := parseConfigPlatform([]byte(body)); err == nil && strings.Count(p, "/") < 1 {
			t.Fatalf("config platform %q from %q: want os/arch[/variant]", p, body)
		}
	})
}

func TestNegativeTTLDoubles(t *testing.T) {
	for failures, want := range map[int]time.Duration{1: time.Minute, 2: 2 * time.Minute, 3: 4 * time.Minute, 6: 30 * time.Minute, 40: 30 * time.Minute} {
		if got := negativeTTL(time.Minute, failures); got != want {
			t.Errorf("negativeTTL(1m, %d): got %v, want %v", failures, got, want)
		}
	}
	if got := negativeTTL(time.Hour, 3); got != time.Hour {
		t.Errorf("negativeTTL(1h, 3): got %v, want 1h (a base above the cap is kept)", got)
	}
}

func TestPlatformCacheIdleAndBadReferences(t *testing.T) {
	reg := newOCIRegistry(t, "", "")
	c, err := NewPlatformCache(PlatformCacheConfig{Registries: mirrorTo(reg)})
	if err != nil {
		t.Fatal(err)
	}
	if _, known := c.Platforms("registry.test.invalid/a:1"); known || c.Pending("registry.test.invalid/a:1") || reg.requests.Load() != 0 {
		t.Errorf("before Start: got a lookup, want none")
	}
	if err := c.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer c.Stop()
	for _, bad := range []string{"", "Nginx:1", "a:b:c", "registry.test.invalid/x@sha256:short"} {
		if _, known := c.Platforms(bad); known || c.Pending(bad) {
			t.Errorf("bad reference %q: got known=%v pending=%v, want neither", bad, known, c.Pending(bad))
		}
	}
	if reg.requests.Load() != 0 {
		t.Errorf("bad references: got %d registry requests, want none", reg.requests.Load())
	}
	if _, err := NewPlatformCache(PlatformCacheConfig{Registries: Config{
		Mirrors: map[string]Mirror{"x": {Endpoints: []string{"ftp://x"}}}}}); err == nil {
		t.Errorf("bad mirror endpoint: got no error, want one")
	}
}
