package scheduler

import (
	"fmt"
	"maps"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// nodeAccount is what a nodeInfo's slices and map hold, copied.
type nodeAccount struct {
	pods   []string
	ports  []hostPort
	spread map[string]int32
}

func accountOf(n *nodeInfo) nodeAccount {
	a := nodeAccount{ports: slices.Clone(n.ports), spread: maps.Clone(n.spread)}
	for _, p := range n.pods {
		a.pods = append(a.pods, p.key+"@"+p.pod.ResourceVersion)
	}
	return a
}

func (a nodeAccount) equal(b nodeAccount) bool {
	return slices.Equal(a.pods, b.pods) && slices.Equal(a.ports, b.ports) && maps.Equal(a.spread, b.spread)
}

// TestCloneIsUntouchedByLaterChanges: a clone shares its slices and map
// with the node it was made from until one of the two changes them; a
// change to either, of any kind, never shows in the other.
func TestCloneIsUntouchedByLaterChanges(t *testing.T) {
	pod := func(i int) *podInfo {
		return newPodInfo(makePod("default", fmt.Sprint("p", i), owned(fmt.Sprint("rs", i%2)),
			podPorts(false, corev1.ContainerPort{ContainerPort: 80, HostPort: int32(8000 + i)})))
	}
	bumped := func(p *podInfo) *podInfo {
		pod := p.pod.DeepCopy()
		pod.ResourceVersion = "2"
		return podInfoFor(p, pod)
	}
	changes := map[string]func(n *nodeInfo){
		"add":    func(n *nodeInfo) { n.addPod(pod(9)) },
		"remove": func(n *nodeInfo) { n.removePod(n.pods[1]) },
		"swap":   func(n *nodeInfo) { n.swapPod(n.pods[0], bumped(n.pods[0])) },
		"remove then add": func(n *nodeInfo) {
			n.removePod(n.pods[0])
			n.addPod(pod(8))
		},
	}
	for name, change := range changes {
		for _, side := range []string{"original", "clone"} {
			n := newNodeInfo(&nodeStatic{name: "n1"})
			for i := range 3 {
				n.addPod(pod(i))
			}
			n.pods = slices.Grow(n.pods, 8) // room to append in place
			n.ports = slices.Grow(n.ports, 8)
			c := n.clone()
			changed, other := n, c
			if side == "clone" {
				changed, other = c, n
			}
			before := accountOf(other)
			change(changed)
			if got := accountOf(other); !got.equal(before) {
				t.Errorf("%s on the %s: the other went from %+v to %+v", name, side, before, got)
			}
			if accountOf(changed).equal(before) {
				t.Errorf("%s on the %s: nothing changed", name, side)
			}
		}
	}
}
