package scheduler

import "unique"

// Spreading keeps the pods that belong together (podinfo.go spreadGroup:
// one controller, or bare pods of one app) apart, so that losing one node
// or one zone loses few of them. Two scorers do it, each normalized over the
// feasible nodes so that the node (or zone) with the most such pods gets 0
// and one with none gets 100:
//
//   - spreadNodes counts the group's pods on the node;
//   - spreadTopology counts them in the node's domain of each topology label
//     (Config.TopologyLabels, default topology.kubernetes.io/zone), summed
//     over the labels, from the snapshot's cluster-wide index. A node
//     without a label is a domain of its own for it.
//
// Both see every pod of the group, not only those on sampled nodes, because
// the counts come from the node accounts and the snapshot index; sampling
// (algorithm.go) only limits which nodes are candidates.
type spreadNodes struct{}

func (spreadNodes) score(c *cycle, n *nodeInfo) int64 {
	if c.pod.spreadKey == "" {
		return 0
	}
	return int64(n.spread[c.pod.spreadKey])
}

func (spreadNodes) normalize(scores []int64) { normalizeReverse(scores) }

type spreadTopology struct{}

func (spreadTopology) score(c *cycle, n *nodeInfo) int64 {
	key := c.pod.spreadKey
	if key == "" {
		return 0
	}
	var total int64
	for i, v := range n.topo {
		if v == "" {
			total += int64(n.spread[key])
			continue
		}
		total += c.domainCount(i, n.topoIDs[i])
	}
	return total
}

// domainMemo is one domain's count of the cycle pod's group.
type domainMemo struct {
	label int
	value unique.Handle[string]
	count int64
}

// maxDomainMemo is how many domains a cycle remembers; a topology label
// with more values (one per node, say) is looked up in the index each time.
const maxDomainMemo = 16

// domainCount is the number of pods of the cycle pod's group in a domain.
// The feasible nodes share a few domains (zones), so the count is looked
// up in the snapshot's index once per domain and cycle, not per node:
// hashing the group's key for every node was most of the scorer's cost.
// The memo compares interned values, a pointer each.
func (c *cycle) domainCount(label int, value unique.Handle[string]) int64 {
	for _, d := range c.domains {
		if d.label == label && d.value == value {
			return d.count
		}
	}
	n := int64(c.snap.topo[topoKey{label: label, value: value.Value(), spreadKey: c.pod.spreadKey}])
	if len(c.domains) < maxDomainMemo {
		c.domains = append(c.domains, domainMemo{label: label, value: value, count: n})
	}
	return n
}

func (spreadTopology) normalize(scores []int64) { normalizeReverse(scores) }
