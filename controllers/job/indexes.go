package job

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
)

// indexed reports whether the Job runs one pod per completion index.
func indexed(job *batchv1.Job) bool {
	return job.Spec.CompletionMode != nil && *job.Spec.CompletionMode == batchv1.IndexedCompletion
}

// podIndex is the completion index a pod of an Indexed Job runs, from its
// annotation; ok is false for a pod without a valid one.
func podIndex(pod *corev1.Pod, completions int32) (int, bool) {
	v, ok := pod.Annotations[batchv1.JobCompletionIndexAnnotation]
	if !ok {
		return 0, false
	}
	i, err := strconv.Atoi(v)
	if err != nil || i < 0 || i >= int(completions) {
		return 0, false
	}
	return i, true
}

// indexSet is a set of completion indexes, as status.completedIndexes
// and status.failedIndexes write them: "1,3-5,7".
type indexSet map[int]bool

// parseIndexes reads an index list, ignoring indexes outside
// [0, completions) and malformed parts (the controller writes the field;
// a bad value only costs a re-run).
func parseIndexes(s string, completions int32) indexSet {
	set := indexSet{}
	for _, part := range strings.Split(s, ",") {
		lo, hi, found := strings.Cut(part, "-")
		if !found {
			hi = lo
		}
		a, errA := strconv.Atoi(lo)
		b, errB := strconv.Atoi(hi)
		if errA != nil || errB != nil {
			continue
		}
		for i := max(a, 0); i <= b && i < int(completions); i++ {
			set[i] = true
		}
	}
	return set
}

// String writes the set in ascending order with runs as ranges.
func (s indexSet) String() string {
	idx := make([]int, 0, len(s))
	for i := range s {
		idx = append(idx, i)
	}
	slices.Sort(idx)
	var parts []string
	for start := 0; start < len(idx); {
		end := start
		for end+1 < len(idx) && idx[end+1] == idx[end]+1 {
			end++
		}
		if end == start {
			parts = append(parts, strconv.Itoa(idx[start]))
		} else {
			parts = append(parts, fmt.Sprintf("%d-%d", idx[start], idx[end]))
		}
		start = end + 1
	}
	return strings.Join(parts, ",")
}

// indexesToStart are the indexes, lowest first, that neither completed
// nor have an active pod, at most n of them.
func indexesToStart(completions int32, done indexSet, active []*corev1.Pod, n int) []int {
	running := indexSet{}
	for _, pod := range active {
		if i, ok := podIndex(pod, completions); ok {
			running[i] = true
		}
	}
	var out []int
	for i := 0; i < int(completions) && len(out) < n; i++ {
		if !done[i] && !running[i] {
			out = append(out, i)
		}
	}
	return out
}

// surplusIndexed are the active pods an Indexed Job no longer wants: those
// without a valid index, of an index already completed, or a second pod
// of one index.
func surplusIndexed(completions int32, done indexSet, active []*corev1.Pod) []*corev1.Pod {
	var out []*corev1.Pod
	seen := indexSet{}
	for _, pod := range active {
		i, ok := podIndex(pod, completions)
		if !ok || done[i] || seen[i] {
			out = append(out, pod)
			continue
		}
		seen[i] = true
	}
	return out
}

// indexFailures is how many earlier pods of its index had failed when
// pod was made (its failure-count annotation).
func indexFailures(pod *corev1.Pod) int {
	n, err := strconv.Atoi(pod.Annotations[batchv1.JobIndexFailureCountAnnotation])
	if err != nil || n < 0 {
		return 0
	}
	return n
}

// failuresByIndex counts, per index, the failures before the latest
// failed pod of that index, that pod included.
func failuresByIndex(pods []*corev1.Pod, completions int32) map[int]int {
	out := map[int]int{}
	for _, pod := range pods {
		if i, ok := podIndex(pod, completions); ok && pod.Status.Phase == corev1.PodFailed {
			out[i] = max(out[i], indexFailures(pod)+1)
		}
	}
	return out
}

// closedIndexes are the indexes no pod should run for any more: completed
// or failed.
func closedIndexes(job *batchv1.Job, st *batchv1.JobStatus) indexSet {
	done := parseIndexes(st.CompletedIndexes, *job.Spec.Completions)
	for i := range parseIndexes(ptrValue(st.FailedIndexes), *job.Spec.Completions) {
		done[i] = true
	}
	return done
}

func ptrValue(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
