package scheduler

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// ImagePlatforms tells the scheduler which platforms an image can run on.
// The scheduler builds one from its nodes' bramble.io/image-platforms
// annotations; Config.ImagePlatforms may add another (a registry lookup).
type ImagePlatforms interface {
	// Platforms lists the platforms ("linux/arm64", "linux/arm/v7") of an
	// image, given as a normalized reference ("docker.io/library/nginx:1.27").
	// known is false when the source has no answer. It is called inside the
	// scheduling cycle: it must answer from memory, never block on I/O.
	Platforms(image string) (platforms []string, known bool)
}

// AnnotationImagePlatforms is the node annotation agents use to report
// the platforms of images they know: a JSON object mapping an image
// reference to its list of platforms.
const AnnotationImagePlatforms = "bramble.io/image-platforms"

// platform is an OCI platform: os, architecture and variant.
type platform struct {
	os, arch, variant string
}

func (p platform) String() string {
	s := p.os + "/" + p.arch
	if p.variant != "" {
		s += "/" + p.variant
	}
	return s
}

// archAliases maps names some tools use to the OCI architecture.
var archAliases = map[string]string{
	"x86_64": "amd64", "x86-64": "amd64", "aarch64": "arm64", "armhf": "arm/v7",
	"armel": "arm/v6", "armv7l": "arm/v7", "armv6l": "arm/v6", "i386": "386",
}

// parseArch reads "arm64", "arm/v7" or an alias into arch and variant,
// applying the OCI defaults: arm without a variant is v7; arm64 and amd64
// variants ("v8", "v3") do not narrow anything here and are dropped.
func parseArch(s string) (arch, variant string) {
	s = strings.ToLower(strings.TrimSpace(s))
	if a, ok := archAliases[s]; ok {
		s = a
	}
	arch, variant, _ = strings.Cut(s, "/")
	if arch != "arm" {
		return arch, ""
	}
	if variant == "" {
		variant = "v7"
	}
	return arch, variant
}

// parsePlatform reads "os/arch[/variant]"; false when it is not of that
// shape.
func parsePlatform(s string) (platform, bool) {
	osName, rest, ok := strings.Cut(strings.TrimSpace(s), "/")
	if !ok || osName == "" || rest == "" || strings.Count(rest, "/") > 1 {
		return platform{}, false
	}
	arch, variant := parseArch(rest)
	if arch == "" {
		return platform{}, false
	}
	return platform{os: strings.ToLower(osName), arch: arch, variant: variant}, true
}

// nodePlatform is what a node runs: status.nodeInfo, which bramble agents
// fill in as "amd64", "arm64", "arm/v7", "arm/v6", falling back to the
// kubernetes.io/arch and kubernetes.io/os labels. The os defaults to linux.
func nodePlatform(n *corev1.Node) platform {
	archName := n.Status.NodeInfo.Architecture
	if archName == "" {
		archName = n.Labels[corev1.LabelArchStable]
	}
	osName := n.Status.NodeInfo.OperatingSystem
	if osName == "" {
		osName = n.Labels[corev1.LabelOSStable]
	}
	if osName == "" {
		osName = "linux"
	}
	arch, variant := parseArch(archName)
	return platform{os: strings.ToLower(osName), arch: arch, variant: variant}
}

// runsOn reports whether an image built for img runs on a node of
// platform node. ARM variants are ordered: an arm/v6 image runs on arm/v6
// and arm/v7 nodes, an arm/v7 image does not run on arm/v6. An arm64 node
// runs arm64 images only: 32-bit support is not assumed.
func runsOn(img, node platform) bool {
	if node.arch == "" {
		return true // the node does not say; nothing to check against
	}
	if img.os != node.os || img.arch != node.arch {
		return false
	}
	if img.arch != "arm" {
		return true
	}
	return armLevel(img.variant) <= armLevel(node.variant)
}

// armLevel is the number of an ARM variant ("v7" -> 7); an unreadable
// variant counts as v7, the OCI default.
func armLevel(v string) int {
	n, err := strconv.Atoi(strings.TrimPrefix(v, "v"))
	if err != nil {
		return 7
	}
	return n
}

// parsePlatformAnnotation reads a node's bramble.io/image-platforms
// annotation into normalized image -> platforms. Entries that do not parse
// are left out; ok is false when the JSON itself is malformed.
func parsePlatformAnnotation(value string) (map[string][]platform, bool) {
	if value == "" {
		return nil, true
	}
	var raw map[string][]string
	if err := json.Unmarshal([]byte(value), &raw); err != nil {
		return nil, false
	}
	out := make(map[string][]platform, len(raw))
	for ref, list := range raw {
		img := normalizeImage(ref)
		for _, s := range list {
			if p, ok := parsePlatform(s); ok && img != "" {
				out[img] = append(out[img], p)
			}
		}
	}
	return out, true
}

// normalizeImage turns an image reference into one canonical spelling, so
// that "nginx", "nginx:latest", "docker.io/library/nginx" and
// "index.docker.io/library/nginx:latest" compare equal:
//
//   - a reference whose first path part is not a registry host (no "." or
//     ":" in it and not "localhost") lives on docker.io;
//   - a docker.io repository with a single path part lives under library/;
//   - a reference with neither tag nor digest gets the tag "latest".
//
// The result is for comparison only; it is not validated.
func normalizeImage(ref string) string {
	ref = strings.TrimSpace(ref)
	if ref == "" {
		return ""
	}
	domain, rest := splitDomain(ref)
	library, tag := "", ""
	if domain == "docker.io" && !strings.Contains(rest, "/") {
		library = "library/"
	}
	if !hasTagOrDigest(rest) {
		tag = ":latest"
	}
	return domain + "/" + library + rest + tag // one allocation
}

// splitDomain separates the registry host from the repository path.
func splitDomain(ref string) (domain, rest string) {
	first, after, found := strings.Cut(ref, "/")
	if !found || !(strings.ContainsAny(first, ".:") || first == "localhost") {
		return "docker.io", ref
	}
	if first == "index.docker.io" || first == "registry-1.docker.io" {
		first = "docker.io"
	}
	return first, after
}

// hasTagOrDigest reports whether a repository path (without the registry
// host, whose port would look like a tag) ends in ":tag" or "@digest".
func hasTagOrDigest(path string) bool {
	if strings.Contains(path, "@") {
		return true
	}
	last := path[strings.LastIndex(path, "/")+1:]
	return strings.Contains(last, ":")
}

// podImages lists the normalized images of a pod's init and regular
// containers, each once, in spec order.
func podImages(spec *corev1.PodSpec) []string {
	var out []string
	add := func(cs []corev1.Container) {
		for i := range cs {
			n := normalizeImage(cs[i].Image)
			if n != "" && !slices.Contains(out, n) {
				out = append(out, n)
			}
		}
	}
	add(spec.InitContainers)
	add(spec.Containers)
	return out
}
