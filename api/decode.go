package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"

	"k8s.io/apimachinery/pkg/api/resource"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	kjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"
)

// decodes counts the objects decoded in this process, for benchmarks that
// count decodes per committed object.
var decodes atomic.Int64

// Decodes is how many objects this process has decoded from JSON so far.
func Decodes() int64 { return decodes.Load() }

// Every error the Decode functions return describes a bad request body (HTTP
// 400); the message is meant for the client.

// DecodeJSON decodes a request body into a new object of r's kind. With
// strict set, unknown and duplicate fields are an error ("strict decoding
// error: unknown field \"spec.foo\""); without it they are returned as
// warnings, one per field, for fieldValidation=Warn (the caller drops them
// for fieldValidation=Ignore). A missing kind or apiVersion is filled in; a
// wrong one is an error.
func DecodeJSON(r *Resource, data []byte, strict bool) (Object, []string, error) {
	decodes.Add(1)
	if r.unstructured {
		return decodeUnstructured(r, data, strict)
	}
	obj := r.New()
	if err := guardJSONQuantities(reflect.TypeOf(obj).Elem(), data); err != nil {
		return nil, nil, fmt.Errorf("decode %s: %w", r.Kind, err)
	}
	strictErrs, err := kjson.UnmarshalStrict(data, obj)
	if errors.Is(err, resource.ErrFormatWrong) {
		if located := locateBadQuantity(reflect.TypeOf(obj).Elem(), data); located != nil {
			return nil, nil, fmt.Errorf("decode %s: %w", r.Kind, located)
		}
	}
	if err != nil {
		return nil, nil, jsonError(r, err)
	}
	if err := checkKind(r, obj); err != nil {
		return nil, nil, err
	}
	if len(strictErrs) == 0 {
		return obj, nil, nil
	}
	msgs := make([]string, len(strictErrs))
	for i, e := range strictErrs {
		msgs[i] = e.Error()
	}
	if strict {
		return nil, nil, fmt.Errorf("strict decoding error: %s", strings.Join(msgs, ", "))
	}
	return obj, msgs, nil
}

// jsonError turns a JSON decoding failure into a message naming where it is.
func jsonError(r *Resource, err error) error {
	if ok, off := kjson.SyntaxErrorOffset(err); ok {
		return fmt.Errorf("decode %s: malformed JSON at byte offset %d: %s", r.Kind, off, strings.TrimPrefix(err.Error(), "json: "))
	}
	if strings.Contains(err.Error(), "unexpected end of JSON input") {
		return fmt.Errorf("decode %s: malformed JSON: unexpected end of input", r.Kind)
	}
	return fmt.Errorf("decode %s: %s", r.Kind, strings.TrimPrefix(err.Error(), "json: "))
}

// checkKind compares the body's apiVersion and kind with r and fills in
// whichever is missing.
func checkKind(r *Resource, obj Object) error {
	want := r.GroupVersionKind()
	apiVersion, kind := want.ToAPIVersionAndKind()
	switch tm := obj.GetObjectKind().(type) {
	case *metav1.TypeMeta:
		apiVersion, kind = tm.APIVersion, tm.Kind
	case *unstructured.Unstructured:
		apiVersion, kind = tm.GetAPIVersion(), tm.GetKind()
	}
	if apiVersion != "" && apiVersion != r.APIVersion() {
		return fmt.Errorf("the API version in the data (%s) does not match the expected API version (%s)", apiVersion, r.APIVersion())
	}
	if kind != "" && kind != want.Kind {
		return fmt.Errorf("the kind in the data (%s) does not match the expected kind (%s)", kind, want.Kind)
	}
	obj.GetObjectKind().SetGroupVersionKind(want)
	return nil
}

