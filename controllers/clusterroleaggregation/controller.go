// Package clusterroleaggregation fills the rules of ClusterRoles that have
// an aggregationRule with the rules of the ClusterRoles its selectors
// match, as upstream's controller does: admin, edit and view grow when a
// chart adds a role labelled rbac.authorization.k8s.io/aggregate-to-view.
// Rules are gathered from the matching roles in name order, each rule
// once; whatever the aggregated role held before is replaced.
package clusterroleaggregation

import (
	"context"
	"fmt"
	"log/slog"
	"sort"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/controllers"
)

var clusterRoles = api.MustLookup(rbacv1.GroupName, "v1", "clusterroles")

// Controller aggregates ClusterRole rules.
type Controller struct {
	client controllers.Client
	cache  *controllers.Cache
	inf    *controllers.Informer
	queue  *controllers.Queue
	log    *slog.Logger
	events *controllers.Recorder
}

// New asks d.Cache for the ClusterRole informer; nothing runs until Run.
func New(d controllers.Deps) *Controller {
	log := d.Logger("clusterrole-aggregation")
	c := &Controller{client: d.Client, cache: d.Cache, inf: d.Cache.Informer(clusterRoles), log: log,
		queue: controllers.NewQueue(10*time.Millisecond, time.Minute), events: controllers.NewRecorder(d.Client, "clusterrole-aggregation-controller", log)}
	changed := func(api.Object) { c.enqueueAggregated() }
	c.inf.AddHandler(controllers.Handler{OnAdd: changed, OnUpdate: func(_, cur api.Object) { changed(cur) }, OnDelete: changed})
	return c
}

// Run waits for the cache, then aggregates until ctx ends.
func (c *Controller) Run(ctx context.Context, workers int) {
	controllers.Run(ctx, c.cache, c.events, c.log, workers, controllers.Loop{Queue: c.queue, Sync: c.sync})
}

// enqueueAggregated queues every role with an aggregationRule: any change
// to any ClusterRole may change what one of them holds.
func (c *Controller) enqueueAggregated() {
	for _, obj := range c.inf.List("", labels.Everything()) {
		if obj.(*rbacv1.ClusterRole).AggregationRule != nil {
			c.queue.Add(obj.GetName())
		}
	}
}

func (c *Controller) sync(ctx context.Context, key string) error {
	obj, ok := c.inf.Get("", key)
	if !ok {
		return nil
	}
	role := obj.(*rbacv1.ClusterRole)
	if role.AggregationRule == nil {
		return nil
	}
	rules, err := c.aggregate(role)
	if err != nil {
		c.log.Warn("aggregation rule does not parse", "clusterrole", role.Name, "err", err)
		return nil // the selectors were validated; nothing a retry would fix
	}
	if equality.Semantic.DeepEqual(rules, role.Rules) {
		return nil
	}
	next := role.DeepCopy()
	next.Rules = rules
	_, err = c.client.Update(ctx, next)
	return err
}

// aggregate gathers the rules of the roles role's selectors match.
func (c *Controller) aggregate(role *rbacv1.ClusterRole) ([]rbacv1.PolicyRule, error) {
	var sels []labels.Selector
	for i := range role.AggregationRule.ClusterRoleSelectors {
		sel, err := metav1.LabelSelectorAsSelector(&role.AggregationRule.ClusterRoleSelectors[i])
		if err != nil {
			return nil, fmt.Errorf("selector %d: %w", i, err)
		}
		sels = append(sels, sel)
	}
	all := c.inf.List("", labels.Everything())
	sort.Slice(all, func(i, j int) bool { return all[i].GetName() < all[j].GetName() })
	rules := []rbacv1.PolicyRule{}
	for _, obj := range all {
		if obj.GetName() == role.Name || !matchesAny(sels, obj.GetLabels()) {
			continue
		}
		for _, r := range obj.(*rbacv1.ClusterRole).Rules {
			if !hasRule(rules, r) {
				rules = append(rules, r)
			}
		}
	}
	return rules, nil
}

func matchesAny(sels []labels.Selector, l map[string]string) bool {
	for _, s := range sels {
		if s.Matches(labels.Set(l)) {
			return true
		}
	}
	return false
}

func hasRule(rules []rbacv1.PolicyRule, r rbacv1.PolicyRule) bool {
	for _, have := range rules {
		if equality.Semantic.DeepEqual(have, r) {
			return true
		}
	}
	return false
}
