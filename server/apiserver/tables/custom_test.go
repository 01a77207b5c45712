package tables

import (
	"encoding/json"
	"os"
	"testing"
	"time"

	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"

	"github.com/bramble-edge/bramble/api"
)

// TestCustomResourceColumns: a CRD version's additionalPrinterColumns
// follow the name, filled from their JSONPaths: integers stay numbers,
// dates are ages, a missing value is nil (kubectl prints <none>).
func TestCustomResourceColumns(t *testing.T) {
	data, err := os.ReadFile("../../registry/testdata/crd_widgets.yaml")
	if err != nil {
		t.Fatal(err)
	}
	crd := &apiextv1.CustomResourceDefinition{}
	if err := yaml.UnmarshalStrict(data, crd); err != nil {
		t.Fatal(err)
	}
	v1, err := api.NewCustomResource(crd, "v1")
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	obj, _, err := api.DecodeJSON(v1, []byte(`{"metadata":{"name":"w1","creationTimestamp":"2026-11-27T11:55:00Z"},"spec":{"size":3,"color":"red"}}`), true)
	if err != nil {
		t.Fatal(err)
	}
	tab, err := Table(v1, []api.Object{obj}, Options{Now: now, IncludeObject: IncludeNone})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range tab.ColumnDefinitions {
		names = append(names, c.Name)
	}
	wantJSON(t, "columns", names, `["Name","Size","Color","Phase","Age"]`)
	wantJSON(t, "cells", tab.Rows[0].Cells, `["w1",3,"red",null,"5m"]`)
	if tab.ColumnDefinitions[1].Description != "How big the widget is." {
		t.Fatalf("Size column description: got %q", tab.ColumnDefinitions[1].Description)
	}
	beta, _ := api.NewCustomResource(crd, "v1beta1")
	tab, _ = Table(beta, nil, Options{Now: now})
	if len(tab.ColumnDefinitions) != 2 || tab.ColumnDefinitions[1].Name != "Age" {
		t.Fatalf("a version without columns: got %+v, want name and age", tab.ColumnDefinitions)
	}
}

// wantJSON compares v's JSON encoding with want.
func wantJSON(t *testing.T, what string, v any, want string) {
	t.Helper()
	got, err := json.Marshal(v)
	if err != nil || string(got) != want {
		t.Fatalf("%s: got %s (%v), want %s", what, got, err, want)
	}
}
