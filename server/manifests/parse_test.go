package manifests

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation"
)

const twoFiles = `apiVersion: example.com/v1
kind: Widget
metadata: {name: w}
---
# only a comment
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
---
apiVersion: v1
kind: Namespace
metadata: {name: iot}
---
kind: ConfigMap
apiVersion: v1
metadata: {}
`

// TestParseAndOrder: documents keep their 1-based index (empty ones
// count), a nameless one is an error, and namespaces come before CRDs
// before the rest, across files.
func TestParseAndOrder(t *testing.T) {
	a := parseFile("a.yaml", []byte(twoFiles))
	b := parseFile("b.yaml", []byte("apiVersion: v1\nkind: Namespace\nmetadata: {name: late}\n"))
	if len(a.Docs) != 4 {
		t.Fatalf("got %d documents, want 4", len(a.Docs))
	}
	if d := a.Docs[3]; d.Index != 5 || d.Err == nil || !strings.Contains(d.Err.Error(), "metadata.name") {
		t.Fatalf("nameless document: got index %d err %v, want index 5 and a metadata.name error", d.Index, d.Err)
	}
	var got []string
	for _, d := range ordered([]File{a, b}) {
		got = append(got, d.where())
	}
	want := []string{"a.yaml document 4 (Namespace iot)", "b.yaml document 1 (Namespace late)",
		"a.yaml document 3 (CustomResourceDefinition widgets.example.com)", "a.yaml document 1 (Widget w)", "a.yaml document 5"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("order:\n got %q\nwant %q", got, want)
	}
}

// TestReadDirSkips: .skip files, hidden files and other extensions are
// not read; a missing folder is empty.
func TestReadDirSkips(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{"a.yaml": "", "b.yml": "", "b.yml.skip": "", ".c.yaml": "", "d.txt": "", "e.json": "{}"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	files, skipped, err := readDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range files {
		names = append(names, f.Name)
	}
	if strings.Join(names, ",") != "a.yaml,e.json" || !skipped["b.yml"] {
		t.Fatalf("got files %v skipped %v, want a.yaml,e.json and b.yml skipped", names, skipped)
	}
	if files, _, err := readDir(filepath.Join(dir, "nope")); err != nil || len(files) != 0 {
		t.Fatalf("missing folder: got %v %v", files, err)
	}
}

func TestRecordNameIsValid(t *testing.T) {
	for _, f := range []string{"a.yaml", "Home_Assistant (v2).YAML", strings.Repeat("x", 300) + ".yaml"} {
		n := recordName(f)
		if errs := validation.IsDNS1123Subdomain(n); len(errs) > 0 || len(n) > 63 {
			t.Errorf("recordName(%q) = %q: %v", f, n, errs)
		}
	}
	if recordName("a.yaml") == recordName("A.yaml") {
		t.Error("two file names share a record")
	}
}

// FuzzParseFile: any file content parses without a panic into documents
// with increasing 1-based indexes, each an object with a name or an error.
func FuzzParseFile(f *testing.F) {
	f.Add([]byte(twoFiles))
	f.Add([]byte("---\n---\n{}\n"))
	f.Add([]byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		last := 0
		for _, d := range parseFile("f.yaml", data).Docs {
			if d.Index <= last {
				t.Fatalf("index %d after %d", d.Index, last)
			}
			last = d.Index
			if (d.Obj == nil) == (d.Err == nil) || (d.Obj != nil && d.Obj.GetName() == "") {
				t.Fatalf("document %d: object %v error %v", d.Index, d.Obj, d.Err)
			}
		}
	})
}
