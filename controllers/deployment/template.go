package deployment

import (
	"encoding/binary"
	"encoding/json"
	"hash/fnv"
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/util/rand"

	"github.com/bramble-edge/bramble/api"
)

// HashLabel is the label that ties a ReplicaSet (its selector, template
// and pods) to one pod template of its Deployment.
const HashLabel = appsv1.DefaultDeploymentUniqueLabelKey

// normalised returns a copy of t without the hash label, defaulted the way
// the API server defaults a stored template, so that what kubectl sends back
// on undo ("creationTimestamp": null, "resources": {}, fields left to their
// defaults) compares and hashes like the stored original.
func normalised(t *corev1.PodTemplateSpec) *corev1.PodTemplateSpec {
	rs := wrapTemplate(t.DeepCopy())
	api.Default(rs)
	out := &rs.Spec.Template
	delete(out.Labels, HashLabel)
	if len(out.Labels) == 0 {
		out.Labels = nil
	}
	return out
}

// wrapTemplate puts t in a ReplicaSet, the smallest object api.Default
// defaults a pod template in.
func wrapTemplate(t *corev1.PodTemplateSpec) *appsv1.ReplicaSet {
	return &appsv1.ReplicaSet{Spec: appsv1.ReplicaSetSpec{Template: *t}}
}

// EqualIgnoreHash reports whether two pod templates mean the same pods,
// ignoring the hash label: semantic equality after the same defaulting.
func EqualIgnoreHash(a, b *corev1.PodTemplateSpec) bool {
	return equality.Semantic.DeepEqual(normalised(a), normalised(b))
}

// TemplateHash is the pod-template-hash value for a template: a short,
// label-safe digest of its normalised JSON form (Go's encoder writes struct
// fields in a fixed order and map keys sorted, so the form is stable),
// salted with the Deployment's collision count.
func TemplateHash(t *corev1.PodTemplateSpec, collisionCount *int32) string {
	data, err := json.Marshal(normalised(t))
	if err != nil {
		// A typed template always encodes; should it ever not, hash its
		// printed form rather than fail every sync.
		data = []byte(t.String())
	}
	h := fnv.New32a()
	h.Write(data)
	if collisionCount != nil {
		var buf [4]byte
		binary.LittleEndian.PutUint32(buf[:], uint32(*collisionCount))
		h.Write(buf[:])
	}
	return rand.SafeEncodeString(strconv.FormatUint(uint64(h.Sum32()), 10))
}
