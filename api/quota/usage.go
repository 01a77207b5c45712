package quota

import (
	"fmt"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/bramble-edge/bramble/api"
)

// CountName is the object-count quota resource of res: "count/pods",
// "count/deployments.apps".
func CountName(res *api.Resource) corev1.ResourceName {
	if res.Group == "" {
		return corev1.ResourceName("count/" + res.Name)
	}
	return corev1.ResourceName("count/" + res.Name + "." + res.Group)
}

// Usage is what one object of res uses: its object count, plus the
// figures of the kinds upstream quotas by name (pods, services, claims,
// secrets, config maps, quotas).
func Usage(res *api.Resource, obj api.Object, now time.Time) corev1.ResourceList {
	if pod, ok := obj.(*corev1.Pod); ok {
		return PodUsage(pod, now) // with count/pods
	}
	out := corev1.ResourceList{CountName(res): one}
	if res.Group != "" {
		return out
	}
	switch o := obj.(type) {
	case *corev1.Service:
		add(out, serviceUsage(o))
	case *corev1.PersistentVolumeClaim:
		add(out, claimUsage(o))
	case *corev1.Secret, *corev1.ConfigMap, *corev1.ResourceQuota, *corev1.ReplicationController:
		out[corev1.ResourceName(res.Name)] = one
	}
	return out
}

func serviceUsage(s *corev1.Service) corev1.ResourceList {
	out := corev1.ResourceList{corev1.ResourceServices: one}
	ports := int64(0)
	if s.Spec.Type == corev1.ServiceTypeNodePort || s.Spec.Type == corev1.ServiceTypeLoadBalancer {
		ports = int64(len(s.Spec.Ports))
	}
	out[corev1.ResourceServicesNodePorts] = *resource.NewQuantity(ports, resource.DecimalSI)
	lbs := int64(0)
	if s.Spec.Type == corev1.ServiceTypeLoadBalancer {
		lbs = 1
	}
	out[corev1.ResourceServicesLoadBalancers] = *resource.NewQuantity(lbs, resource.DecimalSI)
	return out
}

func claimUsage(c *corev1.PersistentVolumeClaim) corev1.ResourceList {
	out := corev1.ResourceList{corev1.ResourcePersistentVolumeClaims: one}
	size := c.Spec.Resources.Requests[corev1.ResourceStorage]
	out[corev1.ResourceRequestsStorage] = size.DeepCopy()
	if sc := c.Spec.StorageClassName; sc != nil && *sc != "" {
		prefix := *sc + ".storageclass.storage.k8s.io/"
		out[corev1.ResourceName(prefix+"persistentvolumeclaims")] = one
		out[corev1.ResourceName(prefix+"requests.storage")] = size.DeepCopy()
	}
	return out
}

// Limited keeps the entries of usage that hard limits.
func Limited(hard, usage corev1.ResourceList) corev1.ResourceList {
	out := corev1.ResourceList{}
	for k, q := range usage {
		if _, ok := hard[k]; ok {
			out[k] = q
		}
	}
	return out
}

// Zero lists hard's names, each at zero: the start of a sum of usage.
func Zero(hard corev1.ResourceList) corev1.ResourceList {
	out := corev1.ResourceList{}
	for k := range hard {
		out[k] = *resource.NewQuantity(0, resource.DecimalSI)
	}
	return out
}

// Add adds from into to.
func Add(to, from corev1.ResourceList) { add(to, from) }

// Grown is what now uses beyond was: the positive differences.
func Grown(now, was corev1.ResourceList) corev1.ResourceList {
	out := corev1.ResourceList{}
	for k, q := range now {
		d := q.DeepCopy()
		d.Sub(was[k])
		if d.Sign() > 0 {
			out[k] = d
		}
	}
	return out
}

// Exceeded returns the names, sorted, of the resources whose used plus
// requested goes over hard.
func Exceeded(hard, used, requested corev1.ResourceList) []corev1.ResourceName {
	var out []corev1.ResourceName
	for k, req := range requested {
		limit, ok := hard[k]
		if !ok {
			continue
		}
		total := used[k].DeepCopy()
		total.Add(req)
		if total.Cmp(limit) > 0 {
			out = append(out, k)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// Print prints the named entries of l as upstream's quota messages do:
// "pods=1,requests.cpu=500m".
func Print(l corev1.ResourceList, names []corev1.ResourceName) string {
	parts := make([]string, 0, len(names))
	for _, n := range names {
		q := l[n]
		parts = append(parts, fmt.Sprintf("%s=%s", n, q.String()))
	}
	return strings.Join(parts, ",")
}
