package apiserver

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/mqtt"
)

// The metrics.k8s.io/v1beta1 objects, in the JSON shape of upstream's
// k8s.io/metrics types (which are no dependency of ours).

// MetricsGroupVersion is the group version the metrics API serves.
const MetricsGroupVersion = "metrics.k8s.io/v1beta1"

// NodeMetrics is one node's usage.
type NodeMetrics struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Timestamp         metav1.Time         `json:"timestamp"`
	Window            metav1.Duration     `json:"window"`
	Usage             corev1.ResourceList `json:"usage"`
}

// NodeMetricsList is a list of NodeMetrics.
type NodeMetricsList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata"`
	Items           []NodeMetrics `json:"items"`
}

// PodMetrics is one pod's containers' usage.
type PodMetrics struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Timestamp         metav1.Time        `json:"timestamp"`
	Window            metav1.Duration    `json:"window"`
	Containers        []ContainerMetrics `json:"containers"`
}

// ContainerMetrics is one container's usage.
type ContainerMetrics struct {
	Name  string              `json:"name"`
	Usage corev1.ResourceList `json:"usage"`
}

// PodMetricsList is a list of PodMetrics.
type PodMetricsList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata"`
	Items           []PodMetrics `json:"items"`
}

// usageList is CPU in nanocores and memory in bytes as a ResourceList.
func usageList(cpu, mem uint64) corev1.ResourceList {
	return corev1.ResourceList{
		corev1.ResourceCPU:    *resource.NewScaledQuantity(int64(cpu), resource.Nano),
		corev1.ResourceMemory: *resource.NewQuantity(int64(mem), resource.BinarySI),
	}
}

func nodeMetrics(node metav1.Object, u ReceivedUsage) NodeMetrics {
	return NodeMetrics{TypeMeta: metav1.TypeMeta{Kind: "NodeMetrics", APIVersion: MetricsGroupVersion},
		ObjectMeta: metav1.ObjectMeta{Name: node.GetName(), Labels: node.GetLabels(), CreationTimestamp: metav1.Now().Rfc3339Copy()},
		Timestamp:  metav1.NewTime(u.At.Truncate(1e9)), Window: metav1.Duration{Duration: u.window()},
		Usage: usageList(u.Usage.CPU, u.Usage.Memory)}
}

func podMetrics(pod metav1.Object, u ReceivedUsage, p *mqtt.PodUsage) PodMetrics {
	m := PodMetrics{TypeMeta: metav1.TypeMeta{Kind: "PodMetrics", APIVersion: MetricsGroupVersion},
		ObjectMeta: metav1.ObjectMeta{Name: pod.GetName(), Namespace: pod.GetNamespace(), Labels: pod.GetLabels(),
			CreationTimestamp: metav1.Now().Rfc3339Copy()},
		Timestamp: metav1.NewTime(u.At.Truncate(1e9)), Window: metav1.Duration{Duration: u.window()},
		Containers: make([]ContainerMetrics, 0, len(p.Containers))}
	for _, c := range p.Containers {
		m.Containers = append(m.Containers, ContainerMetrics{Name: c.Name, Usage: usageList(c.CPU, c.Memory)})
	}
	return m
}
