package deployment

import (
	"strconv"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

// Annotations kubectl and the controller read and write.
const (
	RevisionAnnotation        = "deployment.kubernetes.io/revision"
	RevisionHistoryAnnotation = "deployment.kubernetes.io/revision-history"
	DesiredReplicasAnnotation = "deployment.kubernetes.io/desired-replicas"
	MaxReplicasAnnotation     = "deployment.kubernetes.io/max-replicas"
	ChangeCauseAnnotation     = "kubernetes.io/change-cause"
	rollbackToAnnotation      = "deprecated.deployment.rollback.to"
	// maxHistoryChars bounds the revision-history annotation.
	maxHistoryChars = 2000
)

// notCopied are Deployment annotations a ReplicaSet does not inherit: the
// controller keeps its own values for them on each ReplicaSet.
var notCopied = map[string]bool{
	corev1.LastAppliedConfigAnnotation: true,
	RevisionAnnotation:                 true,
	RevisionHistoryAnnotation:          true,
	DesiredReplicasAnnotation:          true,
	MaxReplicasAnnotation:              true,
	rollbackToAnnotation:               true,
}

// revisionOf reads a ReplicaSet's revision; 0 when absent or malformed.
func revisionOf(rs *appsv1.ReplicaSet) int64 {
	v, err := strconv.ParseInt(rs.Annotations[RevisionAnnotation], 10, 64)
	if err != nil {
		return 0
	}
	return v
}

func maxRevision(rss []*appsv1.ReplicaSet) int64 {
	var top int64
	for _, rs := range rss {
		top = max(top, revisionOf(rs))
	}
	return top
}

// copyAnnotations copies d's annotations (change-cause among them) onto rs,
// except the ones each ReplicaSet keeps for itself; true if rs changed.
func copyAnnotations(d *appsv1.Deployment, rs *appsv1.ReplicaSet) bool {
	changed := false
	if rs.Annotations == nil {
		rs.Annotations = map[string]string{}
	}
	for k, v := range d.Annotations {
		if cur, ok := rs.Annotations[k]; notCopied[k] || (ok && cur == v) {
			continue
		}
		rs.Annotations[k] = v
		changed = true
	}
	return changed
}

// setNewRSAnnotations brings the new ReplicaSet's annotations up to date:
// copied ones, and a revision raised to revision (never lowered). A revived
// ReplicaSet (undo) keeps its earlier revisions in revision-history.
func setNewRSAnnotations(d *appsv1.Deployment, rs *appsv1.ReplicaSet, revision int64) bool {
	changed := copyAnnotations(d, rs)
	oldText, had := rs.Annotations[RevisionAnnotation]
	old, err := strconv.ParseInt(oldText, 10, 64)
	if err != nil && had && oldText != "" {
		return changed // someone else's value; leave it
	}
	if old >= revision {
		return changed
	}
	rs.Annotations[RevisionAnnotation] = strconv.FormatInt(revision, 10)
	if had && oldText != "" {
		rs.Annotations[RevisionHistoryAnnotation] = appendHistory(rs.Annotations[RevisionHistoryAnnotation], oldText)
	}
	return true
}

// appendHistory adds rev to a comma-separated history, dropping the oldest
// entries to stay within maxHistoryChars.
func appendHistory(history, rev string) string {
	if history == "" {
		return rev
	}
	parts := strings.Split(history, ",")
	total := len(history) + 1 + len(rev)
	for total > maxHistoryChars && len(parts) > 0 {
		total -= len(parts[0]) + 1
		parts = parts[1:]
	}
	return strings.Join(append(parts, rev), ",")
}

// setReplicasAnnotations records the Deployment size a ReplicaSet was
// scaled under; true if anything changed.
func setReplicasAnnotations(rs *appsv1.ReplicaSet, desired, maxReplicas int32) bool {
	if rs.Annotations == nil {
		rs.Annotations = map[string]string{}
	}
	changed := false
	for k, v := range map[string]int32{DesiredReplicasAnnotation: desired, MaxReplicasAnnotation: maxReplicas} {
		s := strconv.FormatInt(int64(v), 10)
		if rs.Annotations[k] != s {
			rs.Annotations[k] = s
			changed = true
		}
	}
	return changed
}

func replicasAnnotationsStale(rs *appsv1.ReplicaSet, desired, maxReplicas int32) bool {
	return rs.Annotations[DesiredReplicasAnnotation] != strconv.FormatInt(int64(desired), 10) ||
		rs.Annotations[MaxReplicasAnnotation] != strconv.FormatInt(int64(maxReplicas), 10)
}

// annotatedInt reads an int32 annotation; ok false when absent or malformed.
func annotatedInt(rs *appsv1.ReplicaSet, key string) (int32, bool) {
	v, err := strconv.ParseInt(rs.Annotations[key], 10, 32)
	if err != nil {
		return 0, false
	}
	return int32(v), true
}
