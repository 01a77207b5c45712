package api

import (
	"strings"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

func init() {
	register(&Resource{Group: "batch", Version: "v1", Name: "cronjobs", Singular: "cronjob", Kind: "CronJob",
		Namespaced: true, ShortNames: []string{"cj"}, Categories: []string{"all"},
		Subresources: []string{"status"}, Generation: true,
		newObject: func() Object { return &batchv1.CronJob{} },
		newList:   func() runtime.Object { return &batchv1.CronJobList{} }},
		Rules{
			Default:  func(o Object) { defaultCronJob(o.(*batchv1.CronJob)) },
			Validate: func(o Object) field.ErrorList { return validateCronJob(o.(*batchv1.CronJob)) },
		})
}

// maxCronJobName leaves room for the 11 characters a Job's name adds.
const maxCronJobName = 63 - 11

func defaultCronJob(cj *batchv1.CronJob) {
	s := &cj.Spec
	if s.ConcurrencyPolicy == "" {
		s.ConcurrencyPolicy = batchv1.AllowConcurrent
	}
	if s.Suspend == nil {
		s.Suspend = ptrTo(false)
	}
	if s.SuccessfulJobsHistoryLimit == nil {
		s.SuccessfulJobsHistoryLimit = ptrTo(int32(3))
	}
	if s.FailedJobsHistoryLimit == nil {
		s.FailedJobsHistoryLimit = ptrTo(int32(1))
	}
	defaultPodSpec(&s.JobTemplate.Spec.Template.Spec)
}

func validateCronJob(cj *batchv1.CronJob) field.ErrorList {
	var errs field.ErrorList
	if len(cj.Name) > maxCronJobName {
		errs = append(errs, field.Invalid(field.NewPath("metadata", "name"), cj.Name, "must be no more than 52 characters"))
	}
	s := &cj.Spec
	errs = append(errs, validateSchedule(s.Schedule, s.TimeZone)...)
	errs = append(errs, oneOf(s.ConcurrencyPolicy, []batchv1.ConcurrencyPolicy{
		batchv1.AllowConcurrent, batchv1.ForbidConcurrent, batchv1.ReplaceConcurrent}, specPath.Child("concurrencyPolicy"))...)
	if d := s.StartingDeadlineSeconds; d != nil && *d < 0 {
		errs = append(errs, field.Invalid(specPath.Child("startingDeadlineSeconds"), *d, "must be greater than or equal to 0"))
	}
	errs = append(errs, nonNegative(s.SuccessfulJobsHistoryLimit, specPath.Child("successfulJobsHistoryLimit"))...)
	errs = append(errs, nonNegative(s.FailedJobsHistoryLimit, specPath.Child("failedJobsHistoryLimit"))...)
	return append(errs, validateJobTemplate(&s.JobTemplate, specPath.Child("jobTemplate"))...)
}

func validateSchedule(schedule string, tz *string) field.ErrorList {
	p := specPath.Child("schedule")
	switch {
	case schedule == "":
		return field.ErrorList{field.Required(p, "")}
	case strings.Contains(schedule, "TZ"):
		return field.ErrorList{field.Invalid(p, schedule, "cannot use TZ or CRON_TZ in schedule, use timeZone field instead")}
	}
	var errs field.ErrorList
	if _, err := ParseSchedule(schedule); err != nil {
		errs = append(errs, field.Invalid(p, schedule, err.Error()))
	}
	if tz == nil {
		return errs
	}
	tp := specPath.Child("timeZone")
	if *tz == "" || strings.EqualFold(*tz, "Local") {
		return append(errs, field.Invalid(tp, *tz, "timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones"))
	}
	if _, err := time.LoadLocation(*tz); err != nil {
		errs = append(errs, field.Invalid(tp, *tz, err.Error()))
	}
	return errs
}

// validateJobTemplate checks what a Job made from the template would be
// refused for; its selector is generated, so none may be given.
func validateJobTemplate(jt *batchv1.JobTemplateSpec, p *field.Path) field.ErrorList {
	sp, tp := p.Child("spec"), p.Child("spec", "template")
	errs := metav1validation.ValidateLabels(jt.Labels, p.Child("metadata", "labels"))
	s := &jt.Spec
	if s.Selector != nil && (s.ManualSelector == nil || !*s.ManualSelector) {
		errs = append(errs, field.Invalid(sp.Child("selector"), s.Selector, "`selector` will be auto-generated"))
	}
	for _, f := range []struct {
		v    *int32
		name string
	}{{s.Parallelism, "parallelism"}, {s.Completions, "completions"}, {s.BackoffLimit, "backoffLimit"}, {s.TTLSecondsAfterFinished, "ttlSecondsAfterFinished"}} {
		errs = append(errs, nonNegative(f.v, sp.Child(f.name))...)
	}
	errs = append(errs, positive(s.ActiveDeadlineSeconds, sp.Child("activeDeadlineSeconds"))...)
	errs = append(errs, metav1validation.ValidateLabels(s.Template.Labels, tp.Child("metadata", "labels"))...)
	errs = append(errs, validatePodSpec(&s.Template.Spec, tp.Child("spec"))...)
	if rp := s.Template.Spec.RestartPolicy; rp != corev1.RestartPolicyOnFailure && rp != corev1.RestartPolicyNever {
		errs = append(errs, field.NotSupported(tp.Child("spec", "restartPolicy"), rp, jobRestart))
	}
	return errs
}
