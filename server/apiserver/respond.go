package apiserver

import (
	"fmt"
	"net/http"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/server/apiserver/tables"
	"github.com/bramble-edge/bramble/server/registry"
)

// writeObject answers with one object as JSON, or as a one-row Table when
// the request negotiated one.
func (a *API) writeObject(w http.ResponseWriter, ri *requestInfo, code int, obj api.Object) error {
	if ri.out == outTable {
		return a.writeTable(w, ri, code, &registry.List{Items: []api.Object{obj}, ResourceVersion: obj.GetResourceVersion()})
	}
	data, err := api.Encode(obj)
	if err != nil {
		return fmt.Errorf("encode response: %w", err)
	}
	writeRaw(w, code, mediaJSON, data)
	return nil
}

// writeList answers with a typed list (ConfigMapList, ...) or a Table.
func (a *API) writeList(w http.ResponseWriter, ri *requestInfo, l *registry.List) error {
	if ri.out == outTable {
		return a.writeTable(w, ri, http.StatusOK, l)
	}
	list, err := typedList(ri.res, l)
	if err != nil {
		return err
	}
	data, err := api.EncodeObject(list)
	if err != nil {
		return fmt.Errorf("encode list: %w", err)
	}
	writeRaw(w, http.StatusOK, mediaJSON, data)
	return nil
}

func typedList(res *api.Resource, l *registry.List) (runtime.Object, error) {
	list := res.NewList()
	items := make([]runtime.Object, len(l.Items))
	for i, o := range l.Items {
		items[i] = o
	}
	if err := meta.SetList(list, items); err != nil {
		return nil, fmt.Errorf("build %s list: %w", res.Kind, err)
	}
	la, err := meta.ListAccessor(list)
	if err != nil {
		return nil, fmt.Errorf("build %s list: %w", res.Kind, err)
	}
	la.SetResourceVersion(l.ResourceVersion)
	la.SetContinue(l.Continue)
	if l.Continue != "" && l.Remaining > 0 {
		remaining := l.Remaining
		la.SetRemainingItemCount(&remaining)
	}
	return list, nil
}

func (a *API) writeTable(w http.ResponseWriter, ri *requestInfo, code int, l *registry.List) error {
	t, err := a.table(ri, l.Items, false)
	if err != nil {
		return err
	}
	t.ResourceVersion, t.Continue = l.ResourceVersion, l.Continue
	if l.Continue != "" && l.Remaining > 0 {
		remaining := l.Remaining
		t.RemainingItemCount = &remaining
	}
	data, err := api.EncodeObject(t)
	if err != nil {
		return fmt.Errorf("encode table: %w", err)
	}
	writeRaw(w, code, mediaJSON, data)
	return nil
}

func (a *API) table(ri *requestInfo, objs []api.Object, noHeaders bool) (*metav1.Table, error) {
	t, err := tables.Table(ri.res, objs, tables.Options{Now: a.now(), IncludeObject: ri.includeObject, NoHeaders: noHeaders})
	if err != nil {
		return nil, fmt.Errorf("print %s table: %w", ri.res.Kind, err)
	}
	return t, nil
}

// successStatus is the body of answers that carry no object (binding).
func successStatus(code int) *metav1.Status {
	return &metav1.Status{
		TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   metav1.StatusSuccess, Code: int32(code),
	}
}
