package api

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// event writes a core/v1 Event, the kind the scheduler's Scheduled events
// and every in-process NewEvent store.
func (e *encoder) event(ev *corev1.Event, kind, apiVersion string) {
	e.typeMeta(kind, apiVersion)
	e.objectMeta(&ev.ObjectMeta)
	e.field("involvedObject")
	e.objectReference(&ev.InvolvedObject)
	e.strOmit("reason", ev.Reason)
	e.strOmit("message", ev.Message)
	e.field("source")
	e.b = append(e.b, '{')
	e.strOmit("component", ev.Source.Component)
	e.strOmit("host", ev.Source.Host)
	e.b = append(e.b, '}')
	e.time("firstTimestamp", ev.FirstTimestamp)
	e.time("lastTimestamp", ev.LastTimestamp)
	e.intOmit("count", int64(ev.Count))
	e.strOmit("type", ev.Type)
	e.field("eventTime")
	e.b = appendTime(e.b, ev.EventTime.Time, metav1.RFC3339Micro)
	fallbackPtr(e, "series", ev.Series)
	e.strOmit("action", ev.Action)
	if ev.Related != nil {
		e.field("related")
		e.objectReference(ev.Related)
	}
	e.str("reportingComponent", ev.ReportingController)
	e.str("reportingInstance", ev.ReportingInstance)
	e.b = append(e.b, '}')
}
