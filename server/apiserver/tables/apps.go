package tables

import (
	"fmt"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/duration"

	"github.com/bramble-edge/bramble/api"
)

func init() { queuePrinters(appsPrinters) }

func appsPrinters() {
	wide := []string{"Containers+", "string", "Images+", "string", "Selector+", "string"}
	register("Deployment", deploymentCells, append([]string{"Name", "string", "Ready", "string",
		"Up-to-date", "integer", "Available", "integer", "Age", "string"}, wide...)...)
	register("ReplicaSet", replicaSetCells, append([]string{"Name", "string", "Desired", "integer",
		"Current", "integer", "Ready", "integer", "Age", "string"}, wide...)...)
	register("DaemonSet", daemonSetCells, append([]string{"Name", "string", "Desired", "integer",
		"Current", "integer", "Ready", "integer", "Up-to-date", "integer", "Available", "integer",
		"Node Selector", "string", "Age", "string"}, wide...)...)
	register("Job", jobCells, append([]string{"Name", "string", "Status", "string", "Completions", "string",
		"Duration", "string", "Age", "string"}, wide...)...)
	for k, v := range map[string]string{
		"Up-to-date": "Replicas running the latest pod template.", "Available": "Replicas available for at least minReadySeconds.",
		"Desired": "Replicas wanted.", "Current": "Replicas that exist.", "Node Selector": "The node selector of the pod template.",
		"Completions": "Succeeded pods out of the completions wanted.", "Duration": "How long the job ran, or has been running.",
		"Containers": "Names of the pod template's containers.", "Images": "Images of the pod template's containers.",
		"Selector": "The label selector of the pods.",
	} {
		columnHelp[k] = v
	}
}

// templateCells are the -o wide CONTAINERS, IMAGES and SELECTOR cells.
func templateCells(spec *corev1.PodSpec, sel *metav1.LabelSelector) []any {
	names := make([]string, len(spec.Containers))
	images := make([]string, len(spec.Containers))
	for i, c := range spec.Containers {
		names[i], images[i] = c.Name, c.Image
	}
	return []any{strings.Join(names, ","), strings.Join(images, ","), metav1.FormatLabelSelector(sel)}
}

func replicas(p *int32) int64 {
	if p == nil {
		return 1
	}
	return int64(*p)
}

func deploymentCells(obj api.Object, now time.Time) []any {
	d := obj.(*appsv1.Deployment)
	st := d.Status
	cells := []any{d.Name, fmt.Sprintf("%d/%d", st.ReadyReplicas, replicas(d.Spec.Replicas)),
		int64(st.UpdatedReplicas), int64(st.AvailableReplicas), age(d.CreationTimestamp, now)}
	return append(cells, templateCells(&d.Spec.Template.Spec, d.Spec.Selector)...)
}

func replicaSetCells(obj api.Object, now time.Time) []any {
	rs := obj.(*appsv1.ReplicaSet)
	cells := []any{rs.Name, replicas(rs.Spec.Replicas), int64(rs.Status.Replicas), int64(rs.Status.ReadyReplicas),
		age(rs.CreationTimestamp, now)}
	return append(cells, templateCells(&rs.Spec.Template.Spec, rs.Spec.Selector)...)
}

func daemonSetCells(obj api.Object, now time.Time) []any {
	ds := obj.(*appsv1.DaemonSet)
	st := ds.Status
	nodeSel := labels.FormatLabels(ds.Spec.Template.Spec.NodeSelector) // "<none>" when empty
	cells := []any{ds.Name, int64(st.DesiredNumberScheduled), int64(st.CurrentNumberScheduled), int64(st.NumberReady),
		int64(st.UpdatedNumberScheduled), int64(st.NumberAvailable), nodeSel, age(ds.CreationTimestamp, now)}
	return append(cells, templateCells(&ds.Spec.Template.Spec, ds.Spec.Selector)...)
}

func jobCells(obj api.Object, now time.Time) []any {
	j := obj.(*batchv1.Job)
	cells := []any{j.Name, JobStatusText(j), jobCompletions(j), jobDuration(j, now), age(j.CreationTimestamp, now)}
	return append(cells, templateCells(&j.Spec.Template.Spec, j.Spec.Selector)...)
}

// JobStatusText is the job STATUS column: Complete, Failed, Terminating,
// Suspended, FailureTarget, SuccessCriteriaMet or Running.
func JobStatusText(j *batchv1.Job) string {
	has := func(t batchv1.JobConditionType) bool {
		for _, c := range j.Status.Conditions {
			if c.Type == t && c.Status == corev1.ConditionTrue {
				return true
			}
		}
		return false
	}
	switch {
	case has(batchv1.JobComplete):
		return "Complete"
	case has(batchv1.JobFailed):
		return "Failed"
	case j.DeletionTimestamp != nil:
		return "Terminating"
	case has(batchv1.JobSuspended):
		return "Suspended"
	case has(batchv1.JobFailureTarget):
		return "FailureTarget"
	case has(batchv1.JobSuccessCriteriaMet):
		return "SuccessCriteriaMet"
	}
	return "Running"
}

func jobCompletions(j *batchv1.Job) string {
	done := j.Status.Succeeded
	switch {
	case j.Spec.Completions != nil:
		return fmt.Sprintf("%d/%d", done, *j.Spec.Completions)
	case j.Spec.Parallelism == nil:
		return fmt.Sprintf("%d/1 of 1", done)
	case *j.Spec.Parallelism > 1:
		return fmt.Sprintf("%d/1 of %d", done, *j.Spec.Parallelism)
	}
	return fmt.Sprintf("%d/1", done)
}

func jobDuration(j *batchv1.Job, now time.Time) string {
	start, end := j.Status.StartTime, j.Status.CompletionTime
	switch {
	case start == nil:
		return ""
	case end == nil:
		return duration.HumanDuration(now.Sub(start.Time))
	}
	return duration.HumanDuration(end.Sub(start.Time))
}
