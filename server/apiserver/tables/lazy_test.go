package tables

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/internal/childtest"
)

// TestPrintersLoadOnFirstTable runs itself in a fresh process, where no
// other test has printed a table: package initialisation only queues the
// kinds' printers, and the first Table loads them all.
func TestPrintersLoadOnFirstTable(t *testing.T) {
	if !childtest.Fresh(t) {
		return
	}
	if len(printers) != 0 || len(registrations) == 0 {
		t.Fatalf("after init: %d printers, %d queued registrations; want none and some", len(printers), len(registrations))
	}
	pods, _ := api.ByKind("", "Pod")
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p"}}
	tab, err := Table(pods, []api.Object{pod}, Options{IncludeObject: IncludeNone})
	if err != nil {
		t.Fatal(err)
	}
	if len(printers) < len(registrations) {
		t.Errorf("after the first Table: %d printers for %d registrations", len(printers), len(registrations))
	}
	if n := len(tab.ColumnDefinitions); n != 9 || tab.ColumnDefinitions[1].Name != "Ready" || tab.ColumnDefinitions[1].Description == "" {
		t.Errorf("pod columns: %+v", tab.ColumnDefinitions)
	}
}
