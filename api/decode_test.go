package api

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
)

// res looks a served resource up by kind, failing the test if it is missing.
func res(t testing.TB, kind string) *Resource {
	t.Helper()
	for _, r := range All() {
		if r.Kind == kind {
			return r
		}
	}
	t.Fatalf("no resource of kind %s", kind)
	return nil
}

// decodeYAML decodes a manifest strictly, failing the test on any error.
func decodeYAML(t testing.TB, kind, manifest string) Object {
	t.Helper()
	obj, _, err := DecodeYAML(res(t, kind), []byte(manifest), true)
	if err != nil {
		t.Fatalf("decode %s: %v", kind, err)
	}
	return obj
}

func TestDecodeJSON(t *testing.T) {
	cm := res(t, "ConfigMap")
	tests := []struct {
		name, body string
		strict     bool
		wantErr    string
		wantWarn   []string
	}{
		{name: "full", body: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"},"data":{"a":"b"}}`},
		{name: "no type fields", body: `{"metadata":{"name":"x"}}`},
		{name: "unknown strict", body: `{"metadata":{"name":"x"},"spec":{"foo":1},"data":{}}`, strict: true,
			wantErr: `strict decoding error: unknown field "spec"`},
		{name: "unknown nested strict", body: `{"metadata":{"name":"x","foo":1,"bar":2}}`, strict: true,
			wantErr: `strict decoding error: unknown field "metadata.foo", unknown field "metadata.bar"`},
		{name: "duplicate strict", body: `{"metadata":{"name":"x"},"data":{"a":"1","a":"2"}}`, strict: true,
			wantErr: `duplicate field "data.a"`},
		{name: "unknown warn", body: `{"metadata":{"name":"x"},"spec":{"foo":1}}`, wantWarn: []string{`unknown field "spec"`}},
		{name: "wrong apiVersion", body: `{"apiVersion":"apps/v1","kind":"ConfigMap"}`,
			wantErr: "the API version in the data (apps/v1) does not match the expected API version (v1)"},
		{name: "malformed apiVersion", body: `{"apiVersion":"a/b/c","kind":"ConfigMap"}`,
			wantErr: "the API version in the data (a/b/c) does not match"},
		{name: "wrong kind", body: `{"apiVersion":"v1","kind":"Secret"}`,
			wantErr: "the kind in the data (Secret) does not match the expected kind (ConfigMap)"},
		{name: "syntax", body: `{"metadata":{"name":"x"}}}`, wantErr: "malformed JSON at byte offset"},
		{name: "truncated", body: `{"metadata":{"name":`, wantErr: "malformed JSON"},
		{name: "empty", body: ``, wantErr: "malformed JSON"},
		{name: "wrong type", body: `{"data":{"a":1}}`, wantErr: "cannot unmarshal number"},
		{name: "array", body: `[]`, wantErr: "cannot unmarshal array"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			obj, warns, err := DecodeJSON(cm, []byte(tc.body), tc.strict)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("got error %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("got error %v, want none", err)
			}
			if strings.Join(warns, "|") != strings.Join(tc.wantWarn, "|") {
				t.Errorf("got warnings %q, want %q", warns, tc.wantWarn)
			}
			if gvk := obj.GetObjectKind().GroupVersionKind(); gvk != cm.GroupVersionKind() {
				t.Errorf("got kind %v, want %v", gvk, cm.GroupVersionKind())
			}
		})
	}
}

func TestDecodeYAML(t *testing.T) {
	obj := decodeYAML(t, "Deployment", `
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 3
  template:
    spec:
      containers: [{name: web, image: "nginx:1"}]
`)
	d := obj.(interface{ GetName() string })
	if d.GetName() != "web" {
		t.Errorf("got name %q, want web", d.GetName())
	}
	_, _, err := DecodeYAML(res(t, "ConfigMap"), []byte("metadata: {name: x}\nmetadata: {name: y}\n"), true)
	if err == nil || !strings.Contains(err.Error(), "malformed YAML") {
		t.Errorf("duplicate YAML key: got error %v, want malformed YAML", err)
	}
	_, _, err = DecodeYAML(res(t, "ConfigMap"), []byte("a: [\n"), false)
	if err == nil {
		t.Error("broken YAML: got no error")
	}
}

// protobufBody encodes obj as a typed kubectl client would.
func protobufBody(t testing.TB, obj runtime.Object) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := protobuf.NewSerializer(Scheme(), Scheme()).Encode(obj, &buf); err != nil {
		t.Fatalf("encode protobuf: %v", err)
	}
	return buf.Bytes()
}

