package registry

import (
	"context"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/bramble-edge/bramble/api"
)

// create decodes a YAML manifest of res and creates it in "default".
func create(t *testing.T, r *Registry, res *api.Resource, manifest string) (api.Object, error) {
	t.Helper()
	obj, _, err := api.DecodeYAML(res, []byte(manifest), true)
	if err != nil {
		t.Fatalf("decode %s: %v", res.Kind, err)
	}
	ns := ""
	if res.Namespaced {
		ns = "default"
		obj.SetNamespace(ns)
	}
	return r.Create(context.Background(), res, ns, obj, WriteOptions{})
}

func mustCreate(t *testing.T, r *Registry, res *api.Resource, manifest string) api.Object {
	t.Helper()
	obj, err := create(t, r, res, manifest)
	if err != nil {
		t.Fatalf("create %s: %v", res.Kind, err)
	}
	return obj
}

// update applies change to a fresh copy of obj and stores it.
func update[T api.Object](t *testing.T, r *Registry, res *api.Resource, obj T, change func(T)) error {
	t.Helper()
	cp := obj.DeepCopyObject().(T)
	change(cp)
	_, err := r.Update(context.Background(), res, cp.GetNamespace(), cp.GetName(), "", cp, false)
	return err
}

const stsManifest = `apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db}
spec:
  serviceName: db
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec: {containers: [{name: db, image: "redis:7", volumeMounts: [{name: data, mountPath: /data}]}]}
  volumeClaimTemplates:
  - metadata: {name: data}
    spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}
`

func TestStatefulSetDefaultsAndImmutableFields(t *testing.T) {
	r := newTestRegistry(t)
	res := api.MustLookup("apps", "v1", "statefulsets")
	ss := mustCreate(t, r, res, stsManifest).(*appsv1.StatefulSet)
	s := ss.Spec
	ru := s.UpdateStrategy.RollingUpdate
	if *s.Replicas != 1 || s.PodManagementPolicy != appsv1.OrderedReadyPodManagement || *s.RevisionHistoryLimit != 10 ||
		s.UpdateStrategy.Type != appsv1.RollingUpdateStatefulSetStrategyType || ru == nil || *ru.Partition != 0 ||
		s.PersistentVolumeClaimRetentionPolicy.WhenDeleted != appsv1.RetainPersistentVolumeClaimRetentionPolicyType ||
		s.PersistentVolumeClaimRetentionPolicy.WhenScaled != appsv1.RetainPersistentVolumeClaimRetentionPolicyType {
		t.Fatalf("got spec %+v, want upstream's defaults", s)
	}
	if s.Template.Spec.RestartPolicy != corev1.RestartPolicyAlways || *s.VolumeClaimTemplates[0].Spec.VolumeMode != corev1.PersistentVolumeFilesystem {
		t.Fatalf("got restartPolicy %q, claim volumeMode %v: want pod template and claim defaults", s.Template.Spec.RestartPolicy, s.VolumeClaimTemplates[0].Spec.VolumeMode)
	}
	if ss.Generation != 1 {
		t.Fatalf("got generation %d, want 1", ss.Generation)
	}
	if len(ss.Spec.Template.Spec.Volumes) != 0 {
		t.Fatalf("got template volumes %v, want the claim templates left out of the stored template", ss.Spec.Template.Spec.Volumes)
	}
	_, err := create(t, r, res, strings.Replace(strings.Replace(stsManifest, "name: db}", "name: db2}", 1),
		"{name: data, mountPath", "{name: nodata, mountPath", 1))
	wantInvalid(t, "mount of no volume", err, "spec.template.spec.containers[0].volumeMounts[0].name")
	wantInvalid(t, "serviceName change", update(t, r, res, ss, func(o *appsv1.StatefulSet) { o.Spec.ServiceName = "other" }),
		"spec: Forbidden: updates to statefulset spec for fields other than 'replicas'")
	wantInvalid(t, "selector change", update(t, r, res, ss, func(o *appsv1.StatefulSet) {
		o.Spec.Selector.MatchLabels["tier"] = "x"
		o.Spec.Template.Labels["tier"] = "x"
	}), "spec.selector")
	if err := update(t, r, res, ss, func(o *appsv1.StatefulSet) { o.Spec.Replicas = ptr(int32(3)) }); err != nil {
		t.Fatalf("replicas change: %v", err)
	}
	scale, err := r.GetScale(context.Background(), res, "default", "db")
	if err != nil || scale.Spec.Replicas != 3 || scale.Status.Selector != "app=db" {
		t.Fatalf("got scale %+v (%v), want 3 replicas selecting app=db", scale, err)
	}
}

func ptr[T any](v T) *T { return &v }

