package nodeinfo

import (
	"fmt"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// Threshold is a low-water mark given in bytes ("100Mi") or as a share of
// the total ("5%").
type Threshold struct {
	Bytes   int64
	Percent float64
}

// ParseThreshold parses "100Mi" or "5%"; flag names the flag in errors.
func ParseThreshold(flag, s string) (Threshold, error) {
	s = strings.TrimSpace(s)
	if p, ok := strings.CutSuffix(s, "%"); ok {
		f, err := strconv.ParseFloat(p, 64)
		if err != nil || f < 0 || f > 100 {
			return Threshold{}, fmt.Errorf("%s: %q: want a percentage from 0%% to 100%%", flag, s)
		}
		return Threshold{Percent: f}, nil
	}
	q, err := resource.ParseQuantity(s)
	if err != nil || q.Sign() < 0 {
		return Threshold{}, fmt.Errorf("%s: %q: want a quantity such as 100Mi or a percentage such as 5%%", flag, s)
	}
	return Threshold{Bytes: q.Value()}, nil
}

// below reports whether free is under the mark, relative to total.
func (t Threshold) below(free, total uint64) bool {
	if t.Percent > 0 {
		return total > 0 && float64(free) < float64(total)*t.Percent/100
	}
	return free < uint64(t.Bytes)
}

func (t Threshold) String() string {
	if t.Percent > 0 {
		return strconv.FormatFloat(t.Percent, 'f', -1, 64) + "%"
	}
	return resource.NewQuantity(t.Bytes, resource.BinarySI).String()
}

// Thresholds say when a pressure condition turns True. Zero values take
// the defaults: memory available 100Mi; disk free 10 %; inodes free 5 %;
// PIDs free 5 % of kernel.pid_max.
type Thresholds struct {
	MemoryAvailable Threshold
	DiskFree        Threshold
	InodesFree      Threshold
	PIDsFree        Threshold
}

func (t *Thresholds) setDefaults() {
	def := func(th *Threshold, d Threshold) {
		if *th == (Threshold{}) {
			*th = d
		}
	}
	def(&t.MemoryAvailable, Threshold{Bytes: 100 << 20})
	def(&t.DiskFree, Threshold{Percent: 10})
	def(&t.InodesFree, Threshold{Percent: 5})
	def(&t.PIDsFree, Threshold{Percent: 5})
}

// condition builds a pressure condition of type t; its reason is
// "AgentHas<t>" or "AgentHasNo<t>".
func condition(t corev1.NodeConditionType, pressed bool, msg string) corev1.NodeCondition {
	if pressed {
		return corev1.NodeCondition{Type: t, Status: corev1.ConditionTrue, Reason: "AgentHas" + string(t), Message: msg}
	}
	return corev1.NodeCondition{Type: t, Status: corev1.ConditionFalse, Reason: "AgentHasNo" + string(t), Message: msg}
}

// unknown is a condition the agent could not judge.
func unknown(t corev1.NodeConditionType, err error) corev1.NodeCondition {
	return corev1.NodeCondition{Type: t, Status: corev1.ConditionUnknown, Reason: "AgentCannotRead", Message: err.Error()}
}

// memoryPressure is True when available memory is under the threshold.
func memoryPressure(available, total uint64, th Threshold) corev1.NodeCondition {
	msg := fmt.Sprintf("%s of %s available, threshold %s", mib(available), mib(total), th)
	return condition(corev1.NodeMemoryPressure, th.below(available, total), msg)
}

// diskPressure is True when the data directory's filesystem is short of
// free space or of free inodes (a filesystem without inodes, such as
// btrfs, reports 0 total and is judged on space alone).
func diskPressure(free, total, freeInodes, totalInodes uint64, space, inodes Threshold) corev1.NodeCondition {
	short := space.below(free, total) || (totalInodes > 0 && inodes.below(freeInodes, totalInodes))
	msg := fmt.Sprintf("%s of %s free (threshold %s), %d of %d inodes free (threshold %s)",
		mib(free), mib(total), space, freeInodes, totalInodes, inodes)
	return condition(corev1.NodeDiskPressure, short, msg)
}

// pidPressure is True when the PIDs left before kernel.pid_max are under
// the threshold.
func pidPressure(used, max int64, th Threshold) corev1.NodeCondition {
	free := max - used
	if free < 0 {
		free = 0
	}
	msg := fmt.Sprintf("%d of %d PIDs in use, threshold %s free", used, max, th)
	return condition(corev1.NodePIDPressure, th.below(uint64(free), uint64(max)), msg)
}

func mib(b uint64) string { return strconv.FormatUint(b>>20, 10) + "Mi" }
