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
	seen := make(map[string]bool, len(pods))
	for i := range pods {
		p := P(&pods[i])
		if err := p.check(); err != nil {
			return fmt.Errorf("pods[%d].%w", i, err)
		}
		ns, name := p.podKey()
		key := ns + "/" + name
		if seen[key] {
			return fmt.Errorf("pods[%d]: %s is reported twice", i, key)
		}
		seen[key] = true
	}
	return nil
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
