package registry

import (
	"errors"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"

	"github.com/bramble-edge/bramble/api"
)

// requireStatus fails unless err is nil or an API status error with a 4xx
// code: bad input must never look like a server fault.
func requireStatus(t *testing.T, err error) {
	t.Helper()
	if err == nil {
		return
	}
	var se apierrors.APIStatus
	if !errors.As(err, &se) {
		t.Fatalf("got a plain error %v, want an API status error", err)
	}
	if c := se.Status().Code; c < 400 || c >= 500 {
		t.Fatalf("got code %d for bad input (%v), want 4xx", c, err)
	}
}

func FuzzApplyPatch(f *testing.F) {
	f.Add(string(types.MergePatchType), []byte(`{"data":{"a":null,"b":"c"}}`))
	f.Add(string(types.StrategicMergePatchType), []byte(`{"metadata":{"$patch":"replace"},"data":{"$retainKeys":["a"]}}`))
	f.Add(string(types.JSONPatchType), []byte(`[{"op":"copy","from":"/data","path":"/metadata/labels"},{"op":"test","path":"/kind","value":"ConfigMap"}]`))
	f.Add(string(types.JSONPatchType), []byte(`[{"op":"copy","from":"","path":"/x"},{"op":"copy","from":"","path":"/y"}]`))
	f.Add(string(types.ApplyPatchType), []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\ndata: {a: b}\n"))
	original := []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x","namespace":"default"},"data":{"a":"1"}}`)
	cms := api.MustLookup("", "v1", "configmaps")
	f.Fuzz(func(t *testing.T, mt string, patch []byte) {
		if mt == string(types.ApplyPatchType) {
			_, _, err := decodeApplyPatch(cms, "default", "x", patch, WriteOptions{FieldValidation: ValidationStrict})
			requireStatus(t, err)
			return
		}
		if err := CheckPatchBody(types.PatchType(mt), patch); err != nil {
			requireStatus(t, err)
			return
		}
		out, err := ApplyPatch(types.PatchType(mt), original, patch, &corev1.ConfigMap{}, 1<<16)
		requireStatus(t, err)
		if err == nil && len(out) > 1<<16 {
			t.Fatalf("patched document of %d bytes passed the limit", len(out))
		}
	})
}

func TestJSONPatchValueChecks(t *testing.T) {
	doc := []byte(`{"a":1}`)
	for body, wantErr := range map[string]string{
		`[{"op":"test","path":""}]`:                   `"value" is required`,
		`[{"op":"add","path":"/b"}]`:                  `"value" is required`,
		`[{"op":"test","path":"/a","value":null}]`:    "testing for null is not supported",
		`[{"op":"replace","path":"/a","value":null}]`: "",
		`[{"op":"test","path":"/a","value":1}]`:       "",
	} {
		_, err := applyJSONPatch(doc, []byte(body), 1<<20)
		switch {
		case wantErr == "" && err != nil:
			t.Errorf("%s: got error %v, want none", body, err)
		case wantErr != "" && (err == nil || !strings.Contains(err.Error(), wantErr)):
			t.Errorf("%s: got error %v, want one containing %q", body, err, wantErr)
		}
	}
}
