package daemonset

import (
	"context"
	"fmt"
	"maps"

	appsv1 "k8s.io/api/apps/v1"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/controllers/history"
)

var dsKind = appsv1.SchemeGroupVersion.WithKind("DaemonSet")

// syncHistory keeps the DaemonSet's ControllerRevisions, which `kubectl
// rollout history|undo daemonset` read: the current template's revision
// (named <ds>-<template hash>, labelled with the hash) is the latest, and
// beyond revisionHistoryLimit the oldest ones no pod uses are deleted.
func (c *Controller) syncHistory(ctx context.Context, ds *appsv1.DaemonSet, st *state) error {
	data, err := history.Patch(&ds.Spec.Template)
	if err != nil {
		return err
	}
	labels := maps.Clone(ds.Spec.Template.Labels)
	if labels == nil {
		labels = map[string]string{}
	}
	labels[LabelRevisionHash] = st.hash
	revs := c.history.Owned(ds)
	cur, err := c.history.Ensure(ctx, history.Spec{Owner: ds, Kind: dsKind, Name: history.Name(ds.Name, st.hash),
		Labels: labels, Annotations: ds.Annotations, Data: data}, revs)
	if err != nil {
		return fmt.Errorf("revision of daemonset %s/%s: %w", ds.Namespace, ds.Name, err)
	}
	keep := map[string]bool{cur.Name: true}
	for _, pods := range st.byNode {
		for _, pod := range pods {
			keep[history.Name(ds.Name, podHash(pod))] = true
		}
	}
	limit := 10
	if ds.Spec.RevisionHistoryLimit != nil {
		limit = int(*ds.Spec.RevisionHistoryLimit)
	}
	return c.history.Truncate(ctx, revs, keep, limit)
}

// revisionChanged requeues the DaemonSet controlling a revision.
func (c *Controller) revisionChanged(o api.Object) {
	if key, ok := ownerKey(o); ok {
		c.queue.Add(key)
	}
}
