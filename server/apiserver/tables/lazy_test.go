package tables

import (
	"os"
	"os/exec"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/api"
)

// TestPrintersLoadOnFirstTable runs itself in a fresh process, where no
// other test has printed a table: package initialisation only queues the
// kinds' printers, and the first Table loads them all.
func TestPrintersLoadOnFirstTable(t *testing.T) {
	if os.Getenv("BRAMBLE_TABLES_CHILD") == "" {
		cmd := exec.Command(os.Args[0], "-test.run", "^TestPrintersLoadOnFirstTable$", "-test.v")
		cmd.Env = append(os.Environ(), "BRAMBLE_TABLES_CHILD=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("child: %v\n%s", err, out)
		}
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
