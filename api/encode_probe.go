package api

import (
	"errors"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// Probes and env sources, set in most charts' containers.

func (e *encoder) probe(p *corev1.Probe) {
	objectPtr(e, "exec", p.Exec, (*encoder).execAction)
	objectPtr(e, "httpGet", p.HTTPGet, (*encoder).httpGet)
	objectPtr(e, "tcpSocket", p.TCPSocket, (*encoder).tcpSocket)
	fallbackPtr(e, "grpc", p.GRPC)
	e.intOmit("initialDelaySeconds", int64(p.InitialDelaySeconds))
	e.intOmit("timeoutSeconds", int64(p.TimeoutSeconds))
	e.intOmit("periodSeconds", int64(p.PeriodSeconds))
	e.intOmit("successThreshold", int64(p.SuccessThreshold))
	e.intOmit("failureThreshold", int64(p.FailureThreshold))
	e.int64Ptr("terminationGracePeriodSeconds", p.TerminationGracePeriodSeconds)
}

func (e *encoder) execAction(x *corev1.ExecAction) {
	e.strings("command", x.Command)
}

func (e *encoder) httpGet(h *corev1.HTTPGetAction) {
	e.strOmit("path", h.Path)
	e.intOrString("port", h.Port)
	e.strOmit("host", h.Host)
	e.strOmit("scheme", string(h.Scheme))
	objectList(e, "httpHeaders", h.HTTPHeaders, (*encoder).httpHeader)
}

func (e *encoder) httpHeader(h *corev1.HTTPHeader) {
	e.str("name", h.Name)
	e.str("value", h.Value)
}

func (e *encoder) tcpSocket(t *corev1.TCPSocketAction) {
	e.intOrString("port", t.Port)
	e.strOmit("host", t.Host)
}

// errIntOrStringType: IntOrString.MarshalJSON refuses any other type.
var errIntOrStringType = errors.New("impossible IntOrString.Type")

// intOrString is IntOrString.MarshalJSON: the number or the string.
func (e *encoder) intOrString(key string, v intstr.IntOrString) {
	e.field(key)
	switch v.Type {
	case intstr.Int:
		e.b = strconv.AppendInt(e.b, int64(v.IntVal), 10)
	case intstr.String:
		e.b = appendJSONString(e.b, v.StrVal)
	default:
		if e.err == nil {
			e.err = errIntOrStringType
		}
	}
}

func (e *encoder) envVarSource(s *corev1.EnvVarSource) {
	objectPtr(e, "fieldRef", s.FieldRef, (*encoder).objectFieldSelector)
	objectPtr(e, "resourceFieldRef", s.ResourceFieldRef, (*encoder).resourceFieldSelector)
	objectPtr(e, "configMapKeyRef", s.ConfigMapKeyRef, (*encoder).configMapKeySelector)
	objectPtr(e, "secretKeyRef", s.SecretKeyRef, (*encoder).secretKeySelector)
}

func (e *encoder) resourceFieldSelector(r *corev1.ResourceFieldSelector) {
	e.strOmit("containerName", r.ContainerName)
	e.str("resource", r.Resource)
	e.field("divisor") // a struct: never omitted
	e.b = appendJSONString(e.b, quantityText(r.Divisor))
}

func (e *encoder) configMapKeySelector(r *corev1.ConfigMapKeySelector) {
	e.keySelector(r.Name, r.Key, r.Optional)
}

func (e *encoder) secretKeySelector(r *corev1.SecretKeySelector) {
	e.keySelector(r.Name, r.Key, r.Optional)
}

// keySelector is the members of a ConfigMapKeySelector or SecretKeySelector.
func (e *encoder) keySelector(name, key string, optional *bool) {
	e.strOmit("name", name)
	e.str("key", key)
	e.boolPtr("optional", optional)
}
