package mqtt

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/bramble-edge/bramble/api"
)

// Plural resource names the node topics carry.
const (
	ResourcePods       = "pods"
	ResourceConfigMaps = api.ResourceConfigMaps
	ResourceSecrets    = api.ResourceSecrets
	// ResourceClaims and ResourceVolumes: a pod's PersistentVolumeClaims,
	// and the PersistentVolumes whose node affinity names the node.
	ResourceClaims  = api.ResourcePersistentVolumeClaims
	ResourceVolumes = "persistentvolumes"
)

func (r ObjectRef) check() error {
	if !validName(r.Resource) {
		return fmt.Errorf("resource: got %q, want a lowercase plural such as %q", r.Resource, ResourcePods)
	}
	if r.Namespace != "" && !validName(r.Namespace) {
		return fmt.Errorf("namespace: got %q, want empty or a DNS name", r.Namespace)
	}
	if !validObjectName(r.Name) {
		return fmt.Errorf("name: got %q, want an object name (1-%d bytes, not \".\" or \"..\", without '/', '%%', '+', '#' or control characters)", r.Name, maxObjectName)
	}
	return nil
}

// validName accepts DNS subdomain names: 1-253 characters of a-z, 0-9,
// '-' and '.', starting and ending with a letter or digit. Such names are
// also safe as MQTT topic levels.
func validName(s string) bool {
	if len(s) == 0 || len(s) > 253 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		alnum := c >= 'a' && c <= 'z' || c >= '0' && c <= '9'
		if !alnum && (c != '-' && c != '.' || i == 0 || i == len(s)-1) {
			return false
		}
	}
	return true
}

// maxObjectName bounds an object name on the wire; the API's own rules
// keep real names far shorter.
const maxObjectName = 1024

// validObjectName accepts what the API accepts as an object's name in a
// path (ClusterRoles named "system:...", the APIService "v1."), less what
// would break a topic level or a file name: '/', '%', the MQTT wildcards
// '+' and '#', control characters, and the names "." and "..".
func validObjectName(s string) bool {
	if len(s) == 0 || len(s) > maxObjectName || s == "." || s == ".." {
		return false
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c < 0x20, c == 0x7f, c == '/', c == '%', c == '+', c == '#':
			return false
		}
	}
	return true
}

// PodReferences lists the ConfigMaps, Secrets and claims a pod uses, each once,
// sorted, as refs in the pod's namespace. The rule is api.PodReferences.
func PodReferences(pod *corev1.Pod) []ObjectRef {
	refs := api.PodReferences(&pod.Spec)
	if len(refs) == 0 {
		return nil
	}
	out := make([]ObjectRef, len(refs))
	for i, r := range refs {
		out[i] = ObjectRef{Resource: r.Resource, Namespace: pod.Namespace, Name: r.Name}
	}
	return out
}
