package mqttdelivery

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"net/http"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// workload makes random but valid changes through the REST API: pods
// created bound to a node or bound later, relabelled, deleted, moved to
// another node (deleted and created again under the same name); the
// ConfigMaps and Secrets they reference (by volume, projected volume, env
// valueFrom, envFrom and imagePullSecrets) updated, deleted and created
// again. It remembers what exists so every request is meant to succeed.
type workload struct {
	t       testing.TB
	a       *adminClient
	rnd     *rand.Rand
	nodes   []string
	pods    map[string]string // name -> node ("" unbound)
	cms     map[string]bool   // name -> exists
	secrets []string
	writes  int
}

const (
	numPods       = 40
	numConfigMaps = 10
	numSecrets    = 4
	ns            = "default"
)

func newWorkload(t testing.TB, a *adminClient, nodes []string, seed int64) *workload {
	w := &workload{t: t, a: a, rnd: rand.New(rand.NewSource(seed)), nodes: nodes,
		pods: map[string]string{}, cms: map[string]bool{}}
	for i := range numConfigMaps {
		w.createConfigMap(fmt.Sprintf("cm-%d", i))
	}
	for i := range numSecrets {
		name := fmt.Sprintf("secret-%d", i)
		w.write("POST", "/api/v1/namespaces/default/secrets",
			`{"apiVersion":"v1","kind":"Secret","metadata":{"name":"`+name+`"},"stringData":{"k":"0"}}`)
		w.secrets = append(w.secrets, name)
	}
	return w
}

func (w *workload) write(method, path, body string) {
	w.t.Helper()
	w.a.must(method, path, body)
	w.writes++
}

// step makes one random change.
func (w *workload) step() {
	w.t.Helper()
	name := fmt.Sprintf("p-%d", w.rnd.Intn(numPods))
	node, exists := w.pods[name]
	switch r := w.rnd.Intn(100); {
	case !exists && r < 60:
		w.createPod(name, w.pickNode(true))
	case exists && node == "" && r < 70:
		target := w.pickNode(false)
		w.write("POST", "/api/v1/namespaces/default/pods/"+name+"/binding",
			`{"apiVersion":"v1","kind":"Binding","metadata":{"name":"`+name+`"},"target":{"kind":"Node","name":"`+target+`"}}`)
		w.pods[name] = target
	case exists && r < 35:
		w.write("PATCH", "/api/v1/namespaces/default/pods/"+name, fmt.Sprintf(`{"metadata":{"labels":{"v":"%d"}}}`, w.writes))
	case exists && r < 50:
		w.write("DELETE", forceDelete(name), "")
		delete(w.pods, name)
	case exists && r < 65:
		w.write("DELETE", forceDelete(name), "")
		w.createPod(name, w.pickNode(false))
	default:
		w.stepReferenced()
	}
}

// forceDelete is the path that deletes a pod at once (grace 0). A bound
// pod's ordinary delete waits for its node to stop it and finish the
// deletion; these nodes are recorders of the desired stream, not agents,
// and the deletions under test are those the stream carries.
func forceDelete(name string) string {
	return "/api/v1/namespaces/default/pods/" + name + "?gracePeriodSeconds=0"
}

// stepReferenced changes a ConfigMap or Secret.
func (w *workload) stepReferenced() {
	cm := fmt.Sprintf("cm-%d", w.rnd.Intn(numConfigMaps))
	switch r := w.rnd.Intn(100); {
	case !w.cms[cm]:
		w.createConfigMap(cm)
	case r < 60:
		w.write("PATCH", "/api/v1/namespaces/default/configmaps/"+cm, fmt.Sprintf(`{"data":{"k":"%d"}}`, w.writes))
	case r < 80:
		w.write("DELETE", "/api/v1/namespaces/default/configmaps/"+cm, "")
		w.cms[cm] = false
	default:
		s := w.secrets[w.rnd.Intn(len(w.secrets))]
		w.write("PATCH", "/api/v1/namespaces/default/secrets/"+s, fmt.Sprintf(`{"stringData":{"k":"%d"}}`, w.writes))
	}
}

func (w *workload) createConfigMap(name string) {
	w.write("POST", "/api/v1/namespaces/default/configmaps",
		`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"`+name+`"},"data":{"k":"0"}}`)
	w.cms[name] = true
}

// pickNode returns a node, or "" (left for a later binding) when unbound
// is allowed and the dice say so.
func (w *workload) pickNode(unbound bool) string {
	if unbound && w.rnd.Intn(5) == 0 {
		return ""
	}
	return w.nodes[w.rnd.Intn(len(w.nodes))]
}

func (w *workload) createPod(name, node string) {
	w.t.Helper()
	pod := w.podSpec(name, node)
	body, err := json.Marshal(pod)
	if err != nil {
		w.t.Fatal(err)
	}
	code, data := w.a.do(http.MethodPost, "/api/v1/namespaces/default/pods", string(body))
	if code != http.StatusCreated {
		w.t.Fatalf("create pod %s: got %d %s, want 201", name, code, data)
	}
	w.writes++
	w.pods[name] = node
}

// podSpec references up to three ConfigMaps and a Secret, each through a
// randomly chosen mechanism.
func (w *workload) podSpec(name, node string) *corev1.Pod {
	c := corev1.Container{Name: "app", Image: "busybox"}
	spec := corev1.PodSpec{NodeName: node}
	for i, cm := range w.pickConfigMaps() {
		ref := corev1.LocalObjectReference{Name: cm}
		switch w.rnd.Intn(3) {
		case 0:
			spec.Volumes = append(spec.Volumes, corev1.Volume{Name: fmt.Sprintf("v%d", i),
				VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: ref}}})
		case 1:
			c.Env = append(c.Env, corev1.EnvVar{Name: fmt.Sprintf("E%d", i),
				ValueFrom: &corev1.EnvVarSource{ConfigMapKeyRef: &corev1.ConfigMapKeySelector{LocalObjectReference: ref, Key: "k"}}})
		default:
			c.EnvFrom = append(c.EnvFrom, corev1.EnvFromSource{ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: ref}})
		}
	}
	if w.rnd.Intn(2) == 0 {
		s := w.secrets[w.rnd.Intn(len(w.secrets))]
		if w.rnd.Intn(2) == 0 {
			spec.ImagePullSecrets = []corev1.LocalObjectReference{{Name: s}}
		} else {
			spec.Volumes = append(spec.Volumes, corev1.Volume{Name: "s",
				VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: s}}})
		}
	}
	spec.Containers = []corev1.Container{c}
	return &corev1.Pod{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: map[string]string{"v": "0"}}, Spec: spec}
}

func (w *workload) pickConfigMaps() []string {
	var out []string
	for range w.rnd.Intn(4) {
		cm := fmt.Sprintf("cm-%d", w.rnd.Intn(numConfigMaps))
		if !slices.Contains(out, cm) {
			out = append(out, cm)
		}
	}
	return out
}
