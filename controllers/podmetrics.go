package controllers

// PodMetrics gives a pod's latest usage as the agents report it (the
// metrics API's source): CPU in millicores and memory working set in
// bytes, summed over its containers. The HPA controller reads it.
type PodMetrics interface {
	PodUsage(namespace, name string) (cpuMilli, memoryBytes int64, ok bool)
}