// YAMLToJSON converts one YAML document (JSON is YAML) to JSON. With strict
// set, duplicate keys are an error.
func YAMLToJSON(data []byte, strict bool) ([]byte, error) {
	if t := bytes.TrimSpace(data); len(t) > 0 && t[0] == '{' && json.Valid(t) {
		return t, nil // JSON is YAML; duplicate keys are the JSON decoder's to find
	}
	conv := yaml.YAMLToJSON
	if strict {
		conv = yaml.YAMLToJSONStrict
	}
	out, err := conv(data)
	if err != nil {
		return nil, fmt.Errorf("malformed YAML: %w", err)
	}
	return out, nil
}

// DecodeYAML decodes an application/apply-patch+yaml (or any YAML) body the
// way DecodeJSON decodes JSON.
func DecodeYAML(r *Resource, data []byte, strict bool) (Object, []string, error) {
	js, err := YAMLToJSON(data, strict)
	if err != nil {
		return nil, nil, fmt.Errorf("decode %s: %w", r.Kind, err)
	}
	return DecodeJSON(r, js, strict)
}

// pbSerializer is built with the Scheme, on first use.
var pbSerializer = sync.OnceValue(func() *protobuf.Serializer {
	return protobuf.NewSerializer(Scheme(), Scheme())
})

// DecodeProtobuf decodes an application/vnd.kubernetes.protobuf body ("k8s\0"
// followed by a runtime.Unknown envelope) as typed kubectl commands send it.
// The envelope's apiVersion and kind must be r's (missing ones default to r's).
func DecodeProtobuf(r *Resource, data []byte) (Object, error) {
	if len(data) == 0 {
		return nil, fmt.Errorf("decode %s: empty protobuf body", r.Kind)
	}
	if r.unstructured {
		return nil, fmt.Errorf("decode %s: %s has no protobuf form; send JSON or YAML", r.Kind, r.APIVersion())
	}
	want := r.GroupVersionKind()
	var env runtime.Unknown
	_, gvk, err := pbSerializer().Decode(data, &want, &env)
	if err != nil {
		return nil, fmt.Errorf("decode %s: malformed protobuf body: %w", r.Kind, err)
	}
	if *gvk != want {
		return nil, fmt.Errorf("decode %s: the protobuf body holds %s, want %s", r.Kind, gvkString(*gvk), gvkString(want))
	}
	if err := guardProtobufQuantities(reflect.TypeOf(r.New()).Elem(), env.Raw); err != nil {
		return nil, fmt.Errorf("decode %s: %w", r.Kind, err)
	}
	out, _, err := pbSerializer().Decode(data, &want, nil)
	if err != nil {
		return nil, fmt.Errorf("decode %s: malformed protobuf body: %w", r.Kind, err)
	}
	obj, ok := out.(Object)
	if !ok {
		return nil, fmt.Errorf("decode %s: the protobuf body holds %T, want %s", r.Kind, out, want.Kind)
	}
	obj.GetObjectKind().SetGroupVersionKind(want)
	return obj, nil
}

func gvkString(gvk schema.GroupVersionKind) string {
	apiVersion, kind := gvk.ToAPIVersionAndKind()
	return fmt.Sprintf("apiVersion %q kind %q", apiVersion, kind)
}

// Encode returns obj as JSON with its kind and apiVersion set.
func Encode(obj Object) ([]byte, error) { return EncodeObject(obj) }

// EncodeOwned is Encode of an object no one else reads meanwhile: its
// type fields, when they are its struct's own, are set for the encoding
// and put back after, rather than encoding a shallow copy that has them
// (a pod's copy is 1 KiB, and every write of one encodes it).
func EncodeOwned(obj Object) ([]byte, error) {
	kinds, _, err := Scheme().ObjectKinds(obj)
	if err != nil {
		return nil, fmt.Errorf("encode %T: %w", obj, err)
	}
	if data, ok := encodeKnown(obj, kinds[0]); ok {
		return data, nil
	}
	tm, ok := obj.GetObjectKind().(*metav1.TypeMeta)
	if v := reflect.ValueOf(obj); !ok || v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct || !within(tm, v) {
		return encodeReflect(obj, kinds[0])
	}
	saved := *tm
	tm.SetGroupVersionKind(kinds[0])
	data, err := json.Marshal(obj)
	*tm = saved
	if err != nil {
		return nil, fmt.Errorf("encode %s: %w", kinds[0].Kind, err)
	}
	return data, nil
}

