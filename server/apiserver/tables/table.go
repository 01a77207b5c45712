// Package tables prints objects as the meta.k8s.io/v1 Tables kubectl
// asks for: the built-in kinds with upstream's columns, any other kind
// with its name and age.
package tables

import (
	"fmt"
	"reflect"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/duration"

	"github.com/bramble-edge/bramble/api"
)

// Values of Options.IncludeObject (the includeObject query parameter).
const (
	IncludeMetadata = "Metadata"
	IncludeObject   = "Object"
	IncludeNone     = "None"
)

// Options controls Table.
type Options struct {
	// Now is the time ages are measured against; zero means time.Now().
	Now time.Time
	// IncludeObject is "Metadata" (the default when empty), "Object" or "None".
	IncludeObject string
	// NoHeaders omits columnDefinitions, for watch events after the first.
	NoHeaders bool
}

// Table renders objs, all of r's kind, as the meta.k8s.io/v1 Table kubectl
// prints: the kind's columns (priority 1 only shows with -o wide), one row per
// object with every cell filled, and rows[].object per opts.IncludeObject. The
// caller sets metadata.resourceVersion (and continue) on the result.
func Table(r *api.Resource, objs []api.Object, opts Options) (*metav1.Table, error) {
	opts, err := normalizeTableOptions(opts)
	if err != nil {
		return nil, err
	}
	loadPrinters()
	p, ok := printers[r.APIVersion()+"/"+r.Kind] // a kind with the name of another group's
	if !ok {
		p, ok = printers[r.Kind]
	}
	if !ok || r.Unstructured() {
		p = printerOf(r) // a kind added at run time may share a built-in kind's name
	}
	t := &metav1.Table{
		TypeMeta: metav1.TypeMeta{Kind: "Table", APIVersion: metav1.SchemeGroupVersion.String()},
		Rows:     make([]metav1.TableRow, 0, len(objs)),
	}
	if !opts.NoHeaders {
		t.ColumnDefinitions = p.columnDefinitions()
	}
	want := reflect.TypeOf(r.New())
	for _, obj := range objs {
		if reflect.TypeOf(obj) != want {
			return nil, fmt.Errorf("table of %s: got a %T", r.Name, obj)
		}
		row, err := tableRow(r, p, obj, opts)
		if err != nil {
			return nil, err
		}
		t.Rows = append(t.Rows, row)
	}
	return t, nil
}

func normalizeTableOptions(opts Options) (Options, error) {
	if opts.Now.IsZero() {
		opts.Now = time.Now()
	}
	switch opts.IncludeObject {
	case "":
		opts.IncludeObject = IncludeMetadata
	case IncludeMetadata, IncludeObject, IncludeNone:
	default:
		return opts, fmt.Errorf("includeObject %q: want one of Metadata, Object, None", opts.IncludeObject)
	}
	return opts, nil
}

// columnDefinitions returns a copy of the columns with their descriptions.
func (p printer) columnDefinitions() []metav1.TableColumnDefinition {
	cols := append([]metav1.TableColumnDefinition(nil), p.columns...)
	for i := range cols {
		if cols[i].Description == "" { // a CRD's columns bring their own
			cols[i].Description = columnHelp[cols[i].Name]
		}
	}
	return cols
}

func tableRow(r *api.Resource, p printer, obj api.Object, opts Options) (metav1.TableRow, error) {
	row := metav1.TableRow{Cells: p.cells(obj, opts.Now)}
	var embed runtime.Object
	switch opts.IncludeObject {
	case IncludeMetadata:
		m := &metav1.PartialObjectMetadata{
			TypeMeta: metav1.TypeMeta{Kind: "PartialObjectMetadata", APIVersion: metav1.SchemeGroupVersion.String()},
		}
		m.ObjectMeta = api.ObjectMetaOf(obj)
		embed = m
	case IncludeObject:
		embed = obj
	default:
		return row, nil
	}
	raw, err := api.EncodeObject(embed)
	if err != nil {
		return row, fmt.Errorf("table row for %s %q: %w", r.Kind, obj.GetName(), err)
	}
	row.Object = runtime.RawExtension{Raw: raw}
	return row, nil
}

// printer knows one kind's columns and how to fill a row's cells. Cells are
// strings or int64 (metav1.TableRow deep-copies only JSON value types).
type printer struct {
	columns []metav1.TableColumnDefinition
	cells   func(obj api.Object, now time.Time) []any
}

// printers holds the built-in kinds' printers, by kind (or apiVersion/kind).
// It and columnHelp are filled on the first Table: only the server prints
// tables, and the agent, which shares the binary, should not hold them.
var printers = map[string]printer{}

// registrations are the kinds' printer registrations, queued by the init
// functions with queuePrinters (in their order, which decides columnHelp where two kinds
// describe one column) and run once by loadPrinters.
var registrations []func()

func queuePrinters(f func()) { registrations = append(registrations, f) }

var loadPrinters = sync.OnceFunc(func() {
	for _, f := range registrations {
		f()
	}
})

// register adds a kind's printer; cols alternates "Name", "type" pairs,
// with a trailing "+" on the name for -o wide (priority 1) columns.
func register(kind string, cells func(api.Object, time.Time) []any, cols ...string) {
	p := printer{cells: cells}
	for i := 0; i+1 < len(cols); i += 2 {
		name, typ, prio := cols[i], cols[i+1], int32(0)
		if name[len(name)-1] == '+' {
			name, prio = name[:len(name)-1], 1
		}
		col := metav1.TableColumnDefinition{Name: name, Type: typ, Priority: prio}
		if name == "Name" {
			col.Format = "name"
		}
		p.columns = append(p.columns, col)
	}
	printers[kind] = p
}

var genericPrinter = printer{
	columns: []metav1.TableColumnDefinition{
		{Name: "Name", Type: "string", Format: "name", Description: columnHelp["Name"]},
		{Name: "Age", Type: "string", Description: columnHelp["Age"]},
	},
	cells: func(obj api.Object, now time.Time) []any {
		return []any{obj.GetName(), age(obj.GetCreationTimestamp(), now)}
	},
}

var columnHelp = map[string]string{
	"Name": "Name must be unique within a namespace; it is the object's metadata.name.",
	"Age":  "Time since the object was created (metadata.creationTimestamp).",
}

// age prints the time since t as kubectl does ("5m", "3d4h"), or
// "<unknown>" for a zero time.
func age(t metav1.Time, now time.Time) string {
	if t.IsZero() {
		return "<unknown>"
	}
	return duration.HumanDuration(now.Sub(t.Time))
}

// orNone replaces an empty string with "<none>".
func orNone(s string) string {
	if s == "" {
		return "<none>"
	}
	return s
}
