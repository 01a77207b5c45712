package informer

import (
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// KeyOf is an object's key in an informer: "namespace/name", or "name" for
// cluster-scoped objects.
func KeyOf(obj metav1.Object) string {
	if ns := obj.GetNamespace(); ns != "" {
		return ns + "/" + obj.GetName()
	}
	return obj.GetName()
}

// resourcePath names a resource in the datastore's key space:
// "<group or core>/<plural>", the two segments after /registry/.
func resourcePath(group, plural string) string {
	if group == "" {
		group = "core"
	}
	return group + "/" + plural
}

// splitKey takes a key below /registry/ apart into its resource path and
// the object's key ("namespace/name" or "name").
func splitKey(key string) (res, obj string, ok bool) {
	i := strings.IndexByte(key, '/')
	if i < 0 {
		return "", "", false
	}
	j := strings.IndexByte(key[i+1:], '/')
	if j < 0 {
		return "", "", false
	}
	return key[:i+1+j], key[i+2+j:], true
}
