// Package scheduler assigns unbound pods to nodes: bramble's counterpart of
// kube-scheduler, shaped after Nomad's scheduler (one-method filters,
// separate scorers, a chain wired once, decisions on an immutable snapshot
// with no I/O, binding as a separate step).
//
// # Pieces
//
//   - Reflectors (informer.go) List, then Watch, the "nodes" and "pods"
//     resources in the datastore. A watch the store cuts off (a slow
//     watcher) resumes from the last revision seen; a compacted revision
//     makes them list again and report what disappeared.
//   - The cache (cache.go) keeps every node and, per node, the pods counted
//     on it: bound pods from the watch and assumed pods the scheduler has
//     placed but not yet seen bound. Per node it sums requests (Kubernetes
//     rules: containers add up, init containers run one at a time beside the
//     sidecars started before them, plus overhead), host ports in use, and
//     pods per spread group. Finished pods (Succeeded, Failed) count for
//     nothing.
//   - The queue (queue.go) holds the unbound pods whose schedulerName is
//     "", "default-scheduler" or "bramble": an active heap (spec.priority,
//     then arrival), a back-off heap (1 s after the first failure, doubling
//     to 60 s) and an unschedulable set. Unschedulable pods are retried only
//     when the cluster changes in a way that could let them fit (a node
//     added, or changed in labels, taints, allocatable, readiness,
//     cordon, images or image platforms; a counted pod deleted or
//     finished; a binding undone), or after 5 minutes as a safety net.
//     Pop blocks on a channel and on the clock; it never polls.
//   - The snapshot (snapshot.go) is the loop's view for one cycle. Each
//     change to a node's account gives it a new generation and moves it to
//     the front of a list, so bringing the snapshot up to date clones only
//     the nodes changed since the last cycle (usually the one node the
//     previous pod went to). The snapshot also keeps cluster-wide indexes
//     updated from those same node changes: pods per topology domain and
//     group, nodes per image, the union of the nodes' image platforms, and
//     the nodes holding pods with anti-affinity.
//
// # Filters (one file each, in this order; a node counts under the reasons
// of the first filter that rejects it)
//
//   - nodeready.go: spec.unschedulable ("node(s) were unschedulable") and a
//     Ready condition that is not True, both treated as NoSchedule taints
//     the pod may tolerate (node.kubernetes.io/unschedulable, not-ready,
//     unreachable), as Kubernetes does;
//   - taints.go: NoSchedule and NoExecute taints against tolerations;
//   - nodeselector.go (matcher api.NodeMatcher): nodeSelector and
//     required node affinity, with In, NotIn, Exists, DoesNotExist, Gt, Lt
//     and matchFields metadata.name;
//   - arch.go (rules in platforms.go): the pod's images must run on the
//     node's platform; image platforms come from the nodes'
//     bramble.io/image-platforms annotations, then Config.ImagePlatforms
//     (the server's registry lookup); while that source is still looking
//     an image up, the pod waits (loop.go), neither placed nor marked
//     Unschedulable; unknown images restrict nothing;
//   - hostports.go: host ports (hostPort, or containerPort with hostNetwork);
//   - podcount.go: allocatable pods ("Too many pods");
//   - resources.go: CPU, memory, ephemeral storage against allocatable, one
//     "Insufficient ..." reason per short resource, as NodeResourcesFit;
//   - podaffinity.go: required pod affinity (the first pod of a group
//     attracted to itself may go anywhere);
//   - antiaffinity.go: required pod anti-affinity, the pod's own terms and
//     existing pods' terms against it. For topologyKey kubernetes.io/hostname
//     the domain is the node itself.
//
// When no node fits, the error is a *FitError whose message reads as
// kube-scheduler's: "0/12 nodes are available: 5 Insufficient memory, 7
// node(s) didn't match Pod's node affinity/selector."
//
// # Scores (0..100 each, weighted sum; one file each)
//
// leastallocated.go (weight 1), balanced.go (1), spread.go: spreadNodes (2)
// and spreadTopology (2) over Config.TopologyLabels (default
// topology.kubernetes.io/zone), imagelocality.go (1), preferredaffinity.go
// (2). Nodes with equal totals take turns (a rotating index, no chance).
//
// # Sampling
//
// As kube-scheduler's percentageOfNodesToScore, in clusters of 100 nodes
// or more the search stops after finding enough feasible nodes (adaptive:
// 50% less one point per 125 nodes, at least 5% and at least 100 nodes) and
// the next search starts where it stopped. The node list interleaves zones
// so that every window spans them. Spreading still works: a group's counts
// come from the node accounts and the snapshot's cluster-wide index, not
// from the window, and consecutive pods look at different windows. The
// window can miss the least loaded node, so a group's spread over nodes is
// nearly, not perfectly, even (tests bound it); Config.PercentageOfNodesToScore
// = 100 looks at every node.
//
// # Assume and bind
//
// The loop takes a pod, updates the snapshot, decides, and counts the pod on
// the chosen node in the cache at once, so the next pod sees it there. The
// binding is written by one of Config.BindWorkers goroutines (default 128;
// the loop waits when they are all busy). A binding is a write that waits
// for the datastore's group commit, so the rate is bound by how many are
// in flight, not by CPU: many workers fill each commit. Events are written
// by Config.EventWorkers goroutines of their own from a queue that a bind
// worker does not wait on (events.go), so it takes the next binding as
// soon as its write is committed and a burst's Events follow its bindings. On success the pod waits, still in
// the queue, for the watch to show it bound, which confirms the assumption
// (so a late, stale event cannot queue it again). On failure the
// assumption is dropped; a pod that is gone (NotFound) is dropped; a
// conflict is checked against the store (bound by someone else, being
// deleted, replaced: dropped; still unbound: retried); other errors retry
// after back-off. A pod deleted while queued or assumed leaves the queue and
// the cache when the watch shows the deletion.
//
// # Preemption
//
// A pod that fits nowhere may evict pods of lower priority (preemption.go
// decides on the snapshot; preempt_run.go carries it out through
// Config.Preemptor); a system-critical pod bound by its controller gets
// room on its node the same way (critical.go).
//
// A pod that does not fit gets the PodScheduled=False condition and a
// FailedScheduling event, written only when the message differs from its
// last one; a bound pod gets a Scheduled event.
package scheduler
