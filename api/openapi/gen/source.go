package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// pkgSource is what the generator reads from a package's Go source: the doc
// comments of its types and their fields, and its typed string constants
// (the values of enums). Reflection gives the shape of the types; only the
// source has the comments.
type pkgSource struct {
	path   string
	types  map[string]*typeSource
	consts map[string][]constSource // by type name
}

type typeSource struct {
	doc    []string
	fields map[string][]string // Go field name -> doc comment lines
}

type constSource struct {
	name, value string
	doc         []string
	opaque      bool // not a string literal
}

// sources loads packages once each, through `go list` in the module, so
// the versions read are the ones go.mod selects.
type sources struct {
	dir  string // where go list runs
	pkgs map[string]*pkgSource
}

func (s *sources) load(path string) (*pkgSource, error) {
	if p, ok := s.pkgs[path]; ok {
		return p, nil
	}
	dir, files, err := s.list(path)
	if err != nil {
		return nil, err
	}
	p := &pkgSource{path: path, types: map[string]*typeSource{}, consts: map[string][]constSource{}}
	fset := token.NewFileSet()
	for _, name := range files {
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.ParseComments)
		if err != nil {
			return nil, fmt.Errorf("parse %s: %w", path, err)
		}
		if err := p.addFile(f); err != nil {
			return nil, fmt.Errorf("%s/%s: %w", path, name, err)
		}
	}
	s.pkgs[path] = p
	return p, nil
}

// list asks the go command where a package's source is.
func (s *sources) list(path string) (string, []string, error) {
	cmd := exec.Command("go", "list", "-json=Dir,GoFiles", path)
	cmd.Dir = s.dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", nil, fmt.Errorf("go list %s: %v: %s", path, err, stderr.String())
	}
	var pkg struct {
		Dir     string
		GoFiles []string
	}
	if err := json.Unmarshal(out, &pkg); err != nil {
		return "", nil, fmt.Errorf("go list %s: %w", path, err)
	}
	return pkg.Dir, pkg.GoFiles, nil
}

func (p *pkgSource) addFile(f *ast.File) error {
	for _, decl := range f.Decls {
		gd, ok := decl.(*ast.GenDecl)
		if !ok {
			continue
		}
		for _, spec := range gd.Specs {
			switch spec := spec.(type) {
			case *ast.TypeSpec:
				p.addType(spec, docOf(spec.Doc, gd))
			case *ast.ValueSpec:
				if gd.Tok == token.CONST {
					if err := p.addConst(spec, docOf(spec.Doc, gd)); err != nil {
						return err
					}
				}
			}
		}
	}
	return nil
}

// docOf is a spec's own doc comment, or its declaration's when the
// declaration holds that one spec alone.
func docOf(own *ast.CommentGroup, gd *ast.GenDecl) []string {
	if own == nil && len(gd.Specs) == 1 {
		own = gd.Doc
	}
	return commentLines(own)
}

// commentLines splits a comment into lines without the comment markers
// and the one space after them, keeping any further indentation.
func commentLines(g *ast.CommentGroup) []string {
	if g == nil {
		return nil
	}
	var lines []string
	for _, c := range g.List {
		text := strings.TrimPrefix(c.Text, "//")
		text = strings.TrimPrefix(text, " ")
		lines = append(lines, strings.TrimRight(text, " \t"))
	}
	return lines
}

func (p *pkgSource) addType(spec *ast.TypeSpec, doc []string) {
	t := &typeSource{doc: doc, fields: map[string][]string{}}
	if st, ok := spec.Type.(*ast.StructType); ok {
		for _, f := range st.Fields.List {
			lines := commentLines(f.Doc)
			for _, n := range f.Names {
				t.fields[n.Name] = lines
			}
			if len(f.Names) == 0 {
				t.fields[embeddedName(f.Type)] = lines
			}
		}
	}
	p.types[spec.Name.Name] = t
}

// embeddedName is the field name Go gives an embedded type.
func embeddedName(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.StarExpr:
		return embeddedName(e.X)
	case *ast.SelectorExpr:
		return e.Sel.Name
	case *ast.Ident:
		return e.Name
	}
	return ""
}

// addConst records constants declared with a named type of this package
// ("PullAlways PullPolicy = \"Always\""). A string constant whose value is
// not a literal is kept as opaque: an enum of its type is an error, rather
// than silently missing a value.
func (p *pkgSource) addConst(spec *ast.ValueSpec, doc []string) error {
	typ, ok := spec.Type.(*ast.Ident)
	if !ok {
		return nil
	}
	for i, n := range spec.Names {
		c := constSource{name: n.Name, doc: doc, opaque: true}
		if i < len(spec.Values) {
			if lit, ok := spec.Values[i].(*ast.BasicLit); ok {
				if lit.Kind != token.STRING {
					continue // numeric constants are never enum values
				}
				v, err := strconv.Unquote(lit.Value)
				if err != nil {
					return fmt.Errorf("constant %s: %w", n.Name, err)
				}
				c.value, c.opaque = v, false
			}
		}
		p.consts[typ.Name] = append(p.consts[typ.Name], c)
	}
	return nil
}
