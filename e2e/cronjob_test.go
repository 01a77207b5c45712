package e2e

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"

	"github.com/bramble-edge/bramble/bench/hollow/hollownode"
	"github.com/bramble-edge/bramble/e2e/cluster"
)

func minuteCronJob(name, policy string) string {
	return fmt.Sprintf(`apiVersion: batch/v1
kind: CronJob
metadata: {name: %s}
spec:
  schedule: "*/1 * * * *"
  concurrencyPolicy: %s
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: Never
          containers: [{name: sweep, image: registry.lan/sweep:v1}]
`, name, policy)
}

// TestCronJobEveryMinute runs two "*/1 * * * *" CronJobs on the real
// clock for three minutes, their pods taking 70 s on a hollow node: the
// Allow one starts a Job every minute, the Forbid one skips the minute its
// previous Job still runs. It takes about 3.5 minutes of waiting, so it
// runs only with BRAMBLE_E2E_LONG=1, which hack/test.sh sets for a run of
// it in the background beside the other suites (the injected-clock tests
// in controllers/cronjob cover the same logic in the main run).
func TestCronJobEveryMinute(t *testing.T) {
	if os.Getenv("BRAMBLE_E2E_LONG") != "1" {
		t.Skip("a 3.5-minute real-clock run; set BRAMBLE_E2E_LONG=1")
	}
	s := cluster.StartServer(t)
	startFleet(t, s, cluster.JoinToken(t, s), hollownode.Config{Prefix: "pi", Nodes: 1, Arch: "arm64",
		SucceedAfter: 70 * time.Second})
	waitNodes(t, s, 1)
	if next := time.Now().Truncate(time.Minute).Add(time.Minute); time.Until(next) < 10*time.Second {
		time.Sleep(time.Until(next) + time.Second) // create well inside a minute
	}
	first := time.Now().Truncate(time.Minute).Add(time.Minute)
	apply(t, s, minuteCronJob("every", "Allow")+"---\n"+minuteCronJob("single", "Forbid"))
	time.Sleep(time.Until(first.Add(2*time.Minute + 15*time.Second)))
	every, single := jobsOf(t, s, "every"), jobsOf(t, s, "single")
	if len(every) != 3 {
		t.Errorf("Allow: got Jobs %v in three minutes, want 3 (one a minute)", every)
	}
	if len(single) != 2 {
		t.Errorf("Forbid: got Jobs %v, want 2 (the second minute skipped while the first Job ran)", single)
	}
	if out := s.MustKubectl("get", "events", "--field-selector", "involvedObject.name=single"); !strings.Contains(out, "JobAlreadyActive") {
		t.Errorf("no JobAlreadyActive event for the Forbid CronJob:\n%s", out)
	}
}

func jobsOf(t *testing.T, s *cluster.Server, cronJob string) []string {
	t.Helper()
	var list batchv1.JobList
	if !getJSON(s, &list, "jobs") {
		t.Fatal("kubectl get jobs failed")
	}
	var out []string
	for _, j := range list.Items {
		if strings.HasPrefix(j.Name, cronJob+"-") {
			out = append(out, j.Name)
		}
	}
	return out
}
