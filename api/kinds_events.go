package api

import (
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// events.k8s.io/v1 Events are the core/v1 Events, stored once as those:
// newer clients write this group, kubectl get events reads the core one.
func init() {
	registerVersion(&Resource{Group: "events.k8s.io", Version: "v1", Name: "events", Singular: "event", Kind: "Event",
		Namespaced: true, ShortNames: []string{"ev"},
		newObject: func() Object { return &eventsv1.Event{} },
		newList:   func() runtime.Object { return &eventsv1.EventList{} }},
		MustLookup("", "v1", "events"),
		conversion{toStorage: eventToCore, fromStorage: eventFromCore},
		Rules{Validate: func(o Object) field.ErrorList { return validateEventsV1(o.(*eventsv1.Event)) }})
}

func eventToCore(obj Object) (Object, error) {
	in := obj.(*eventsv1.Event)
	out := &corev1.Event{
		TypeMeta:       metav1.TypeMeta{APIVersion: "v1", Kind: "Event"},
		ObjectMeta:     *in.ObjectMeta.DeepCopy(),
		InvolvedObject: in.Regarding, Related: copyRef(in.Related), Message: in.Note, Reason: in.Reason, Type: in.Type,
		Action: in.Action, EventTime: in.EventTime, ReportingController: in.ReportingController,
		ReportingInstance: in.ReportingInstance, Source: in.DeprecatedSource,
		FirstTimestamp: in.DeprecatedFirstTimestamp, LastTimestamp: in.DeprecatedLastTimestamp, Count: in.DeprecatedCount,
	}
	if s := in.Series; s != nil {
		out.Series = &corev1.EventSeries{Count: s.Count, LastObservedTime: s.LastObservedTime}
	}
	return out, nil
}

// eventFromCore maps a core Event; one written by an older client names
// its reporter only in source, which then stands for reportingController
// and reportingInstance.
func eventFromCore(obj Object) (Object, error) {
	in := obj.(*corev1.Event)
	out := &eventsv1.Event{
		TypeMeta:   metav1.TypeMeta{APIVersion: "events.k8s.io/v1", Kind: "Event"},
		ObjectMeta: *in.ObjectMeta.DeepCopy(),
		Regarding:  in.InvolvedObject, Related: copyRef(in.Related), Note: in.Message, Reason: in.Reason, Type: in.Type,
		Action: in.Action, EventTime: in.EventTime, ReportingController: in.ReportingController,
		ReportingInstance: in.ReportingInstance, DeprecatedSource: in.Source,
		DeprecatedFirstTimestamp: in.FirstTimestamp, DeprecatedLastTimestamp: in.LastTimestamp, DeprecatedCount: in.Count,
	}
	if out.ReportingController == "" {
		out.ReportingController = in.Source.Component
	}
	if out.ReportingInstance == "" {
		out.ReportingInstance = in.Source.Host
	}
	if s := in.Series; s != nil {
		out.Series = &eventsv1.EventSeries{Count: s.Count, LastObservedTime: s.LastObservedTime}
	}
	return out, nil
}

func copyRef(r *corev1.ObjectReference) *corev1.ObjectReference {
	if r == nil {
		return nil
	}
	c := *r
	return &c
}

// Limits upstream puts on events.k8s.io/v1 Events.
const (
	maxEventNote  = 1024
	maxEventField = 128
)

// validateEventsV1 follows upstream's rules for events written through
// events.k8s.io/v1: eventTime, reportingController, reportingInstance,
// action and reason are required, the note short.
func validateEventsV1(e *eventsv1.Event) field.ErrorList {
	var errs field.ErrorList
	if ns := e.Regarding.Namespace; ns != "" && ns != e.Namespace {
		errs = append(errs, field.Invalid(field.NewPath("regarding", "namespace"), ns, "does not match event.namespace"))
	}
	errs = append(errs, oneOf(e.Type, []string{corev1.EventTypeNormal, corev1.EventTypeWarning}, field.NewPath("type"))...)
	errs = append(errs, nonNegative(&e.DeprecatedCount, field.NewPath("deprecatedCount"))...)
	if e.EventTime.IsZero() {
		errs = append(errs, field.Required(field.NewPath("eventTime"), ""))
	}
	if e.ReportingController == "" {
		errs = append(errs, field.Required(field.NewPath("reportingController"), ""))
	} else {
		errs = append(errs, invalidEach(field.NewPath("reportingController"), e.ReportingController, validation.IsQualifiedName(e.ReportingController))...)
	}
	for _, f := range []struct{ name, v string }{{"reportingInstance", e.ReportingInstance}, {"action", e.Action}, {"reason", e.Reason}} {
		switch {
		case f.v == "":
			errs = append(errs, field.Required(field.NewPath(f.name), ""))
		case len(f.v) > maxEventField:
			errs = append(errs, field.TooLong(field.NewPath(f.name), "", maxEventField))
		}
	}
	if len(e.Note) > maxEventNote {
		errs = append(errs, field.TooLong(field.NewPath("note"), "", maxEventNote))
	}
	if s := e.Series; s != nil {
		if s.Count < 2 {
			errs = append(errs, field.Invalid(field.NewPath("series", "count"), s.Count, "should be at least 2"))
		}
		if s.LastObservedTime.IsZero() {
			errs = append(errs, field.Required(field.NewPath("series", "lastObservedTime"), ""))
		}
	}
	return errs
}
