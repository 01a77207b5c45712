package apiserver

import (
	"bytes"
	"net/http"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"

	"github.com/bramble-edge/bramble/api"
)

// protobufBody encodes obj as client-go 1.32's typed clients send it:
// "k8s\0" + runtime.Unknown.
func protobufBody(t testing.TB, obj runtime.Object) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := protobuf.NewSerializer(api.Scheme(), api.Scheme()).Encode(obj, &buf); err != nil {
		t.Fatalf("protobuf encode: %v", err)
	}
	if !bytes.HasPrefix(buf.Bytes(), []byte("k8s\x00")) {
		t.Fatalf("protobuf body starts %q, want the k8s\\0 envelope", buf.Bytes()[:4])
	}
	return buf.Bytes()
}

func TestProtobufCreate(t *testing.T) {
	e := newTestEnv(t)
	ns := &corev1.Namespace{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Namespace"}, ObjectMeta: metav1.ObjectMeta{Name: "foo"}}
	r := e.do(req{method: "POST", path: "/api/v1/namespaces?fieldManager=kubectl-create&fieldValidation=Strict",
		body: protobufBody(t, ns), contentType: mediaProtobuf, accept: "application/vnd.kubernetes.protobuf,application/json"})
	obj := r.must(t, http.StatusCreated).obj(t)
	if r.header.Get("Content-Type") != "application/json" || jget(obj, "metadata.name") != "foo" || jget(obj, "status.phase") != "Active" {
		t.Fatalf("got %s %v, want a JSON Namespace foo, Active", r.header.Get("Content-Type"), obj)
	}

	cm := &corev1.ConfigMap{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: metav1.ObjectMeta{Name: "pb", Namespace: "foo"}, Data: map[string]string{"key": "value"}}
	obj = e.do(req{method: "POST", path: "/api/v1/namespaces/foo/configmaps", body: protobufBody(t, cm), contentType: mediaProtobuf}).
		must(t, http.StatusCreated).obj(t)
	if jget(obj, "data.key") != "value" || jget(obj, "metadata.namespace") != "foo" {
		t.Fatalf("got %v, want configmap pb in foo with key=value", obj)
	}

	bad := append([]byte("k8s\x00"), 0xff, 0xff, 0xff)
	e.do(req{method: "POST", path: cmPath, body: bad, contentType: mediaProtobuf}).status(t, http.StatusBadRequest, metav1.StatusReasonBadRequest)
	e.do(req{method: "POST", path: cmPath, body: protobufBody(t, ns), contentType: mediaProtobuf}).
		status(t, http.StatusBadRequest, metav1.StatusReasonBadRequest)
}

func TestProtobufDeleteOptions(t *testing.T) {
	e := newTestEnv(t)
	e.post(cmPath, manifest(t, "configmaps", "x")).must(t, http.StatusCreated)
	policy := metav1.DeletePropagationBackground
	opts := &metav1.DeleteOptions{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "DeleteOptions"}, PropagationPolicy: &policy}
	e.do(req{method: "DELETE", path: cmPath + "/x", body: protobufBody(t, opts), contentType: mediaProtobuf}).must(t, http.StatusOK)
	e.get(cmPath+"/x").status(t, http.StatusNotFound, metav1.StatusReasonNotFound)
}
