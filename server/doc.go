// Package server is bramble's API server: the Kubernetes-style REST API
// (discovery, OpenAPI, get/list/watch/create/update/patch/delete with
// authentication, authorization and admission on every request) that the
// real kubectl 1.32 drives, plus the process lifecycle in run.go.
//
// The request path is ServeHTTP -> authn -> parseRequest -> authz ->
// dispatch -> handler (read.go, watch.go, create.go, update.go, patch.go,
// apply.go, delete.go, subresources) -> datastore. Every object the API
// answers carries metadata.resourceVersion = its datastore revision; the
// stored JSON does not.
package server
