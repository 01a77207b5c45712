// Package informer is the process's one decoded-object cache: one list and
// one datastore watch of the whole registry, each object decoded once per
// revision into indexed per-resource informers that the scheduler, the
// controllers, the node authorizer and the API's list path all read.
//
//   - Cache follows /registry/ with a listwatch.Follower and hands each
//     change to the informer of its resource (resources without one are
//     not decoded). Its Revision says how far it has applied the log;
//     WaitForRevision waits (asking the store for progress) until it has
//     applied everything up to a revision, which is how a consistent read
//     is served from memory.
//   - Informer is one resource's objects, indexed by namespace, owner UID
//     and (pods) node, with handlers told of every change in commit order.
//     An informer no handler follows keeps changed objects' stored values
//     and decodes each on its first read, once (lazy.go).
//   - View is one consumer's window on a Cache: the handlers it adds are
//     registered (with the current objects replayed as adds) when it
//     starts and removed when it stops, so a scheduler or a controller
//     manager that starts and stops with leadership leaves nothing behind.
package informer
