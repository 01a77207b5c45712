// Package controllers holds what every bramble control loop shares: a
// cache of API objects fed by the datastore's watch (one informer per
// resource, with indexes), a rate-limited work queue, the worker loop, the
// Client through which controllers write (the API server's admission path,
// in process) and an event recorder.
//
// The controllers themselves live in sub-packages (replicaset, deployment,
// daemonset, job, nodelifecycle, gc, endpoints) and follow one shape: event handlers
// only enqueue keys; workers run sync(ctx, key) once the cache has synced;
// a failed sync is retried with per-key back-off; sync is idempotent and
// never mutates a cached object (it copies first). controllers/manager
// wires them together for the server.
package controllers
