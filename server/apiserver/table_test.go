package apiserver

import (
	"net/http"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func columnNames(t *metav1.Table) []string {
	var names []string
	for _, c := range t.ColumnDefinitions {
		names = append(names, c.Name)
	}
	return names
}

func TestListAsTable(t *testing.T) {
	e := newTestEnv(t)
	e.post(cmPath, cmJSON("x", map[string]string{"a": "1", "b": "2"}, map[string]string{"app": "x"})).must(t, http.StatusCreated)
	plain := e.get(cmPath).must(t, http.StatusOK).obj(t)

	var table metav1.Table
	e.do(req{method: "GET", path: cmPath + "?limit=500", accept: tableAccept}).must(t, http.StatusOK).into(t, &table)
	if table.Kind != "Table" || table.APIVersion != "meta.k8s.io/v1" {
		t.Fatalf("got %s %s, want meta.k8s.io/v1 Table", table.APIVersion, table.Kind)
	}
	if got := columnNames(&table); len(got) != 3 || got[0] != "Name" || got[1] != "Data" || got[2] != "Age" {
		t.Fatalf("got columns %v, want Name Data Age", got)
	}
	if table.ResourceVersion != jget(plain, "metadata.resourceVersion") {
		t.Fatalf("got table rv %q, want the list rv %v", table.ResourceVersion, jget(plain, "metadata.resourceVersion"))
	}
	if len(table.Rows) != 1 || table.Rows[0].Cells[0] != "x" || table.Rows[0].Cells[1] != float64(2) {
		t.Fatalf("got rows %+v, want one row x with 2 data items", table.Rows)
	}
	var meta metav1.PartialObjectMetadata
	if err := jsonUnmarshal(table.Rows[0].Object.Raw, &meta); err != nil {
		t.Fatalf("row object: %v", err)
	}
	if meta.Kind != "PartialObjectMetadata" || meta.Namespace != "default" || meta.Labels["app"] != "x" {
		t.Fatalf("got row object %+v, want PartialObjectMetadata with namespace and labels", meta)
	}
}

func TestTableIncludeObjectAndSingleGet(t *testing.T) {
	e := newTestEnv(t)
	e.post(deployPath, manifest(t, "deployments", "web")).must(t, http.StatusCreated)
	var table metav1.Table
	e.do(req{method: "GET", path: deployPath + "/web?includeObject=None", accept: tableAccept}).must(t, http.StatusOK).into(t, &table)
	if len(table.Rows) != 1 || table.Rows[0].Object.Raw != nil {
		t.Fatalf("got rows %+v, want one row without an object", table.Rows)
	}
	if got := columnNames(&table); len(got) < 5 || got[1] != "Ready" {
		t.Fatalf("got deployment columns %v, want Name Ready Up-to-date Available Age ...", got)
	}
	e.do(req{method: "GET", path: deployPath + "?includeObject=Object", accept: tableAccept}).must(t, http.StatusOK).into(t, &table)
	full := map[string]any{}
	if err := jsonUnmarshal(table.Rows[0].Object.Raw, &full); err != nil || full["kind"] != "Deployment" {
		t.Fatalf("got row object %s (%v), want the whole Deployment", table.Rows[0].Object.Raw, err)
	}
	e.do(req{method: "GET", path: deployPath + "?includeObject=All", accept: tableAccept}).status(t, http.StatusBadRequest, metav1.StatusReasonBadRequest)
}

func TestAcceptNegotiation(t *testing.T) {
	e := newTestEnv(t)
	r := e.do(req{method: "GET", path: cmPath, accept: "application/vnd.kubernetes.protobuf,application/json"}).must(t, http.StatusOK)
	if r.obj(t)["kind"] != "ConfigMapList" {
		t.Fatalf("got %s, want a JSON ConfigMapList for a protobuf-preferring client", r.body)
	}
	r = e.do(req{method: "GET", path: cmPath, accept: "application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io,application/json"}).must(t, http.StatusOK)
	if r.obj(t)["kind"] != "ConfigMapList" {
		t.Fatalf("got %s, want the plain list when the first choice is not served", r.body)
	}
	e.do(req{method: "GET", path: cmPath, accept: "text/html"}).status(t, http.StatusNotAcceptable, metav1.StatusReasonNotAcceptable)
}
