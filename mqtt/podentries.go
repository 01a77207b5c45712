package mqtt

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
)

// podEntry is one pod's entry in a per-pod list an agent sends (pod
// status, usage): it checks itself and names its pod.
type podEntry interface {
	check() error
	podKey() (namespace, name string)
}

// checkPods checks every entry of a per-pod list, naming the first bad
// one by index, and that no pod is in it twice.
func checkPods[E any, P interface {
	*E
	podEntry
}](pods []E) error {
	var seen map[[2]string]bool // made only for a batch of many pods
	if len(pods) > fewPods {
		seen = make(map[[2]string]bool, len(pods))
	}
	for i := range pods {
		p := P(&pods[i])
		if err := p.check(); err != nil {
			return fmt.Errorf("pods[%d].%w", i, err)
		}
		ns, name := p.podKey()
		key := [2]string{ns, name}
		if seen[key] || seen == nil && reportedBefore[E, P](pods[:i], key) {
			return fmt.Errorf("pods[%d]: %s/%s is reported twice", i, ns, name)
		}
		if seen != nil {
			seen[key] = true
		}
	}
	return nil
}

// fewPods is the most entries checkPods compares pairwise rather than
// through a map.
const fewPods = 16

// reportedBefore reports whether one of pods names the pod key.
func reportedBefore[E any, P interface {
	*E
	podEntry
}](pods []E, key [2]string) bool {
	for i := range pods {
		if ns, name := P(&pods[i]).podKey(); ns == key[0] && name == key[1] {
			return true
		}
	}
	return false
}

// checkPodName checks a pod entry's namespace (under nsField, the wire
// name of its key) and name.
func checkPodName(nsField, namespace, name string) error {
	if msgs := validation.IsDNS1123Label(namespace); len(msgs) > 0 {
		return fmt.Errorf("%s: %q: %s", nsField, namespace, strings.Join(msgs, "; "))
	}
	if msgs := validation.IsDNS1123Subdomain(name); len(msgs) > 0 {
		return fmt.Errorf("name: %q: %s", name, strings.Join(msgs, "; "))
	}
	return nil
}