// EncodeObject returns any object the Scheme knows (lists, Status, Table,
// WatchEvent, ...) as JSON with its kind and apiVersion set. obj itself is
// never modified: when its type fields need setting, a copy is encoded.
// Pods and core/v1 Events, written and served on every pod's way, are
// encoded without reflection (encodeKnown), to the same bytes.
func EncodeObject(obj runtime.Object) ([]byte, error) {
	kinds, _, err := Scheme().ObjectKinds(obj)
	if err != nil {
		return nil, fmt.Errorf("encode %T: %w", obj, err)
	}
	if data, ok := encodeKnown(obj, kinds[0]); ok {
		return data, nil
	}
	return encodeReflect(obj, kinds[0])
}

// encodeReflect is obj's encoding/json encoding with gvk's type fields.
func encodeReflect(obj runtime.Object, gvk schema.GroupVersionKind) ([]byte, error) {
	if obj.GetObjectKind().GroupVersionKind() != gvk {
		obj = withTypeFields(obj)
		obj.GetObjectKind().SetGroupVersionKind(gvk)
	}
	data, err := json.Marshal(obj)
	if err != nil {
		return nil, fmt.Errorf("encode %s: %w", gvk.Kind, err)
	}
	return data, nil
}

// withTypeFields is a copy of obj whose type fields may be set: a shallow
// one (what the fields point to is shared, and only read by the encoder)
// when they are a struct's own metav1.TypeMeta, a deep one otherwise (an
// unstructured object keeps them in its map). A pod's deep copy was one of
// the most allocated things of every create.
func withTypeFields(obj runtime.Object) runtime.Object {
	v := reflect.ValueOf(obj)
	tm, ok := obj.GetObjectKind().(*metav1.TypeMeta)
	if !ok || v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct || !within(tm, v) {
		return obj.DeepCopyObject()
	}
	cp := reflect.New(v.Elem().Type())
	cp.Elem().Set(v.Elem())
	return cp.Interface().(runtime.Object)
}

// within says whether tm lies inside the struct v points to.
func within(tm *metav1.TypeMeta, v reflect.Value) bool {
	at, start := reflect.ValueOf(tm).Pointer(), v.Pointer()
	return at >= start && at < start+v.Elem().Type().Size()
}

// DecodeDeleteOptions decodes a DELETE request body. An empty body means
// default options. Any apiVersion ending in "v1" is accepted, as clients send
// "v1", "meta.k8s.io/v1" or the resource's own group version.
func DecodeDeleteOptions(data []byte) (*metav1.DeleteOptions, error) {
	opts := &metav1.DeleteOptions{}
	if len(bytes.TrimSpace(data)) == 0 {
		return opts, nil
	}
	if err := kjson.UnmarshalCaseSensitivePreserveInts(data, opts); err != nil {
		return nil, jsonError(&Resource{Kind: "DeleteOptions"}, err)
	}
	gv, err := schema.ParseGroupVersion(opts.APIVersion)
	if err != nil || (opts.APIVersion != "" && gv.Version != "v1") {
		return nil, fmt.Errorf("decode DeleteOptions: unsupported apiVersion %q, want v1 or meta.k8s.io/v1", opts.APIVersion)
	}
	if opts.Kind != "" && opts.Kind != "DeleteOptions" {
		return nil, fmt.Errorf("decode DeleteOptions: the kind in the data (%s) does not match the expected kind (DeleteOptions)", opts.Kind)
	}
	return opts, nil
}
