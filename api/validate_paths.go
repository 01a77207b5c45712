package api

import "k8s.io/apimachinery/pkg/util/validation/field"

// Validation names a field by its path only in an error, but a path is
// built before the check that may need it: a pod's validation built some
// forty (an allocation each) for every pod created. The paths under a
// pod's own spec are made once here and shared (a field.Path is never
// changed once made); paths under other specs (a workload's template) are
// made per call, as before.

// podSpecPaths are the paths validatePodSpec names under one spec.
type podSpecPaths struct {
	volumes, initContainers, containers, restartPolicy, dnsPolicy *field.Path
	terminationGracePeriodSeconds, activeDeadlineSeconds          *field.Path
	nodeSelector, affinity, nodeName, tolerations                 *field.Path
}

func newPodSpecPaths(p *field.Path) *podSpecPaths {
	return &podSpecPaths{
		volumes: p.Child("volumes"), initContainers: p.Child("initContainers"), containers: p.Child("containers"),
		restartPolicy: p.Child("restartPolicy"), dnsPolicy: p.Child("dnsPolicy"),
		terminationGracePeriodSeconds: p.Child("terminationGracePeriodSeconds"),
		activeDeadlineSeconds:         p.Child("activeDeadlineSeconds"),
		nodeSelector:                  p.Child("nodeSelector"), affinity: p.Child("affinity"),
		nodeName: p.Child("nodeName"), tolerations: p.Child("tolerations"),
	}
}

// containerPaths are the paths validateContainers names under one
// container of a list.
type containerPaths struct {
	at, name, image, imagePullPolicy, terminationMessagePolicy, ports, env *field.Path
	resources, volumeMounts, livenessProbe, readinessProbe, startupProbe   *field.Path
}

func newContainerPaths(list *field.Path, i int) *containerPaths {
	at := list.Index(i)
	return &containerPaths{at: at, name: at.Child("name"), image: at.Child("image"),
		imagePullPolicy: at.Child("imagePullPolicy"), terminationMessagePolicy: at.Child("terminationMessagePolicy"),
		ports: at.Child("ports"), env: at.Child("env"), resources: at.Child("resources"),
		volumeMounts: at.Child("volumeMounts"), livenessProbe: at.Child("livenessProbe"),
		readinessProbe: at.Child("readinessProbe"), startupProbe: at.Child("startupProbe")}
}

// sharedContainers is how many containers of a pod's own lists have their
// paths made once.
const sharedContainers = 8

var (
	podPaths = newPodSpecPaths(specPath)
	// sharedContainerPaths, keyed by a list's path, is read-only once made.
	sharedContainerPaths = map[*field.Path][]*containerPaths{
		podPaths.containers:     containerPathsOf(podPaths.containers),
		podPaths.initContainers: containerPathsOf(podPaths.initContainers),
	}
)

func containerPathsOf(list *field.Path) []*containerPaths {
	out := make([]*containerPaths, sharedContainers)
	for i := range out {
		out[i] = newContainerPaths(list, i)
	}
	return out
}

// podSpecPathsAt are the paths under p: shared for a pod's own spec.
func podSpecPathsAt(p *field.Path) *podSpecPaths {
	if p == specPath {
		return podPaths
	}
	return newPodSpecPaths(p)
}

// containerPathsAt are the paths under item i of the container list at
// list: shared for the first containers of a pod's own spec.
func containerPathsAt(list *field.Path, i int) *containerPaths {
	if shared := sharedContainerPaths[list]; i < len(shared) {
		return shared[i]
	}
	return newContainerPaths(list, i)
}
