package registry

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/bramble-edge/bramble/api"
)

// applyConverter is what the field manager needs to create, default and
// convert objects of one kind.
type applyConverter interface {
	runtime.ObjectConvertor
	runtime.ObjectDefaulter
	runtime.ObjectCreater
}

// applyConversions is the api Scheme for built-in kinds; kinds added at run
// time have no Go type and one stored version, so their objects stay
// unstructured and "conversion" only relabels the version.
func applyConversions(res *api.Resource) applyConverter {
	if res.Unstructured() {
		return unstructuredConversions{}
	}
	return api.Scheme()
}

type unstructuredConversions struct{}

func (unstructuredConversions) New(gvk schema.GroupVersionKind) (runtime.Object, error) {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(gvk)
	return u, nil
}

func (unstructuredConversions) Default(runtime.Object) {}

func (unstructuredConversions) Convert(in, out, _ any) error {
	src, ok1 := in.(*unstructured.Unstructured)
	dst, ok2 := out.(*unstructured.Unstructured)
	if !ok1 || !ok2 {
		return fmt.Errorf("convert %T to %T: only unstructured objects", in, out)
	}
	dst.Object = runtime.DeepCopyJSON(src.Object)
	return nil
}

func (unstructuredConversions) ConvertToVersion(in runtime.Object, gv runtime.GroupVersioner) (runtime.Object, error) {
	u, ok := in.(*unstructured.Unstructured)
	if !ok {
		return nil, fmt.Errorf("convert %T: only unstructured objects", in)
	}
	gvk, ok := gv.KindForGroupVersionKinds([]schema.GroupVersionKind{u.GroupVersionKind()})
	if !ok {
		return nil, fmt.Errorf("convert %s: no version to convert to", u.GroupVersionKind())
	}
	out := u.DeepCopy()
	out.SetGroupVersionKind(gvk)
	return out, nil
}

func (unstructuredConversions) ConvertFieldLabel(_ schema.GroupVersionKind, label, value string) (string, string, error) {
	return label, value, nil
}
