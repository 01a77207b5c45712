package endpoints

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/controllers"
)

// Indexes that spare a pod change a scan of every Service of its
// namespace, and a Service's sync a scan of every pod: with 1,000
// Services and 10,000 pods in one namespace those scans were most of the
// time of a pod change (BENCHMARKS.md).
const (
	// indexPodLabel indexes pods by each "<ns>/<key>=<value>" label.
	indexPodLabel = "endpoints-pod-label"
	// indexSelector indexes Services by each "<ns>/<key>=<value>" of
	// their selector.
	indexSelector = "endpoints-selector"
)

// addIndexes adds both indexes (adding one again only rebuilds it, so
// both controllers may).
func addIndexes(svcInf, podInf *controllers.Informer) {
	podInf.AddIndex(indexPodLabel, func(o api.Object) []string { return pairs(o.GetNamespace(), o.GetLabels()) })
	svcInf.AddIndex(indexSelector, func(o api.Object) []string {
		return pairs(o.GetNamespace(), o.(*corev1.Service).Spec.Selector)
	})
}

func pairs(ns string, m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k, v := range m {
		out = append(out, ns+"/"+k+"="+v)
	}
	return out
}

// selects reports whether a non-empty selector matches labels.
func selects(sel, lbls map[string]string) bool {
	for k, v := range sel {
		if have, ok := lbls[k]; !ok || have != v {
			return false
		}
	}
	return len(sel) > 0
}

// selectedPods are the pods svc's selector matches: those under the
// selector's rarest pair, checked against the whole selector.
func selectedPods(podInf *controllers.Informer, svc *corev1.Service) []*corev1.Pod {
	var fewest []api.Object
	for i, p := range pairs(svc.Namespace, svc.Spec.Selector) {
		if objs := podInf.ByIndex(indexPodLabel, p); i == 0 || len(objs) < len(fewest) {
			fewest = objs
		}
	}
	out := make([]*corev1.Pod, 0, len(fewest))
	for _, o := range fewest {
		if p := o.(*corev1.Pod); selects(svc.Spec.Selector, p.Labels) {
			out = append(out, p)
		}
	}
	return out
}

// selecting lists the keys of the Services whose selector matches the
// pod's labels, before (old, when not nil) or after a change.
func selecting(svcInf *controllers.Informer, old, cur api.Object) []string {
	seen := map[string]bool{}
	var keys []string
	for _, pod := range []api.Object{old, cur} {
		if pod == nil {
			continue
		}
		for _, p := range pairs(pod.GetNamespace(), pod.GetLabels()) {
			for _, o := range svcInf.ByIndex(indexSelector, p) {
				key := controllers.KeyOf(o)
				if !seen[key] && selects(o.(*corev1.Service).Spec.Selector, pod.GetLabels()) {
					seen[key] = true
					keys = append(keys, key)
				}
			}
		}
	}
	return keys
}
