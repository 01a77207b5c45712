package api

import (
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
)

// nameSamples are names at the edges of the rules: empty, one byte,
// leading, trailing and doubled separators, upper case, the length limits.
var nameSamples = []string{
	"", "a", "A", "0", "-", ".", "_", "/", "a-", "-a", "a.", ".a", "a..b", "a.-b", "a-.b", "a--b",
	"a_b", "a.b", "A.b", "web-7d4b9c-x2k9q", "web-7d4b9c-", "kube-api-access-x2k9q", "default",
	"example.com/app", "example.com/", "/app", "a/b/c", "Example.com/app", "app.kubernetes.io/name",
	"pod-template-hash", "x_Y.z", "ab-", "a-", "--", "é", "a b", "a\x00",
	strings.Repeat("a", 63), strings.Repeat("a", 64), strings.Repeat("a", 62) + "-",
	strings.Repeat("a", 253), strings.Repeat("a", 254), strings.Repeat("a", 252) + "-",
	strings.Repeat("a.", 126) + "a", strings.Repeat("a.", 127),
	strings.Repeat("a", 253) + "/" + strings.Repeat("b", 63), strings.Repeat("b", 64) + "/a",
}

// checkNameRules fails when a hand-written rule and the validation
// package's answer for s differ.
func checkNameRules(t *testing.T, s string) {
	t.Helper()
	pairs := []struct {
		rule      string
		got, want bool
	}{
		{"DNS-1123 label", isDNS1123Label(asName(s, false)), len(validation.IsDNS1123Label(s)) == 0},
		{"DNS-1123 label prefix", isDNS1123Label(asName(s, true)), len(apivalidation.NameIsDNSLabel(s, true)) == 0},
		{"DNS-1123 subdomain", isDNS1123Subdomain(asName(s, false)), len(validation.IsDNS1123Subdomain(s)) == 0},
		{"DNS-1123 subdomain prefix", isDNS1123Subdomain(asName(s, true)), len(apivalidation.NameIsDNSSubdomain(s, true)) == 0},
		{"label value", isLabelValue(s), len(validation.IsValidLabelValue(s)) == 0},
		{"qualified name", isQualifiedName(s), len(validation.IsQualifiedName(s)) == 0},
	}
	for _, p := range pairs {
		if p.got != p.want {
			t.Errorf("%s of %q: got valid %v, want %v", p.rule, s, p.got, p.want)
		}
	}
	if got, want := dns1123LabelProblems(s), validation.IsDNS1123Label(s); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("dns1123LabelProblems(%q): got %q, want %q", s, got, want)
	}
}

func TestNameRulesMatchValidation(t *testing.T) {
	for _, s := range nameSamples {
		checkNameRules(t, s)
	}
}

func FuzzNameRules(f *testing.F) {
	for _, s := range nameSamples {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { checkNameRules(t, s) })
}

// fuzzPod is a pod's metadata built from fuzzed parts, as a ReplicaSet's
// pod carries it.
func fuzzPod(name, generateName, ns, labelKey, labelValue, ownerVersion, ownerKind string, generation int64, controllers uint8) *corev1.Pod {
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, GenerateName: generateName, Namespace: ns,
		Generation: generation, Labels: map[string]string{labelKey: labelValue, "app": "web"}}}
	for i := uint8(0); i < controllers%4; i++ {
		yes := i < 2
		pod.OwnerReferences = append(pod.OwnerReferences, metav1.OwnerReference{APIVersion: ownerVersion, Kind: ownerKind,
			Name: "web", UID: "4c1e8a52", Controller: &yes})
	}
	return pod
}

// checkMeta fails when metaValid passes metadata that the validation
// package finds wrong.
func checkMeta(t *testing.T, r *Resource, obj Object) {
	t.Helper()
	if !metaValid(r, obj) {
		return
	}
	if errs := apivalidation.ValidateObjectMetaAccessor(obj, r.Namespaced, nameFunc(r, obj), metadataPath); len(errs) > 0 {
		t.Errorf("metaValid passed %s %q/%q, which has errors: %v", r.Kind, obj.GetNamespace(), obj.GetName(), errs)
	}
}

