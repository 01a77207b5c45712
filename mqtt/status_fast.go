package mqtt

import (
	"hash/maphash"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// decodePodStatusFast reads a pod status report written the way agents
// write one (encoding/json: plain strings, integers, the fields agents
// set), three to four times faster than the strict decoder, which was 6-8 %
// of the server's CPU while scheduling through the API (BENCHMARKS.md,
// issue 12's fifteenth follow-up). ok false means it gave up, never that the input
// is wrong: the strict decoder then reads it and gives its answer. When ok,
// the report is the one the strict decoder would give
// (FuzzDecodePodStatusFastAgrees). Fields it does not know (resources,
// volume mounts, resource claims, ...) make it give up.
//
// hashes[i] is a hash (maphash, this process's seed) of the bytes of
// r.Pods[i].Status as written: equal hashes, equal statuses, without the
// json.Marshal a hash of the decoded status costs. (FNV-64a, byte by byte,
// was a fifth of the decoder's time.)
func decodePodStatusFast(data []byte) (r *PodStatusReport, hashes []uint64, ok bool) {
	s := &scanner{data: data}
	r = &PodStatusReport{}
	ok = s.object(reportNames, func(f int) bool {
		if f == 0 {
			return str(s, &r.Node)
		}
		return slice(s, &r.Pods, s.podEntry)
	})
	if !ok || !s.end() || len(s.hashes) != len(r.Pods) {
		return nil, nil, false
	}
	return r, s.hashes, true
}

// podConditions is room for the conditions a pod has (PodReadyToStartContainers,
// Initialized, Ready, ContainersReady, PodScheduled): one allocation, not
// three as appending one by one.
const podConditions = 5

// statusSeed seeds the hashes of pod statuses: they are compared within
// this process only.
var statusSeed = maphash.MakeSeed()

var (
	reportNames = []string{"node", "pods"}
	entryNames  = []string{"namespace", "name", "uid", "status", "finished"}
	statusNames = []string{"phase", "conditions", "message", "reason", "nominatedNodeName", "hostIP", "hostIPs",
		"podIP", "podIPs", "startTime", "initContainerStatuses", "containerStatuses", "qosClass",
		"ephemeralContainerStatuses", "resize"}
	conditionNames  = []string{"type", "status", "lastProbeTime", "lastTransitionTime", "reason", "message"}
	containerNames  = []string{"name", "state", "lastState", "ready", "restartCount", "image", "imageID", "containerID", "started"}
	stateNames      = []string{"waiting", "running", "terminated"}
	waitingNames    = []string{"reason", "message"}
	runningNames    = []string{"startedAt"}
	terminatedNames = []string{"exitCode", "signal", "reason", "message", "startedAt", "finishedAt", "containerID"}
	ipNames         = []string{"ip"}
)

func (s *scanner) podEntry(e *PodStatusEntry) bool {
	return s.object(entryNames, func(f int) bool {
		switch f {
		case 0:
			return word(s, &e.Namespace)
		case 1:
			return str(s, &e.Name)
		case 2:
			return str(s, &e.UID)
		case 3:
			start := s.i
			if !s.podStatus(&e.Status) {
				return false
			}
			s.hashes = append(s.hashes, maphash.Bytes(statusSeed, s.data[start:s.i]))
			return true
		}
		return s.bool(&e.Finished)
	})
}

func (s *scanner) podStatus(p *corev1.PodStatus) bool {
	return s.object(statusNames, func(f int) bool {
		switch f {
		case 0:
			return word(s, &p.Phase)
		case 1:
			return sliceCap(s, &p.Conditions, podConditions, s.podCondition)
		case 2:
			return str(s, &p.Message)
		case 3:
			return word(s, &p.Reason)
		case 4:
			return word(s, &p.NominatedNodeName)
		case 5:
			return word(s, &p.HostIP)
		case 6:
			return slice(s, &p.HostIPs, func(ip *corev1.HostIP) bool { return s.ip(&ip.IP) })
		case 7:
			return word(s, &p.PodIP)
		case 8:
			return slice(s, &p.PodIPs, func(ip *corev1.PodIP) bool { return s.ip(&ip.IP) })
		case 9:
			p.StartTime = &metav1.Time{}
			return s.time(p.StartTime)
		}
		return s.podStatusRest(p, f)
	})
}

// podStatusRest decodes the container statuses and the rest of a
// PodStatus (podStatus's fields 10 on).
func (s *scanner) podStatusRest(p *corev1.PodStatus, f int) bool {
	switch f {
	case 10:
		return slice(s, &p.InitContainerStatuses, s.containerStatus)
	case 11:
		return slice(s, &p.ContainerStatuses, s.containerStatus)
	case 12:
		return word(s, &p.QOSClass)
	case 13:
		return slice(s, &p.EphemeralContainerStatuses, s.containerStatus)
	}
	return str(s, &p.Resize)
}

func (s *scanner) ip(dst *string) bool {
	return s.object(ipNames, func(int) bool { return word(s, dst) })
}

func (s *scanner) podCondition(c *corev1.PodCondition) bool {
	return s.object(conditionNames, func(f int) bool {
		switch f {
		case 0:
			return word(s, &c.Type)
		case 1:
			return word(s, &c.Status)
		case 2:
			return s.time(&c.LastProbeTime)
		case 3:
			return s.time(&c.LastTransitionTime)
		case 4:
			return word(s, &c.Reason)
		}
		return str(s, &c.Message)
	})
}

func (s *scanner) containerStatus(c *corev1.ContainerStatus) bool {
	return s.object(containerNames, func(f int) bool {
		switch f {
		case 0:
			return word(s, &c.Name)
		case 1:
			return s.containerState(&c.State)
		case 2:
			return s.containerState(&c.LastTerminationState)
		case 3:
			return s.bool(&c.Ready)
		case 4:
			return s.int32(&c.RestartCount)
		case 5:
			return word(s, &c.Image)
		case 6:
			return word(s, &c.ImageID)
		case 7:
			return str(s, &c.ContainerID)
		}
		c.Started = new(bool)
		return s.bool(c.Started)
	})
}

func (s *scanner) containerState(st *corev1.ContainerState) bool {
	return s.object(stateNames, func(f int) bool {
		switch f {
		case 0:
			st.Waiting = &corev1.ContainerStateWaiting{}
			return s.object(waitingNames, func(f int) bool {
				if f == 0 {
					return word(s, &st.Waiting.Reason)
				}
				return str(s, &st.Waiting.Message)
			})
		case 1:
			st.Running = &corev1.ContainerStateRunning{}
			return s.object(runningNames, func(int) bool { return s.time(&st.Running.StartedAt) })
		}
		st.Terminated = &corev1.ContainerStateTerminated{}
		return s.terminated(st.Terminated)
	})
}

func (s *scanner) terminated(t *corev1.ContainerStateTerminated) bool {
	return s.object(terminatedNames, func(f int) bool {
		switch f {
		case 0:
			return s.int32(&t.ExitCode)
		case 1:
			return s.int32(&t.Signal)
		case 2:
			return word(s, &t.Reason)
		case 3:
			return str(s, &t.Message)
		case 4:
			return s.time(&t.StartedAt)
		case 5:
			return s.time(&t.FinishedAt)
		}
		return str(s, &t.ContainerID)
	})
}
