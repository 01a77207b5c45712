package scheduler

import (
	"fmt"
	"slices"
	"strings"
	"unique"
)

// archFilter keeps a pod off nodes whose platform one of its images cannot
// run on (platforms.go has the rules, e.g. an arm/v7 image does not run on
// an arm/v6 node). An image whose platforms nobody knows restricts nothing;
// the pod's own node selectors (kubernetes.io/arch) still apply through
// the node selector filter.
type archFilter struct{}

func (archFilter) filter(c *cycle, n *nodeInfo) []string {
	if len(c.arch.images) == 0 || c.arch.allows(n.platformID) {
		return nil
	}
	return c.arch.why()
}

// archRule is what a pod's images allow, resolved once per cycle.
type archRule struct {
	images []imagePlatforms // the pod's images whose platforms are known
	memo   []archVerdict    // verdicts per node platform seen this cycle
	// reason words the rejection for the images in reasonOf (copies):
	// kept across cycles, as pods of one app ask the same.
	reason   []string
	reasonOf []imagePlatforms
}

type imagePlatforms struct {
	ref       string
	platforms []platform
}

type archVerdict struct {
	node unique.Handle[platform]
	ok   bool
}

// resolve looks up the platforms of the pod's images: first in the nodes'
// annotations (the snapshot's index), then in the extra source.
func (r *archRule) resolve(p *podInfo, s *snapshot, extra ImagePlatforms) {
	r.images, r.memo = r.images[:0], r.memo[:0]
	for _, img := range p.images {
		if list, ok := s.imagePlatforms(img); ok {
			r.images = append(r.images, imagePlatforms{ref: img, platforms: list})
		} else if list, ok := lookupExtra(extra, img); ok {
			r.images = append(r.images, imagePlatforms{ref: img, platforms: list})
		}
	}
}

// PendingImagePlatforms is an ImagePlatforms that looks images up in the
// background (a registry). Pending reports that a lookup of the image is
// under way: the scheduler then holds the pod back for a moment instead
// of placing it without knowing its platforms.
type PendingImagePlatforms interface {
	ImagePlatforms
	Pending(image string) bool
}

// platformsPending reports whether one of the pod's images is known
// neither from the nodes nor from the extra source, and the extra source
// is looking it up.
func platformsPending(p *podInfo, s *snapshot, extra ImagePlatforms) bool {
	lookup, ok := extra.(PendingImagePlatforms)
	if !ok {
		return false
	}
	for _, img := range p.images {
		if _, ok := s.imagePlatforms(img); ok {
			continue
		}
		if _, known := lookup.Platforms(img); !known && lookup.Pending(img) {
			return true
		}
	}
	return false
}

// lookupExtra asks the extra source, keeping the platforms that parse.
func lookupExtra(extra ImagePlatforms, img string) ([]platform, bool) {
	if extra == nil {
		return nil, false
	}
	names, known := extra.Platforms(img)
	if !known {
		return nil, false
	}
	var out []platform
	for _, name := range names {
		if p, ok := parsePlatform(name); ok {
			out = append(out, p)
		}
	}
	return out, len(out) > 0
}

// allows reports whether every known image runs on the node platform. The
// verdict is worked out once per platform and cycle; the memo compares
// interned platforms, one pointer each.
func (r *archRule) allows(node unique.Handle[platform]) bool {
	for _, v := range r.memo {
		if v.node == node {
			return v.ok
		}
	}
	ok := true
	for _, img := range r.images {
		if !anyRunsOn(img.platforms, node.Value()) {
			ok = false
			break
		}
	}
	r.memo = append(r.memo, archVerdict{node: node, ok: ok})
	return ok
}

func anyRunsOn(images []platform, node platform) bool {
	for _, p := range images {
		if runsOn(p, node) {
			return true
		}
	}
	return false
}

// why words the rejection. It depends on the pod's images only, so every
// rejected node counts under the same reason, and a pod with the same
// images as the one before gets the same words without their being
// formatted again.
func (r *archRule) why() []string {
	if r.reason != nil && sameImagePlatforms(r.reasonOf, r.images) {
		return r.reason
	}
	r.reasonOf = r.reasonOf[:0]
	for _, img := range r.images {
		r.reasonOf = append(r.reasonOf, imagePlatforms{ref: img.ref, platforms: slices.Clone(img.platforms)})
	}
	if len(r.images) == 1 {
		r.reason = []string{fmt.Sprintf("node(s) didn't match the image's architecture (image supports %s)",
			platformList(r.images[0].platforms))}
		return r.reason
	}
	parts := make([]string, len(r.images))
	for i, img := range r.images {
		parts[i] = img.ref + " supports " + platformList(img.platforms)
	}
	r.reason = []string{fmt.Sprintf("node(s) didn't match the images' architectures (%s)", strings.Join(parts, "; "))}
	return r.reason
}

func sameImagePlatforms(a, b []imagePlatforms) bool {
	return slices.EqualFunc(a, b, func(x, y imagePlatforms) bool {
		return x.ref == y.ref && slices.Equal(x.platforms, y.platforms)
	})
}

func platformList(list []platform) string {
	names := make([]string, len(list))
	for i, p := range list {
		names[i] = p.String()
	}
	return strings.Join(names, ", ")
}
