// Package server starts and wires bramble's server: the datastore, the PKI,
// the MQTT side (embedded broker or an external one), the registry and the
// REST API over it (server/registry, server/apiserver), node status, the
// publisher, join, the scheduler and the controllers, and stops them in
// reverse order.
package server
