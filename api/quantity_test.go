package api

import (
	"reflect"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestParseQuantity(t *testing.T) {
	for _, ok := range []string{"1", "500m", "1.5Gi", "2e3", "1E", "8Ei", "1e999", "-1e-999", "1e123"} {
		if _, err := ParseQuantity(ok); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
	for bad, want := range map[string]string{
		"1e1000":                             "exponent 1000, outside -999..999",
		"0e110001100":                        "exponent 110001100",
		strings.Repeat("9", 65):              "65 characters long",
		"1000000000000000000000000000000":    `cannot be stored exactly (it would print as "1")`,
		"abc":                                "quantities must match",
		"1e99999999999999999999999999999999": "exponent",
	} {
		if _, err := ParseQuantity(bad); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: got error %v, want one containing %q", bad, err, want)
		}
	}
}

// slowQuantity takes apimachinery minutes to parse; the guards must refuse
// it before anything parses it.
const slowQuantity = "123456789012345678901234567890e110001100"

func TestDecodeRefusesCostlyQuantities(t *testing.T) {
	pod := res(t, "Pod")
	for name, body := range map[string]string{
		"string":  `{"spec":{"containers":[{"name":"c","resources":{"limits":{"cpu":"` + slowQuantity + `"}}}]}}`,
		"number":  `{"spec":{"containers":[{"name":"c","resources":{"limits":{"cpu":` + slowQuantity + `}}}]}}`,
		"escaped": `{"spec":{"containers":[{"name":"c","resources":{"limits":{"cpu":"1\u0065110001100"}}}]}}`,
		"long":    `{"spec":{"overhead":{"cpu":"` + strings.Repeat("9", 100000) + `"}}}`,
		"volume":  `{"spec":{"volumes":[{"name":"v","emptyDir":{"sizeLimit":"` + slowQuantity + `"}}]}}`,
	} {
		start := time.Now()
		_, _, err := DecodeJSON(pod, []byte(body), true)
		if err == nil || !strings.Contains(err.Error(), "quantity spec.") {
			t.Errorf("%s: got error %v, want one naming the quantity's path", name, err)
		}
		if d := time.Since(start); d > 10*time.Second {
			t.Errorf("%s: took %v; the guard did not stop the parse", name, d)
		}
	}
	cm := `{"metadata":{"name":"x"},"data":{"v":"` + slowQuantity + `","e":"\u00e9"}}`
	if _, _, err := DecodeJSON(res(t, "ConfigMap"), []byte(cm), true); err != nil {
		t.Errorf("configmap data that looks like a quantity: %v", err)
	}
}

func TestDecodeProtobufRefusesCostlyQuantities(t *testing.T) {
	q, err := resource.ParseQuantity("1e110001100") // fast to parse; slow to compare
	if err != nil {
		t.Fatal(err)
	}
	p := &corev1.Pod{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"}, ObjectMeta: metav1.ObjectMeta{Name: "p"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "x@sha256:ae1234567",
			Env:       []corev1.EnvVar{{Name: "N", Value: "1e123"}},
			Resources: corev1.ResourceRequirements{Limits: corev1.ResourceList{corev1.ResourceCPU: q}}}}}}
	if _, err := DecodeProtobuf(res(t, "Pod"), protobufBody(t, p)); err == nil || !strings.Contains(err.Error(), `has exponent 110001099`) {
		t.Errorf("got error %v, want the quantity refused", err)
	}
	p.Spec.Containers[0].Resources.Limits[corev1.ResourceCPU] = resource.MustParse("2")
	if _, err := DecodeProtobuf(res(t, "Pod"), protobufBody(t, p)); err != nil {
		t.Errorf("image digest and env value with exponent-like text: %v", err)
	}
}

func TestSuspect(t *testing.T) {
	for in, want := range map[string]bool{
		"":                 false,
		`{"cpu":"1e99"}`:   false,
		`{"cpu":"1e999"}`:  true,
		`{"cpu":"1E+123"}`: true,
		`{"cpu":"1e-12"}`:  false,
		`{"v":"` + strings.Repeat("1", 39) + `"}`:           false,
		`{"v":"` + strings.Repeat("1", 40) + `"}`:           true,
		`{"v":"1.2.3.4.5.6.7.8.9.0.1.2.3.4.5.6.7.8.9.0.1"}`: true,
		`{"v":"\u0031"}`: true,
		`{"v":"\n"}`:     false,
		`e12`:            false,
		`e`:              false,
	} {
		if got := suspect([]byte(in), true); got != want {
			t.Errorf("suspect(%q): got %v, want %v", in, got, want)
		}
	}
	if suspect([]byte(`\u0031`), false) {
		t.Error("escapes matter only in JSON")
	}
}

func TestTypeHoldsQuantity(t *testing.T) {
	for kind, want := range map[string]bool{"Pod": true, "Node": true, "Deployment": true, "Job": true,
		"ConfigMap": false, "Secret": false, "Namespace": false, "Event": false, "Lease": false} {
		r := res(t, kind)
		if got := typeHoldsQuantity(reflect.TypeOf(r.New()).Elem()); got != want {
			t.Errorf("%s: got %v, want %v", kind, got, want)
		}
	}
}

func TestDecodeNamesTheBadQuantity(t *testing.T) {
	res, _ := ByKind("apps", "Deployment")
	body := `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"},"spec":{"template":{"spec":{"containers":[` +
		`{"name":"a","image":"x"},{"name":"b","image":"x","resources":{"limits":{"memory":"lots"}}}]}}}}`
	_, _, err := DecodeJSON(res, []byte(body), true)
	if err == nil {
		t.Fatal("got nil error for memory: lots")
	}
	want := `spec.template.spec.containers[1].resources.limits.memory: invalid value "lots"`
	if !strings.Contains(err.Error(), want) {
		t.Errorf("got %q, want it to contain %q", err, want)
	}
}