func TestStatefulSetValidation(t *testing.T) {
	r := newTestRegistry(t)
	res := api.MustLookup("apps", "v1", "statefulsets")
	for _, tc := range []struct{ name, from, to, field string }{
		{"policy", "serviceName: db", "serviceName: db\n  podManagementPolicy: Sometimes", "spec.podManagementPolicy"},
		{"strategy", "serviceName: db", "serviceName: db\n  updateStrategy: {type: OnDelete, rollingUpdate: {partition: 1}}", "spec.updateStrategy.rollingUpdate"},
		{"partition", "serviceName: db", "serviceName: db\n  updateStrategy: {rollingUpdate: {partition: -1}}", "spec.updateStrategy.rollingUpdate.partition"},
		{"retention", "serviceName: db", "serviceName: db\n  persistentVolumeClaimRetentionPolicy: {whenDeleted: Keep}", "spec.persistentVolumeClaimRetentionPolicy.whenDeleted"},
		{"claim storage", "requests: {storage: 1Gi}", "requests: {}", "spec.volumeClaimTemplates[0].spec.resources.requests.storage"},
		{"claim modes", "accessModes: [ReadWriteOnce], ", "", "spec.volumeClaimTemplates[0].spec.accessModes"},
		{"restart", `mountPath: /data}]}]}`, `mountPath: /data}]}], restartPolicy: Never}`, "spec.template.spec.restartPolicy"},
	} {
		_, err := create(t, r, res, strings.Replace(stsManifest, tc.from, tc.to, 1))
		wantInvalid(t, tc.name, err, tc.field)
	}
}

const cronManifest = `apiVersion: batch/v1
kind: CronJob
metadata: {name: backup}
spec:
  schedule: "*/5 * * * *"
  jobTemplate:
    spec:
      template:
        spec: {restartPolicy: OnFailure, containers: [{name: c, image: busybox}]}
`

func TestCronJobDefaultsAndSchedule(t *testing.T) {
	r := newTestRegistry(t)
	res := api.MustLookup("batch", "v1", "cronjobs")
	cj := mustCreate(t, r, res, cronManifest).(*batchv1.CronJob)
	s := cj.Spec
	if s.ConcurrencyPolicy != batchv1.AllowConcurrent || *s.Suspend || *s.SuccessfulJobsHistoryLimit != 3 || *s.FailedJobsHistoryLimit != 1 {
		t.Fatalf("got spec %+v, want Allow, not suspended, history 3/1", s)
	}
	for _, ok := range []string{`"@hourly"`, `"0 3 * * mon-fri"`, `"@every 90m"`} {
		m := strings.Replace(strings.Replace(cronManifest, `"*/5 * * * *"`, ok, 1), "backup", "ok"+string(rune('a'+len(ok))), 1)
		mustCreate(t, r, res, m)
	}
	mustCreate(t, r, res, strings.Replace(strings.Replace(cronManifest, "backup", "tz", 1), "schedule:", "timeZone: Europe/Berlin\n  schedule:", 1))
	for _, tc := range []struct{ name, from, to, field string }{
		{"minute", `"*/5 * * * *"`, `"61 * * * *"`, "spec.schedule"},
		{"fields", `"*/5 * * * *"`, `"* * *"`, "spec.schedule: Invalid value: \"* * *\": expected exactly 5 fields"},
		{"tz in schedule", `"*/5 * * * *"`, `"CRON_TZ=UTC * * * * *"`, "cannot use TZ or CRON_TZ"},
		{"time zone", "schedule:", "timeZone: Mars/Olympus\n  schedule:", "spec.timeZone"},
		{"local", "schedule:", "timeZone: Local\n  schedule:", "spec.timeZone"},
		{"policy", "schedule:", "concurrencyPolicy: Sometimes\n  schedule:", "spec.concurrencyPolicy"},
		{"restart", "restartPolicy: OnFailure", "restartPolicy: Always", "spec.jobTemplate.spec.template.spec.restartPolicy"},
		{"long name", "name: backup", "name: " + strings.Repeat("b", 53), "must be no more than 52 characters"},
	} {
		_, err := create(t, r, res, strings.Replace(cronManifest, tc.from, tc.to, 1))
		wantInvalid(t, tc.name, err, tc.field)
	}
}

func TestHPAv1ValidationNamesFields(t *testing.T) {
	r := newTestRegistry(t)
	res := api.MustLookup("autoscaling", "v1", "horizontalpodautoscalers")
	_, err := create(t, r, res, "metadata: {name: h}\nspec: {scaleTargetRef: {kind: Deployment}, minReplicas: 0, maxReplicas: 3}")
	wantInvalid(t, "v1 min", err, "spec.minReplicas")
	wantInvalid(t, "v1 name", err, "spec.scaleTargetRef.name")
}
