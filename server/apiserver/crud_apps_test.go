package apiserver

import "github.com/bramble-edge/bramble/api"

// Manifests of the kinds added for charts (apps, batch, autoscaling,
// events, networking, storage), joined to TestCRUDEveryKind's.
func init() {
	for k, v := range map[string]string{
		"statefulsets": `{"apiVersion":"apps/v1","kind":"StatefulSet","metadata":{"name":"NAME"},
			"spec":{"serviceName":"db","selector":{"matchLabels":{"app":"db"}},
			"template":{"metadata":{"labels":{"app":"db"}},"spec":{"containers":[{"name":"db","image":"redis:7"}]}},
			"volumeClaimTemplates":[{"metadata":{"name":"data"},"spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"1Gi"}}}}]}}`,
		"controllerrevisions": `{"apiVersion":"apps/v1","kind":"ControllerRevision","metadata":{"name":"NAME"},"data":{"spec":{}},"revision":1}`,
		"cronjobs": `{"apiVersion":"batch/v1","kind":"CronJob","metadata":{"name":"NAME"},"spec":{"schedule":"*/5 * * * *",
			"jobTemplate":{"spec":{"template":{"spec":{"restartPolicy":"OnFailure","containers":[{"name":"c","image":"busybox"}]}}}}}}`,
		"horizontalpodautoscalers": `{"apiVersion":"autoscaling/v2","kind":"HorizontalPodAutoscaler","metadata":{"name":"NAME"},
			"spec":{"scaleTargetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"web"},"maxReplicas":5}}`,
		"horizontalpodautoscalers.v1.autoscaling": `{"apiVersion":"autoscaling/v1","kind":"HorizontalPodAutoscaler","metadata":{"name":"NAME"},
			"spec":{"scaleTargetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"web"},"maxReplicas":5,"targetCPUUtilizationPercentage":60}}`,
		"events.v1.events.k8s.io": `{"apiVersion":"events.k8s.io/v1","kind":"Event","metadata":{"name":"NAME"},
			"eventTime":"2026-11-26T10:00:00.000000Z","reportingController":"example.com/ctl","reportingInstance":"ctl-1",
			"action":"Scale","reason":"Scaled","note":"hi","type":"Normal","regarding":{"kind":"Pod","name":"p1","namespace":"default"}}`,
		"ingresses": `{"apiVersion":"networking.k8s.io/v1","kind":"Ingress","metadata":{"name":"NAME"},"spec":{"rules":[{"host":"a.example.com",
			"http":{"paths":[{"path":"/","pathType":"Prefix","backend":{"service":{"name":"web","port":{"number":80}}}}]}}]}}`,
		"ingressclasses":  `{"apiVersion":"networking.k8s.io/v1","kind":"IngressClass","metadata":{"name":"NAME"},"spec":{"controller":"example.com/ingress"}}`,
		"networkpolicies": `{"apiVersion":"networking.k8s.io/v1","kind":"NetworkPolicy","metadata":{"name":"NAME"},"spec":{"podSelector":{}}}`,
		"storageclasses":  `{"apiVersion":"storage.k8s.io/v1","kind":"StorageClass","metadata":{"name":"NAME"},"provisioner":"rancher.io/local-path"}`,
		"csidrivers":      `{"apiVersion":"storage.k8s.io/v1","kind":"CSIDriver","metadata":{"name":"NAME"},"spec":{}}`,
		"csinodes":        `{"apiVersion":"storage.k8s.io/v1","kind":"CSINode","metadata":{"name":"NAME"},"spec":{"drivers":[{"name":"csi.example.com","nodeID":"n1"}]}}`,
		"volumeattachments": `{"apiVersion":"storage.k8s.io/v1","kind":"VolumeAttachment","metadata":{"name":"NAME"},
			"spec":{"attacher":"csi.example.com","nodeName":"n1","source":{"persistentVolumeName":"pv1"}}}`,
	} {
		manifests[k] = v
	}
}

// manifestKey names res's manifest: "resource.version.group" for a kind
// served in several versions or groups, the resource's name otherwise.
func manifestKey(res *api.Resource) string {
	if k := res.Name + "." + res.Version + "." + res.Group; !res.StorageVersion() {
		return k
	}
	return res.Name
}

// servedGroupNames lists the named API groups of the built-in kinds.
func servedGroupNames() []string {
	seen := map[string]bool{}
	var out []string
	for _, res := range api.All() {
		if res.Group != "" && !seen[res.Group] {
			seen[res.Group] = true
			out = append(out, res.Group)
		}
	}
	return append(out, "metrics.k8s.io") // no kind: served from memory (metrics.go)
}