func TestMetaValid(t *testing.T) {
	pods, namespaces, services := MustLookup("", "v1", "pods"), MustLookup("", "v1", "namespaces"), MustLookup("", "v1", "services")
	tests := []struct {
		name string
		res  *Resource
		obj  Object
		want bool
	}{
		{"replica set's pod", pods, fuzzPod("web-7d4b9c-x2k9q", "web-7d4b9c-", "default", "pod-template-hash", "7d4b9c", "apps/v1", "ReplicaSet", 0, 1), true},
		{"no name", pods, fuzzPod("", "web-", "default", "a", "b", "apps/v1", "ReplicaSet", 0, 1), false},
		{"bad generateName", pods, fuzzPod("web", "Web-", "default", "a", "b", "apps/v1", "ReplicaSet", 0, 1), false},
		{"no namespace", pods, fuzzPod("web", "", "", "a", "b", "apps/v1", "ReplicaSet", 0, 1), false},
		{"dotted namespace", pods, fuzzPod("web", "", "a.b", "a", "b", "apps/v1", "ReplicaSet", 0, 1), false},
		{"negative generation", pods, fuzzPod("web", "", "default", "a", "b", "apps/v1", "ReplicaSet", -1, 1), false},
		{"bad label key", pods, fuzzPod("web", "", "default", "a/b/c", "b", "apps/v1", "ReplicaSet", 0, 1), false},
		{"bad label value", pods, fuzzPod("web", "", "default", "a", "b-", "apps/v1", "ReplicaSet", 0, 1), false},
		{"owner without version", pods, fuzzPod("web", "", "default", "a", "b", "apps/", "ReplicaSet", 0, 1), false},
		{"owner an event", pods, fuzzPod("web", "", "default", "a", "b", "v1", "Event", 0, 1), false},
		{"two controllers", pods, fuzzPod("web", "", "default", "a", "b", "apps/v1", "ReplicaSet", 0, 2), false},
		{"namespace", namespaces, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team-a"}}, true},
		{"dotted namespace name", namespaces, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team.a"}}, false},
		{"namespace in a namespace", namespaces, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "a", Namespace: "b"}}, false},
		{"annotated", pods, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "a", Namespace: "b", Annotations: map[string]string{"a": "b"}}}, false},
		{"finalizer", pods, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "a", Namespace: "b", Finalizers: []string{"x/y"}}}, false},
		{"kind with its own name rule", services, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default"}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := metaValid(tt.res, tt.obj); got != tt.want {
				t.Errorf("metaValid: got %v, want %v", got, tt.want)
			}
			errs := apivalidation.ValidateObjectMetaAccessor(tt.obj, tt.res.Namespaced, nameFunc(tt.res, tt.obj), metadataPath)
			if tt.want && len(errs) > 0 {
				t.Errorf("validation finds %v", errs)
			}
			if got := validateMeta(tt.res, tt.obj); fmt.Sprint(got) != fmt.Sprint(errs) {
				t.Errorf("validateMeta: got %v, want %v", got, errs)
			}
		})
	}
}

func FuzzMetaValid(f *testing.F) {
	f.Add("web-7d4b9c-x2k9q", "web-7d4b9c-", "default", "pod-template-hash", "7d4b9c", "apps/v1", "ReplicaSet", int64(0), uint8(1))
	f.Add("a", "", "b.c", "x/y", "", "v1", "Event", int64(-1), uint8(2))
	pods, namespaces := MustLookup("", "v1", "pods"), MustLookup("", "v1", "namespaces")
	f.Fuzz(func(t *testing.T, name, generateName, ns, labelKey, labelValue, ownerVersion, ownerKind string, generation int64, controllers uint8) {
		pod := fuzzPod(name, generateName, ns, labelKey, labelValue, ownerVersion, ownerKind, generation, controllers)
		checkMeta(t, pods, pod)
		nsObj := &corev1.Namespace{ObjectMeta: *pod.ObjectMeta.DeepCopy()}
		checkMeta(t, namespaces, nsObj)
	})
}
