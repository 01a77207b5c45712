package manifests

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"

	"github.com/bramble-edge/bramble/api"
)

// SkipSuffix marks a file not to apply: with foo.yaml.skip beside it,
// foo.yaml is left alone (neither applied nor deleted), as in k3s.
const SkipSuffix = ".skip"

// File is one manifest file as read from the folder.
type File struct {
	Name string // base name, e.g. "mosquitto.yaml"
	Hash string // sha256 of the content: a changed file is applied again
	Docs []Doc
}

// Doc is one YAML document of a File.
type Doc struct {
	File  string
	Index int // 1-based position in the file, counting every document
	Obj   *unstructured.Unstructured
	Err   error // why the document could not be read
}

// where names the document in errors and logs.
func (d Doc) where() string {
	w := fmt.Sprintf("%s document %d", d.File, d.Index)
	if d.Obj != nil {
		w += fmt.Sprintf(" (%s %s)", d.Obj.GetKind(), key(d.Obj.GetNamespace(), d.Obj.GetName()))
	}
	return w
}

func key(ns, name string) string {
	if ns == "" {
		return name
	}
	return ns + "/" + name
}

// manifestFile reports whether a folder entry is a manifest by its name:
// YAML or JSON, not hidden.
func manifestFile(name string) bool {
	if strings.HasPrefix(name, ".") {
		return false
	}
	ext := filepath.Ext(name)
	return ext == ".yaml" || ext == ".yml" || ext == ".json"
}

// readDir reads every manifest of dir in name order and the set of names
// a .skip file turns off. A missing folder is an empty one.
func readDir(dir string) (files []File, skipped map[string]bool, err error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("read manifests folder %s: %w", dir, err)
	}
	skipped = map[string]bool{}
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), SkipSuffix) {
			skipped[strings.TrimSuffix(e.Name(), SkipSuffix)] = true
		}
	}
	for _, e := range entries {
		if !e.Type().IsRegular() || !manifestFile(e.Name()) || skipped[e.Name()] {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, nil, fmt.Errorf("read manifest %s: %w", e.Name(), err)
		}
		files = append(files, parseFile(e.Name(), data))
	}
	return files, skipped, nil
}

// parseFile splits a file into its documents. Empty documents (only
// comments or whitespace) keep their place in the count but carry nothing.
func parseFile(name string, data []byte) File {
	sum := sha256.Sum256(data)
	f := File{Name: name, Hash: hex.EncodeToString(sum[:])}
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	for i := 1; ; i++ {
		chunk, err := r.Read()
		if err == io.EOF {
			return f
		}
		doc := Doc{File: name, Index: i}
		if err != nil {
			doc.Err = fmt.Errorf("read YAML: %w", err)
			f.Docs = append(f.Docs, doc)
			return f
		}
		doc.Obj, doc.Err = decodeDoc(chunk)
		if doc.Obj != nil || doc.Err != nil {
			f.Docs = append(f.Docs, doc)
		}
	}
}

// decodeDoc turns one YAML or JSON document into an object; an empty
// document is (nil, nil).
func decodeDoc(chunk []byte) (*unstructured.Unstructured, error) {
	js, err := api.YAMLToJSON(chunk, true)
	if err != nil {
		return nil, fmt.Errorf("decode YAML: %w", err)
	}
	if t := strings.TrimSpace(string(js)); t == "null" || t == "" {
		return nil, nil
	}
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON(js); err != nil {
		return nil, fmt.Errorf("decode object: %w", err)
	}
	if u.GetName() == "" {
		return nil, fmt.Errorf("%s: metadata.name: Required value: a manifest object needs a name", u.GetKind())
	}
	return u, nil
}

// phase orders kinds others depend on first: namespaces, then
// CustomResourceDefinitions, then everything else.
func phase(u *unstructured.Unstructured) int {
	gvk := u.GroupVersionKind()
	switch {
	case gvk.Group == "" && gvk.Kind == "Namespace":
		return 0
	case gvk.Group == "apiextensions.k8s.io" && gvk.Kind == "CustomResourceDefinition":
		return 1
	}
	return 2
}

// ordered lists the documents of files in dependency order, files and
// documents otherwise in their own order. Unreadable documents come last.
func ordered(files []File) []Doc {
	var docs []Doc
	for _, f := range files {
		docs = append(docs, f.Docs...)
	}
	rank := func(d Doc) int {
		if d.Obj == nil {
			return 3
		}
		return phase(d.Obj)
	}
	sort.SliceStable(docs, func(i, j int) bool { return rank(docs[i]) < rank(docs[j]) })
	return docs
}