func TestDecodeProtobuf(t *testing.T) {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "foo", Labels: map[string]string{"a": "b"}}}
	if _, err := DecodeProtobuf(res(t, "Namespace"), protobufBody(t, ns)); err != nil {
		t.Fatalf("envelope without apiVersion/kind: %v", err)
	}
	ns.TypeMeta = metav1.TypeMeta{APIVersion: "v1", Kind: "Namespace"}
	body := protobufBody(t, ns)
	if !bytes.HasPrefix(body, []byte("k8s\x00\x0a\x0f\x0a\x02v1\x12\x09Namespace")) {
		t.Fatalf("got body %q, want kubectl's envelope prefix", body[:20])
	}
	obj, err := DecodeProtobuf(res(t, "Namespace"), body)
	if err != nil {
		t.Fatalf("decode: %v", err)
	}
	if obj.GetName() != "foo" || obj.GetLabels()["a"] != "b" {
		t.Errorf("got %s %v, want foo with label a=b", obj.GetName(), obj.GetLabels())
	}
	if k := obj.GetObjectKind().GroupVersionKind().Kind; k != "Namespace" {
		t.Errorf("got kind %q, want Namespace", k)
	}
	cm := &corev1.ConfigMap{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: metav1.ObjectMeta{Name: "c"}, Data: map[string]string{"k": "v"}}
	if _, err := DecodeProtobuf(res(t, "Namespace"), protobufBody(t, cm)); err == nil ||
		!strings.Contains(err.Error(), `holds apiVersion "v1" kind "ConfigMap", want apiVersion "v1" kind "Namespace"`) {
		t.Errorf("wrong kind: got error %v", err)
	}
	for _, bad := range []string{"", "k8s\x00", "{}", "k8s\x00\xff\xff"} {
		if _, err := DecodeProtobuf(res(t, "Namespace"), []byte(bad)); err == nil {
			t.Errorf("body %q: got no error", bad)
		}
	}
}

func TestEncode(t *testing.T) {
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "x"}}
	data, err := Encode(cm)
	if err != nil {
		t.Fatal(err)
	}
	var tm metav1.TypeMeta
	if err := json.Unmarshal(data, &tm); err != nil {
		t.Fatal(err)
	}
	if tm.Kind != "ConfigMap" || tm.APIVersion != "v1" {
		t.Errorf("got %s %s, want v1 ConfigMap", tm.APIVersion, tm.Kind)
	}
	if cm.Kind != "" {
		t.Errorf("Encode modified its argument: kind %q", cm.Kind)
	}
	st, err := EncodeObject(&metav1.Status{Status: metav1.StatusFailure})
	if err != nil || !strings.Contains(string(st), `"kind":"Status","apiVersion":"v1"`) {
		t.Errorf("got %s, %v, want a v1 Status", st, err)
	}
	if _, err := EncodeObject(&runtime.Unknown{}); err == nil {
		t.Error("unregistered type: got no error")
	}
}

func TestDecodeDeleteOptions(t *testing.T) {
	for body, want := range map[string]string{
		``: "", `{"propagationPolicy":"Background"}`: "Background",
		`{"kind":"DeleteOptions","apiVersion":"meta.k8s.io/v1","propagationPolicy":"Foreground"}`: "Foreground",
	} {
		opts, err := DecodeDeleteOptions([]byte(body))
		if err != nil {
			t.Fatalf("%s: %v", body, err)
		}
		got := ""
		if opts.PropagationPolicy != nil {
			got = string(*opts.PropagationPolicy)
		}
		if got != want {
			t.Errorf("%s: got policy %q, want %q", body, got, want)
		}
	}
	for _, bad := range []string{`{`, `{"kind":"Pod"}`, `{"apiVersion":"v2"}`} {
		if _, err := DecodeDeleteOptions([]byte(bad)); err == nil {
			t.Errorf("%s: got no error", bad)
		}
	}
}

func TestDecodeSubresourceBodies(t *testing.T) {
	for _, body := range []string{`{"apiVersion":"autoscaling/v1","kind":"Scale","spec":{"replicas":3}}`, `{"spec":{"replicas":3}}`} {
		obj, _, err := DecodeJSON(ScaleResource, []byte(body), true)
		if err != nil {
			t.Fatalf("%s: %v", body, err)
		}
		if s := obj.(*autoscalingv1.Scale); s.Spec.Replicas != 3 || s.Kind != "Scale" {
			t.Errorf("%s: got %+v", body, s)
		}
	}
	obj, _, err := DecodeJSON(BindingResource, []byte(`{"metadata":{"name":"p"},"target":{"kind":"Node","name":"pi1"}}`), true)
	if err != nil || obj.(*corev1.Binding).Target.Name != "pi1" {
		t.Errorf("binding: got %v, %v", obj, err)
	}
}

func TestDecodeStoredSetsTheRevision(t *testing.T) {
	obj, err := DecodeStored(res(t, "ConfigMap"), []byte(`{"metadata":{"name":"a","namespace":"default"},"data":{"k":"v"},"extra":1}`), 42)
	if err != nil {
		t.Fatalf("DecodeStored: %v", err)
	}
	if obj.GetResourceVersion() != "42" || obj.GetName() != "a" {
		t.Errorf("got name %q, resourceVersion %q; want a, 42", obj.GetName(), obj.GetResourceVersion())
	}
	if _, err := DecodeStored(res(t, "ConfigMap"), []byte(`{"metadata":`), 1); err == nil {
		t.Error("DecodeStored of broken JSON: got no error")
	}
}
