// Package apiserver is bramble's Kubernetes-style REST API over HTTP:
// routing, content negotiation, discovery, OpenAPI, watch streams, Tables
// and Status errors, on top of the registry (server/registry), which admits
// and stores every object.
//
// The request path is ServeHTTP -> authn -> parseRequest -> authz ->
// dispatch -> handler (read.go, watch.go, create.go, update.go, patch.go,
// apply.go, delete.go, subresources) -> registry -> datastore. Every object
// the API answers carries metadata.resourceVersion = its datastore revision;
// the stored JSON does not.
package apiserver
