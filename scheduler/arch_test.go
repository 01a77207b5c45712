package scheduler

import (
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

func TestRunsOn(t *testing.T) {
	tests := []struct {
		image, node string
		want        bool
	}{
		{"linux/arm/v7", "arm/v7", true},
		{"linux/arm/v6", "arm/v6", true},
		{"linux/arm/v6", "arm/v7", true},
		{"linux/arm/v7", "arm/v6", false},
		{"linux/arm", "arm/v7", true},  // no variant: v7
		{"linux/arm", "arm/v6", false}, // ... so not on v6
		{"linux/arm/v7", "arm", true},  // a node saying just "arm" is v7
		{"linux/arm64", "arm64", true},
		{"linux/arm64/v8", "arm64", true},
		{"linux/arm/v7", "arm64", false}, // no 32-bit compatibility assumed
		{"linux/arm64", "arm/v7", false},
		{"linux/amd64", "amd64", true},
		{"linux/amd64", "arm64", false},
		{"linux/aarch64", "arm64", true}, // aliases
		{"linux/amd64", "x86_64", true},
		{"windows/amd64", "amd64", false}, // os must match (nodes are linux)
	}
	for _, tc := range tests {
		img, ok := parsePlatform(tc.image)
		if !ok {
			t.Fatalf("parsePlatform(%q) failed", tc.image)
		}
		node := nodePlatform(makeNode("n", nodeArch(tc.node)))
		if got := runsOn(img, node); got != tc.want {
			t.Errorf("image %s on node %s: got %v, want %v", tc.image, tc.node, got, tc.want)
		}
	}
}

func TestParsePlatformRejects(t *testing.T) {
	for _, s := range []string{"", "arm64", "linux/", "/arm64", "linux/arm/v7/extra"} {
		if p, ok := parsePlatform(s); ok {
			t.Errorf("parsePlatform(%q): got %v, want a failure", s, p)
		}
	}
}

func TestNodePlatformFallsBackToLabel(t *testing.T) {
	n := makeNode("n", nodeArch(""), nodeLabels(corev1.LabelArchStable, "arm64"))
	if got := nodePlatform(n); got != (platform{os: "linux", arch: "arm64"}) {
		t.Errorf("got %v, want linux/arm64", got)
	}
}

func TestNormalizeImage(t *testing.T) {
	tests := map[string]string{
		"nginx":                             "docker.io/library/nginx:latest",
		"nginx:1.27":                        "docker.io/library/nginx:1.27",
		"library/nginx":                     "docker.io/library/nginx:latest",
		"docker.io/library/nginx:latest":    "docker.io/library/nginx:latest",
		"index.docker.io/library/nginx":     "docker.io/library/nginx:latest",
		"bramble/agent:v1":                  "docker.io/bramble/agent:v1",
		"ghcr.io/bramble-edge/app":          "ghcr.io/bramble-edge/app:latest",
		"localhost:5000/app":                "localhost:5000/app:latest",
		"registry.local:5000/team/app:2":    "registry.local:5000/team/app:2",
		"nginx@sha256:0123456789abcdef0123": "docker.io/library/nginx@sha256:0123456789abcdef0123",
		"":                                  "",
	}
	for in, want := range tests {
		if got := normalizeImage(in); got != want {
			t.Errorf("normalizeImage(%q): got %q, want %q", in, got, want)
		}
	}
}

// platformNode is a node whose annotation reports image platforms.
func platformNode(name, arch, annotation string) *corev1.Node {
	return makeNode(name, nodeArch(arch), func(n *corev1.Node) {
		if annotation != "" {
			n.Annotations = map[string]string{AnnotationImagePlatforms: annotation}
		}
	})
}

func TestArchFilter(t *testing.T) {
	nodes := []*corev1.Node{
		platformNode("amd", "amd64", `{"nginx": ["linux/amd64", "linux/arm64"], "docker.io/team/armonly:1": ["linux/arm/v7"]}`),
		platformNode("pi4", "arm64", ""),
		platformNode("pi3", "arm/v7", `{"team/v6app:1": ["linux/arm/v6"]}`),
		platformNode("zero", "arm/v6", ""),
	}
	e := newEnv(t, nodes)
	tests := []struct {
		image string
		want  map[string]bool // node -> fits
	}{
		{"docker.io/library/nginx:latest", map[string]bool{"amd": true, "pi4": true, "pi3": false, "zero": false}},
		{"team/armonly:1", map[string]bool{"amd": false, "pi4": false, "pi3": true, "zero": false}},
		{"team/v6app:1", map[string]bool{"amd": false, "pi4": false, "pi3": true, "zero": true}},
		{"unknown/image:1", map[string]bool{"amd": true, "pi4": true, "pi3": true, "zero": true}},
	}
	for _, tc := range tests {
		for node, fits := range tc.want {
			got := e.filterResult(archFilter{}, makePod("default", "p", podImage(tc.image)), node)
			if (got == nil) != fits {
				t.Errorf("%s on %s: got reasons %q, want fits=%v", tc.image, node, got, fits)
			}
		}
	}
	got := e.filterResult(archFilter{}, makePod("default", "p"), "pi3")
	want := []string{"node(s) didn't match the image's architecture (image supports linux/amd64, linux/arm64)"}
	if !slices.Equal(got, want) {
		t.Errorf("reason: got %q, want %q", got, want)
	}
}

// staticPlatforms is an extra ImagePlatforms source for tests.
type staticPlatforms map[string][]string

func (s staticPlatforms) Platforms(image string) ([]string, bool) {
	p, ok := s[image]
	return p, ok
}

func TestArchExtraSource(t *testing.T) {
	e := newEnv(t, []*corev1.Node{platformNode("amd", "amd64", ""), platformNode("pi4", "arm64", "")})
	e.algo.extra = staticPlatforms{"docker.io/library/nginx:latest": {"linux/arm64"}}
	if got := e.filterResult(archFilter{}, makePod("default", "p"), "amd"); got == nil {
		t.Errorf("amd64 node: got a fit, want the extra source to restrict nginx to arm64")
	}
	if got := e.filterResult(archFilter{}, makePod("default", "p"), "pi4"); got != nil {
		t.Errorf("arm64 node: got %q, want a fit", got)
	}
}

func TestPlatformIndexFollowsNodes(t *testing.T) {
	e := newEnv(t, []*corev1.Node{platformNode("a", "amd64", `{"nginx": ["linux/arm64"]}`),
		platformNode("b", "amd64", `{"nginx": ["linux/amd64"]}`)})
	e.cache.updateSnapshot(e.snap)
	if got, _ := e.snap.imagePlatforms("docker.io/library/nginx:latest"); len(got) != 2 {
		t.Fatalf("union: got %v, want linux/amd64 and linux/arm64", got)
	}
	e.cache.setNode(platformNode("a", "amd64", `not json`))
	e.cache.removeNode("b")
	e.cache.updateSnapshot(e.snap)
	if got, ok := e.snap.imagePlatforms("docker.io/library/nginx:latest"); ok {
		t.Errorf("after the annotations went: got %v, want unknown", got)
	}
}

// TestArchReasonFollowsPlatformChanges: the rejection's words are kept
// from one cycle to the next only while the image's platforms stay the
// same; a node reporting another platform changes them.
func TestArchReasonFollowsPlatformChanges(t *testing.T) {
	// The index's list of nginx's platforms is rewritten in place when
	// zero's changes: the kept words must not be compared with it.
	e := newEnv(t, []*corev1.Node{platformNode("pi3", "arm/v7", `{"nginx": ["linux/amd64"]}`),
		platformNode("zero", "arm/v7", `{"nginx": ["linux/arm64"]}`)})
	reason := func() string {
		t.Helper()
		_, err := e.schedule(makePod("default", "p"))
		fe, ok := err.(*FitError)
		if !ok || len(fe.Reasons) != 1 {
			t.Fatalf("got %v, want a FitError with one reason", err)
		}
		for r := range fe.Reasons {
			return r
		}
		return ""
	}
	want := "node(s) didn't match the image's architecture (image supports linux/amd64, linux/arm64)"
	for range 2 {
		if got := reason(); got != want {
			t.Errorf("got %q, want %q", got, want)
		}
	}
	e.cache.setNode(platformNode("zero", "arm/v7", `{"nginx": ["linux/s390x"]}`))
	want = "node(s) didn't match the image's architecture (image supports linux/amd64, linux/s390x)"
	if got := reason(); got != want {
		t.Errorf("after the annotation changed: got %q, want %q", got, want)
	}
}
