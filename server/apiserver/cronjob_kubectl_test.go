//go:build kubectl

package apiserver

import (
	"path/filepath"
	"testing"
)

const backupCronJob = `apiVersion: batch/v1
kind: CronJob
metadata: {name: backup}
spec:
  schedule: "@hourly"
  timeZone: Europe/Berlin
  jobTemplate:
    metadata: {labels: {app: backup}}
    spec:
      template:
        spec:
          restartPolicy: OnFailure
          containers: [{name: dump, image: registry.lan/pgdump:16}]
`

// TestKubectlCreateJobFromCronJob: `kubectl create job --from=cronjob/x`
// (1.27 and 1.33) makes a Job from the CronJob's template, owned by it and
// annotated as a manual instantiation.
func TestKubectlCreateJobFromCronJob(t *testing.T) {
	for _, bin := range []string{"/usr/lib/google-cloud-sdk/bin/kubectl.1.27", "/usr/lib/google-cloud-sdk/bin/kubectl.1.33"} {
		t.Run(filepath.Base(bin), func(t *testing.T) {
			k := newPolicyEnv(t, bin)
			wantContains(t, k.ok(t, backupCronJob, "apply", "-f", "-"), "cronjob.batch/backup created")
			wantContains(t, k.ok(t, "", "get", "cronjob", "backup"), "SCHEDULE", "@hourly", "Europe/Berlin")
			wantContains(t, k.ok(t, "", "create", "job", "backup-now", "--from=cronjob/backup"), "job.batch/backup-now created")
			out := k.ok(t, "", "get", "job", "backup-now", "-o",
				`jsonpath={.metadata.ownerReferences[0].kind}/{.metadata.ownerReferences[0].name} {.metadata.annotations.cronjob\.kubernetes\.io/instantiate} {.spec.template.spec.containers[0].image} {.metadata.labels.app}`)
			if out != "CronJob/backup manual registry.lan/pgdump:16 backup" {
				t.Fatalf("got %q, want the Job owned by CronJob/backup, instantiate=manual, the template's image and labels", out)
			}
		})
	}
}
