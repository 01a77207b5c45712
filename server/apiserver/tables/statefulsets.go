package tables

import (
	"fmt"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/bramble-edge/bramble/api"
)

func init() { queuePrinters(statefulsetsPrinters) }

func statefulsetsPrinters() {
	register("StatefulSet", statefulSetCells, "Name", "string", "Ready", "string", "Age", "string",
		"Containers+", "string", "Images+", "string")
	register("ControllerRevision", controllerRevisionCells, "Name", "string", "Controller", "string",
		"Revision", "integer", "Age", "string")
	register("CronJob", cronJobCells, "Name", "string", "Schedule", "string", "Timezone", "string",
		"Suspend", "boolean", "Active", "integer", "Last Schedule", "string", "Age", "string",
		"Containers+", "string", "Images+", "string", "Selector+", "string")
	for k, v := range map[string]string{
		"Ready": "Ready replicas out of those wanted.", "Controller": "The object that owns this revision.",
		"Revision": "The revision's number.", "Schedule": "The cron schedule Jobs are created on.",
		"Timezone": "The time zone the schedule is read in.", "Suspend": "Whether new Jobs are held back.",
		"Active": "Jobs running now.", "Last Schedule": "When a Job was last scheduled.",
	} {
		if _, ok := columnHelp[k]; !ok {
			columnHelp[k] = v
		}
	}
}

func statefulSetCells(obj api.Object, now time.Time) []any {
	ss := obj.(*appsv1.StatefulSet)
	ready := fmt.Sprintf("%d/%d", ss.Status.ReadyReplicas, replicas(ss.Spec.Replicas))
	cells := []any{ss.Name, ready, age(ss.CreationTimestamp, now)}
	return append(cells, templateCells(&ss.Spec.Template.Spec, nil)[:2]...)
}

// controllerRevisionCells names the owner as kubectl does:
// "statefulset.apps/web".
func controllerRevisionCells(obj api.Object, now time.Time) []any {
	cr := obj.(*appsv1.ControllerRevision)
	owner := "<none>"
	if ref := metav1.GetControllerOf(cr); ref != nil {
		gv, _ := schema.ParseGroupVersion(ref.APIVersion)
		kind := strings.ToLower(ref.Kind)
		if gv.Group != "" {
			kind += "." + gv.Group
		}
		owner = kind + "/" + ref.Name
	}
	return []any{cr.Name, owner, cr.Revision, age(cr.CreationTimestamp, now)}
}

func cronJobCells(obj api.Object, now time.Time) []any {
	cj := obj.(*batchv1.CronJob)
	tz, last, suspend := "<none>", "<none>", "<unset>"
	if cj.Spec.TimeZone != nil {
		tz = *cj.Spec.TimeZone
	}
	if t := cj.Status.LastScheduleTime; t != nil {
		last = age(*t, now)
	}
	if s := cj.Spec.Suspend; s != nil {
		suspend = map[bool]string{true: "True", false: "False"}[*s]
	}
	jt := &cj.Spec.JobTemplate.Spec
	cells := []any{cj.Name, cj.Spec.Schedule, tz, suspend, int64(len(cj.Status.Active)), last, age(cj.CreationTimestamp, now)}
	return append(cells, templateCells(&jt.Template.Spec, jt.Selector)...)
}
