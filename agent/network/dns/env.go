package dns

import (
	"fmt"
	"net"
	"sort"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// ServiceEnv is the service environment the kubelet gives a pod's
// containers: for each service with a cluster IP in the pod's namespace
// (only when enableServiceLinks) and always for the `kubernetes` service
// of `default`, FOO_SERVICE_HOST, FOO_SERVICE_PORT, FOO_SERVICE_PORT_<NAME>
// and the docker-link variables FOO_PORT, FOO_PORT_<port>_<PROTO>{,_PROTO,
// _PORT,_ADDR}. Services are taken in name order.
func ServiceEnv(namespace string, enableServiceLinks bool, services []*corev1.Service) []corev1.EnvVar {
	picked := map[string]*corev1.Service{}
	for _, svc := range services {
		if svc.Spec.ClusterIP == "" || svc.Spec.ClusterIP == corev1.ClusterIPNone {
			continue
		}
		if svc.Namespace == "default" && svc.Name == "kubernetes" {
			if _, ok := picked[svc.Name]; !ok {
				picked[svc.Name] = svc
			}
		} else if svc.Namespace == namespace && enableServiceLinks {
			picked[svc.Name] = svc
		}
	}
	names := make([]string, 0, len(picked))
	for n := range picked {
		names = append(names, n)
	}
	sort.Strings(names)
	var env []corev1.EnvVar
	for _, n := range names {
		env = append(env, serviceVars(picked[n])...)
	}
	return env
}

func serviceVars(svc *corev1.Service) []corev1.EnvVar {
	prefix := envName(svc.Name)
	ip := svc.Spec.ClusterIP
	env := []corev1.EnvVar{{Name: prefix + "_SERVICE_HOST", Value: ip}}
	if len(svc.Spec.Ports) == 0 {
		return env
	}
	env = append(env, corev1.EnvVar{Name: prefix + "_SERVICE_PORT", Value: port(svc.Spec.Ports[0])})
	for _, p := range svc.Spec.Ports {
		if p.Name != "" {
			env = append(env, corev1.EnvVar{Name: prefix + "_SERVICE_PORT_" + envName(p.Name), Value: port(p)})
		}
	}
	for i, p := range svc.Spec.Ports {
		proto := strings.ToLower(string(p.Protocol))
		if proto == "" {
			proto = "tcp"
		}
		url := fmt.Sprintf("%s://%s", proto, net.JoinHostPort(ip, port(p)))
		if i == 0 {
			env = append(env, corev1.EnvVar{Name: prefix + "_PORT", Value: url})
		}
		pp := fmt.Sprintf("%s_PORT_%d_%s", prefix, p.Port, strings.ToUpper(proto))
		env = append(env,
			corev1.EnvVar{Name: pp, Value: url},
			corev1.EnvVar{Name: pp + "_PROTO", Value: proto},
			corev1.EnvVar{Name: pp + "_PORT", Value: port(p)},
			corev1.EnvVar{Name: pp + "_ADDR", Value: ip})
	}
	return env
}

func port(p corev1.ServicePort) string { return strconv.Itoa(int(p.Port)) }

// envName is a service or port name as a variable name: upper case,
// dashes as underscores.
func envName(s string) string {
	return strings.ToUpper(strings.ReplaceAll(s, "-", "_"))
}
