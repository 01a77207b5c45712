// Package history keeps the ControllerRevisions of DaemonSets and
// StatefulSets: one per distinct pod template, numbered in the order the
// templates were used, in the shape `kubectl rollout history|undo` read and
// patch back (data is {"spec":{"template":{...,"$patch":"replace"}}}).
package history

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/rand"
)

// maxPrefix is how much of the owner's name a revision's name keeps, so
// that prefix, dash and hash fit in a 253-character name.
const maxPrefix = 223

// Patch is a revision's data for template: a strategic merge patch that
// replaces the owner's whole pod template. The encoding goes through a
// generic map, as kubectl's does, so that kubectl compares it byte for
// byte with the patch it builds from the live object.
func Patch(template *corev1.PodTemplateSpec) ([]byte, error) {
	raw, err := json.Marshal(template)
	if err != nil {
		return nil, fmt.Errorf("encode pod template: %w", err)
	}
	var tmpl map[string]any
	if err := json.Unmarshal(raw, &tmpl); err != nil {
		return nil, fmt.Errorf("decode pod template: %w", err)
	}
	tmpl["$patch"] = "replace"
	return json.Marshal(map[string]any{"spec": map[string]any{"template": tmpl}})
}

// Template decodes the pod template a revision's data holds.
func Template(cr *appsv1.ControllerRevision) (*corev1.PodTemplateSpec, error) {
	var data struct {
		Spec struct {
			Template corev1.PodTemplateSpec `json:"template"`
		} `json:"spec"`
	}
	if err := json.Unmarshal(cr.Data.Raw, &data); err != nil {
		return nil, fmt.Errorf("decode controllerrevision %s/%s: %w", cr.Namespace, cr.Name, err)
	}
	return &data.Spec.Template, nil
}

// Hash names data as upstream's controller history does: FNV-32 of the
// bytes and, when set, the collision count, in the safe alphabet.
func Hash(data []byte, collisionCount *int32) string {
	h := fnv.New32()
	h.Write(data)
	if collisionCount != nil {
		h.Write([]byte(strconv.FormatInt(int64(*collisionCount), 10)))
	}
	return rand.SafeEncodeString(strconv.FormatUint(uint64(h.Sum32()), 10))
}

// Name is the revision name for owner and hash: "<owner>-<hash>".
func Name(owner, hash string) string {
	if len(owner) > maxPrefix {
		owner = owner[:maxPrefix]
	}
	return owner + "-" + hash
}
