package apiserver

import (
	"context"
	"net/http"

	corev1 "k8s.io/api/core/v1"

	"github.com/bramble-edge/bramble/mqtt"
	"github.com/bramble-edge/bramble/server/registry"
)

// podUsage is where one pod's usage is: its node's report and its entry.
type podUsage struct {
	nodeName string
	node     ReceivedUsage
	pod      *mqtt.PodUsage
}

// podIndex finds each pod's latest usage by namespace/name.
func podIndex(usage map[string]ReceivedUsage) map[string]podUsage {
	idx := map[string]podUsage{}
	for name, u := range usage {
		for i := range u.Usage.Pods {
			p := &u.Usage.Pods[i]
			idx[p.Namespace+"/"+p.Name] = podUsage{nodeName: name, node: u, pod: p}
		}
	}
	return idx
}

func (a *API) answerPodMetrics(ctx context.Context, w http.ResponseWriter, ri *requestInfo, usage map[string]ReceivedUsage, lo registry.ListOptions) error {
	idx := podIndex(usage)
	if ri.name != "" {
		u, ok := idx[ri.namespace+"/"+ri.name]
		pod, err := a.reg.Get(ctx, podsRes, ri.namespace, ri.name)
		if !ok || err != nil || !samePodNode(pod.(*corev1.Pod), u) {
			return metricsNotFound("pods", ri.name)
		}
		writeJSON(w, http.StatusOK, podMetrics(pod, u.node, u.pod))
		return nil
	}
	pods, err := a.reg.List(ctx, podsRes, ri.namespace, lo)
	if err != nil {
		return err
	}
	list := PodMetricsList{Items: []PodMetrics{}}
	list.Kind, list.APIVersion = "PodMetricsList", MetricsGroupVersion
	for _, p := range pods.Items {
		if u, ok := idx[p.GetNamespace()+"/"+p.GetName()]; ok && samePodNode(p.(*corev1.Pod), u) {
			list.Items = append(list.Items, podMetrics(p, u.node, u.pod))
		}
	}
	writeJSON(w, http.StatusOK, &list)
	return nil
}

// samePodNode guards against the usage of an earlier pod of the same name
// on another node: the pod must be bound to a node whose report has it.
func samePodNode(pod *corev1.Pod, u podUsage) bool {
	return pod.Spec.NodeName != "" && pod.Spec.NodeName == u.nodeName
}
