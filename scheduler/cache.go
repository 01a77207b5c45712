package scheduler

import (
	"fmt"
	"slices"
	"sync"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
)

// cache is the scheduler's own account of the cluster: every node, and on
// each node the pods bound to it plus the pods the scheduler has decided to
// put there (assumed) but not yet seen bound. It is fed by the watch and by
// the scheduling loop and read through snapshots.
//
// Each change to a node's account gives it the next generation and moves it
// to the front of a list, so updateSnapshot finds what changed since a
// snapshot's generation without looking at the other nodes.
type cache struct {
	mu         sync.Mutex
	topoLabels []string
	nodes      map[string]*nodeItem
	head       *nodeItem // most recently changed node
	gen        int64     // generation of the latest change
	setGen     int64     // bumped when nodes come, go or change zone
	pods       map[string]*podState
}

type nodeItem struct {
	info       *nodeInfo
	prev, next *nodeItem
}

// podState is one counted pod.
type podState struct {
	info    *podInfo
	node    string
	assumed bool // counted on the scheduler's word; the watch has not shown it bound yet
}

func newCache(topologyLabels []string) *cache {
	return &cache{topoLabels: topologyLabels, nodes: map[string]*nodeItem{}, pods: map[string]*podState{}}
}

// touch records a change to item's node.
func (c *cache) touch(item *nodeItem) {
	c.gen++
	item.info.gen = c.gen
	if c.head == item {
		return
	}
	c.unlink(item)
	item.next = c.head
	if c.head != nil {
		c.head.prev = item
	}
	c.head = item
}

func (c *cache) unlink(item *nodeItem) {
	if item.prev != nil {
		item.prev.next = item.next
	}
	if item.next != nil {
		item.next.prev = item.prev
	}
	if c.head == item {
		c.head = item.next
	}
	item.prev, item.next = nil, nil
}

// setNode adds or updates a node. It reports whether the change could let
// a pod fit that did not fit before.
func (c *cache) setNode(n *corev1.Node) bool {
	static := newNodeStatic(n, c.topoLabels)
	c.mu.Lock()
	defer c.mu.Unlock()
	item, ok := c.nodes[n.Name]
	if !ok {
		item = &nodeItem{info: newNodeInfo(static)}
		c.nodes[n.Name] = item
		c.setGen++
		c.touch(item)
		return true
	}
	old := item.info.nodeStatic
	if old.node != nil && sameForScheduling(old, static) {
		return false
	}
	if old.node == nil || !slices.Equal(old.topo, static.topo) {
		c.setGen++
	}
	item.info.nodeStatic = static
	c.touch(item)
	return old.node == nil || !sameForFilters(old, static)
}

// removeNode forgets a node. Pods still bound to it keep being counted on a
// placeholder until they are deleted too.
func (c *cache) removeNode(name string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	item, ok := c.nodes[name]
	if !ok {
		return
	}
	c.setGen++
	if item.info.podCount() > 0 {
		item.info.nodeStatic = placeholderStatic(name, c.topoLabels)
		c.touch(item)
		return
	}
	c.unlink(item)
	delete(c.nodes, name)
}

// place counts p on node, making a placeholder for a node not seen yet.
func (c *cache) place(p *podInfo, node string, assumed bool) {
	item, ok := c.nodes[node]
	if !ok {
		item = &nodeItem{info: newNodeInfo(placeholderStatic(node, c.topoLabels))}
		c.nodes[node] = item
	}
	item.info.addPod(p)
	c.touch(item)
	c.pods[p.key] = &podState{info: p, node: node, assumed: assumed}
}

// unplace stops counting a pod.
func (c *cache) unplace(st *podState) {
	delete(c.pods, st.info.key)
	item, ok := c.nodes[st.node]
	if !ok || !item.info.removePod(st.info) {
		return
	}
	c.touch(item)
	if item.info.node == nil && item.info.podCount() == 0 {
		c.unlink(item)
		delete(c.nodes, st.node)
	}
}

// assume counts a pod on the node the scheduler chose for it, before the
// binding is written, so the next decision sees it there.
func (c *cache) assume(p *podInfo, node string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.pods[p.key]; ok {
		return fmt.Errorf("assume pod %s on %s: the pod is already counted", p.key, node)
	}
	if item, ok := c.nodes[node]; !ok || item.info.node == nil {
		return fmt.Errorf("assume pod %s on %s: the node is gone", p.key, node)
	}
	c.place(p, node, true)
	return nil
}

// forget drops an assumption whose binding failed. It reports whether the
// pod was still assumed (it may have been deleted, or seen bound, since).
func (c *cache) forget(key string, uid types.UID) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	st, ok := c.pods[key]
	if !ok || !st.assumed || st.info.uid != uid {
		return false
	}
	c.unplace(st)
	return true
}
