package scheduler

import (
	"maps"
	"slices"
	"unique"

	corev1 "k8s.io/api/core/v1"
)

// nodeStatic is what the scheduler derives from a Node object alone. It is
// rebuilt when the Node changes and shared, read-only, by every clone of
// the node's nodeInfo.
type nodeStatic struct {
	node          *corev1.Node // nil for a node the cache knows only from its pods
	name          string
	labels        map[string]string
	taints        []corev1.Taint // the NoSchedule and NoExecute ones
	taintReasons  [][]string     // the filter's reason for each of taints
	unschedulable bool
	readyTaint    *corev1.Taint // stands for a Ready condition that is not True
	readyReason   []string
	alloc         resourceSet
	maxPods       int64
	platform      platform
	images        map[string]int64 // normalized reference -> size in bytes (0 = not reported)
	// imagePlatforms is the node's bramble.io/image-platforms annotation.
	imagePlatforms map[string][]platform
	annotation     string   // its raw value, to notice changes
	badAnnotation  bool     // the annotation is not valid JSON
	topo           []string // values of the topology labels ("" = absent)
	// topoIDs are the topo values interned: spreading tells a node's
	// domains apart by them, one pointer each.
	topoIDs      []unique.Handle[string]
	localStorage int64 // local-path bytes (volumefilter.go: 0 unlimited, -1 none)
	// platformID is platform interned: the arch filter's memo compares it.
	platformID unique.Handle[platform]
}

// Taints the scheduler puts in the place of node conditions, as the node
// lifecycle controller of Kubernetes does.
const (
	taintNotReady      = "node.kubernetes.io/not-ready"
	taintUnreachable   = "node.kubernetes.io/unreachable"
	taintUnschedulable = "node.kubernetes.io/unschedulable"
)

// newNodeStatic derives the static part of a node. topologyLabels are the
// labels the spreading score groups nodes by.
func newNodeStatic(n *corev1.Node, topologyLabels []string) *nodeStatic {
	s := &nodeStatic{node: n, name: n.Name, labels: n.Labels, unschedulable: n.Spec.Unschedulable,
		platform: nodePlatform(n), images: nodeImages(n), annotation: n.Annotations[AnnotationImagePlatforms],
		localStorage: localStorageOf(n.Annotations)}
	s.alloc, s.maxPods = allocatableOf(&n.Status)
	s.platformID = unique.Make(s.platform)
	for _, t := range n.Spec.Taints {
		if t.Effect == corev1.TaintEffectNoSchedule || t.Effect == corev1.TaintEffectNoExecute {
			s.taints = append(s.taints, t)
		}
	}
	s.taintReasons = make([][]string, len(s.taints))
	for i := range s.taints {
		s.taintReasons[i] = []string{untoleratedReason(&s.taints[i])}
	}
	if s.readyTaint = readinessTaint(n, s.taints); s.readyTaint != nil {
		s.readyReason = []string{untoleratedReason(s.readyTaint)}
	}
	var ok bool
	s.imagePlatforms, ok = parsePlatformAnnotation(s.annotation)
	s.badAnnotation = !ok
	s.topo = make([]string, len(topologyLabels))
	for i, l := range topologyLabels {
		s.topo[i] = n.Labels[l]
	}
	s.topoIDs = internAll(s.topo)
	return s
}

func internAll(values []string) []unique.Handle[string] {
	out := make([]unique.Handle[string], len(values))
	for i, v := range values {
		out[i] = unique.Make(v)
	}
	return out
}

// placeholderStatic stands for a node that pods are bound to but whose
// Node object the cache has not seen (or has seen deleted).
func placeholderStatic(name string, topologyLabels []string) *nodeStatic {
	topo := make([]string, len(topologyLabels))
	return &nodeStatic{name: name, topo: topo, topoIDs: internAll(topo), localStorage: -1,
		platformID: unique.Make(platform{})}
}

// readinessTaint models the node's Ready condition as a NoSchedule taint,
// as Kubernetes' node lifecycle controller sets one: not-ready when it is
// False or missing, unreachable when it is Unknown; nil when it is True or
// the node already carries that NoSchedule taint itself. The NoExecute
// taint of the same key (bramble's node lifecycle controller sets it) does
// not stand in for it: a pod that tolerates being evicted after a while
// must still not be placed there, or it would be placed, evicted and
// replaced in a loop.
func readinessTaint(n *corev1.Node, taints []corev1.Taint) *corev1.Taint {
	key := taintNotReady
	for _, c := range n.Status.Conditions {
		if c.Type != corev1.NodeReady {
			continue
		}
		switch c.Status {
		case corev1.ConditionTrue:
			return nil
		case corev1.ConditionUnknown:
			key = taintUnreachable
		}
	}
	if slices.ContainsFunc(taints, func(t corev1.Taint) bool { return t.Key == key && t.Effect == corev1.TaintEffectNoSchedule }) {
		return nil
	}
	return &corev1.Taint{Key: key, Effect: corev1.TaintEffectNoSchedule}
}

// nodeImages indexes status.images by every name of every image.
func nodeImages(n *corev1.Node) map[string]int64 {
	if len(n.Status.Images) == 0 {
		return nil
	}
	out := make(map[string]int64, len(n.Status.Images))
	for _, img := range n.Status.Images {
		for _, name := range img.Names {
			if ref := normalizeImage(name); ref != "" {
				out[ref] = img.SizeBytes
			}
		}
	}
	return out
}

// sameForFilters reports whether two versions of a node look the same to
// every filter, so that a change between them cannot make a pod fit that
// did not fit before.
func sameForFilters(a, b *nodeStatic) bool {
	return a.unschedulable == b.unschedulable && a.alloc == b.alloc && a.maxPods == b.maxPods &&
		a.platform == b.platform && a.annotation == b.annotation && a.localStorage == b.localStorage &&
		sameTaint(a.readyTaint, b.readyTaint) && maps.Equal(a.labels, b.labels) &&
		slices.EqualFunc(a.taints, b.taints, func(x, y corev1.Taint) bool {
			return x.Key == y.Key && x.Value == y.Value && x.Effect == y.Effect
		})
}

// sameForScheduling adds what the scores look at besides (the images).
func sameForScheduling(a, b *nodeStatic) bool {
	return sameForFilters(a, b) && maps.Equal(a.images, b.images)
}

func sameTaint(a, b *corev1.Taint) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Key == b.Key && a.Effect == b.Effect
}
