package registry

import (
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/api"
)

// Deletion propagation, the server's half. A DELETE does not touch an
// object's dependents itself; it records how they are to be treated in
// the owner's finalizers, and the garbage collector (controllers/gc) does
// the rest:
//
//   - Background (the default, and what kubectl sends): the owner goes at
//     once; the collector then deletes dependents whose owners are all gone.
//   - Foreground: the owner gets the "foregroundDeletion" finalizer and a
//     deletionTimestamp; the collector deletes its dependents and removes
//     the finalizer when none that block it are left.
//   - Orphan (or the legacy orphanDependents=true): the owner gets the
//     "orphan" finalizer; the collector removes the ownerReferences to it
//     from its dependents, then the finalizer.
//
// The choice follows the apiserver: an explicit option wins; without one, a
// finalizer the object already carries decides; without that, Background.
// Difference from Kubernetes: there, a batch/v1 Job deleted without a
// policy orphans its pods (with a warning); bramble deletes them, for Jobs
// as for everything else.

// Finalizers the garbage collector acts on.
const (
	finalizerOrphan     = metav1.FinalizerOrphanDependents // "orphan"
	finalizerForeground = metav1.FinalizerDeleteDependents // "foregroundDeletion"
)

// shouldOrphan decides whether obj's deletion orphans its dependents.
func shouldOrphan(obj api.Object, opts *DeleteOptions) bool {
	if p := opts.PropagationPolicy; p != nil {
		return *p == metav1.DeletePropagationOrphan
	}
	for _, f := range obj.GetFinalizers() {
		switch f {
		case finalizerOrphan:
			return true
		case finalizerForeground:
			return false
		}
	}
	return false
}

// shouldDeleteForeground decides whether obj waits for its dependents.
func shouldDeleteForeground(obj api.Object, opts *DeleteOptions) bool {
	if p := opts.PropagationPolicy; p != nil {
		return *p == metav1.DeletePropagationForeground
	}
	for _, f := range obj.GetFinalizers() {
		switch f {
		case finalizerForeground:
			return true
		case finalizerOrphan:
			return false
		}
	}
	return false
}

// deletionFinalizers is obj's finalizer list as its deletion with opts
// leaves it: other finalizers kept in order, then "orphan" or
// "foregroundDeletion" as the policy asks.
func deletionFinalizers(obj api.Object, opts *DeleteOptions) []string {
	cur := obj.GetFinalizers()
	out := make([]string, 0, len(cur)+1)
	for _, f := range cur {
		if f != finalizerOrphan && f != finalizerForeground {
			out = append(out, f)
		}
	}
	switch {
	case shouldOrphan(obj, opts):
		out = append(out, finalizerOrphan)
	case shouldDeleteForeground(obj, opts):
		out = append(out, finalizerForeground)
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// sameFinalizers compares finalizer lists as sets.
func sameFinalizers(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for _, f := range a {
		if !slices.Contains(b, f) {
			return false
		}
	}
	return true
}
