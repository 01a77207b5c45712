package api

import (
	"errors"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// Probes and env sources, set in most charts' containers.

func (e *encoder) probe(key string, p *corev1.Probe) {
	if p == nil {
		return
	}
	e.field(key)
	e.b = append(e.b, '{')
	if x := p.Exec; x != nil {
		e.field("exec")
		e.b = append(e.b, '{')
		e.strings("command", x.Command)
		e.b = append(e.b, '}')
	}
	if h := p.HTTPGet; h != nil {
		e.field("httpGet")
		e.httpGet(h)
	}
	if t := p.TCPSocket; t != nil {
		e.field("tcpSocket")
		e.b = append(e.b, '{')
		e.intOrString("port", t.Port)
		e.strOmit("host", t.Host)
		e.b = append(e.b, '}')
	}
	fallbackPtr(e, "grpc", p.GRPC)
	e.intOmit("initialDelaySeconds", int64(p.InitialDelaySeconds))
	e.intOmit("timeoutSeconds", int64(p.TimeoutSeconds))
	e.intOmit("periodSeconds", int64(p.PeriodSeconds))
	e.intOmit("successThreshold", int64(p.SuccessThreshold))
	e.intOmit("failureThreshold", int64(p.FailureThreshold))
	e.int64Ptr("terminationGracePeriodSeconds", p.TerminationGracePeriodSeconds)
	e.b = append(e.b, '}')
}

func (e *encoder) httpGet(h *corev1.HTTPGetAction) {
	e.b = append(e.b, '{')
	e.strOmit("path", h.Path)
	e.intOrString("port", h.Port)
	e.strOmit("host", h.Host)
	e.strOmit("scheme", string(h.Scheme))
	if len(h.HTTPHeaders) > 0 {
		e.field("httpHeaders")
		e.b = append(e.b, '[')
		for i := range h.HTTPHeaders {
			e.elem()
			e.b = append(e.b, '{')
			e.str("name", h.HTTPHeaders[i].Name)
			e.str("value", h.HTTPHeaders[i].Value)
			e.b = append(e.b, '}')
		}
		e.b = append(e.b, ']')
	}
	e.b = append(e.b, '}')
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
	if s == nil {
		return
	}
	e.field("valueFrom")
	e.b = append(e.b, '{')
	if s.FieldRef != nil {
		e.field("fieldRef")
		e.objectFieldSelector(s.FieldRef)
	}
	if r := s.ResourceFieldRef; r != nil {
		e.field("resourceFieldRef")
		e.b = append(e.b, '{')
		e.strOmit("containerName", r.ContainerName)
		e.str("resource", r.Resource)
		e.field("divisor") // a struct: never omitted
		e.b = appendJSONString(e.b, quantityText(r.Divisor))
		e.b = append(e.b, '}')
	}
	if r := s.ConfigMapKeyRef; r != nil {
		e.keySelector("configMapKeyRef", r.Name, r.Key, r.Optional)
	}
	if r := s.SecretKeyRef; r != nil {
		e.keySelector("secretKeyRef", r.Name, r.Key, r.Optional)
	}
	e.b = append(e.b, '}')
}

// keySelector is a ConfigMapKeySelector or SecretKeySelector.
func (e *encoder) keySelector(key, name, k string, optional *bool) {
	e.field(key)
	e.b = append(e.b, '{')
	e.strOmit("name", name)
	e.str("key", k)
	e.boolPtr("optional", optional)
	e.b = append(e.b, '}')
}
