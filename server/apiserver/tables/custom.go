package tables

import (
	"encoding/json"
	"strings"
	"time"

	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/bramble-edge/bramble/api"
)

func init() { queuePrinters(customPrinters) }

func customPrinters() {
	register("CustomResourceDefinition", crdCells, "Name", "string", "Created At", "date")
	columnHelp["Created At"] = "When the definition was created (metadata.creationTimestamp)."
}

func crdCells(obj api.Object, _ time.Time) []any {
	crd := obj.(*apiextv1.CustomResourceDefinition)
	return []any{crd.Name, crd.CreationTimestamp.UTC().Format(time.RFC3339)}
}

// printerOf is the printer of a kind added at run time: its CRD version's
// additionalPrinterColumns after Name, as upstream prints them, or name
// and age without any.
func printerOf(r *api.Resource) printer {
	ck := r.Custom()
	if ck == nil || len(ck.Columns) == 0 {
		return genericPrinter
	}
	p := printer{columns: []metav1.TableColumnDefinition{genericPrinter.columns[0]}}
	for _, c := range ck.Columns {
		p.columns = append(p.columns, metav1.TableColumnDefinition{Name: c.Name, Type: c.Type,
			Format: c.Format, Description: c.Description, Priority: c.Priority})
	}
	cols := ck.Columns
	p.cells = func(obj api.Object, now time.Time) []any {
		u := obj.(*unstructured.Unstructured)
		cells := []any{obj.GetName()}
		for _, c := range cols {
			cells = append(cells, columnCell(c, c.Path.Find(u.Object), now))
		}
		return cells
	}
	return p
}

// columnCell formats what a column's path found: nothing is nil (kubectl
// prints <none>), dates are ages, one integer stays a number, the rest is
// text (several values comma separated).
func columnCell(c api.PrinterColumn, found []any, now time.Time) any {
	if len(found) == 0 || (len(found) == 1 && found[0] == nil) {
		return nil
	}
	if len(found) == 1 {
		switch x := found[0].(type) {
		case string:
			if c.Type == "date" {
				if t, err := time.Parse(time.RFC3339, x); err == nil {
					return age(metav1.NewTime(t), now)
				}
			}
			return x
		case int64:
			if c.Type == "integer" {
				return x
			}
		case bool:
			return x
		case float64:
			if c.Type == "number" {
				return x
			}
		}
	}
	parts := make([]string, len(found))
	for i, v := range found {
		if s, ok := v.(string); ok {
			parts[i] = s
			continue
		}
		b, _ := json.Marshal(v)
		parts[i] = string(b)
	}
	return strings.Join(parts, ",")
}
