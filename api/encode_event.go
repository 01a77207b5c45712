package api

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// event writes a core/v1 Event, the kind the scheduler's Scheduled events
// and every in-process NewEvent store.
func (e *encoder) event(ev *corev1.Event, kind, apiVersion string) {
	e.typeMeta(kind, apiVersion)
	object(e, "metadata", &ev.ObjectMeta, (*encoder).objectMeta)
	object(e, "involvedObject", &ev.InvolvedObject, (*encoder).objectReference)
	e.strOmit("reason", ev.Reason)
	e.strOmit("message", ev.Message)
	object(e, "source", &ev.Source, (*encoder).eventSource)
	e.time("firstTimestamp", ev.FirstTimestamp)
	e.time("lastTimestamp", ev.LastTimestamp)
	e.intOmit("count", int64(ev.Count))
	e.strOmit("type", ev.Type)
	e.field("eventTime")
	e.b = appendTime(e.b, ev.EventTime.Time, metav1.RFC3339Micro)
	fallbackPtr(e, "series", ev.Series)
	e.strOmit("action", ev.Action)
	objectPtr(e, "related", ev.Related, (*encoder).objectReference)
	e.str("reportingComponent", ev.ReportingController)
	e.str("reportingInstance", ev.ReportingInstance)
	e.b = append(e.b, '}')
}

func (e *encoder) eventSource(s *corev1.EventSource) {
	e.strOmit("component", s.Component)
	e.strOmit("host", s.Host)
}
