#!/usr/bin/env bash
# Fails when a package imports across the boundaries of docs/ARCHITECTURE.md:
# dependencies point one way (api <- datastore <- server/scheduler/controllers;
# the mqtt wire contract and imageregistry are shared by server and agent; the
# agent never imports the server nor the MQTT broker), and none of the
# Kubernetes server-side libraries are linked in.
set -euo pipefail
cd "$(dirname "$0")/.."
mod=github.com/bramble-edge/bramble
fail=0
deny() { # package, forbidden import prefix...; build tags in $tags
  local pkg=$1; shift
  [ -d "${pkg#"$mod"/}" ] || return 0
  compgen -G "${pkg#"$mod"/}/*.go" >/dev/null || return 0
  local deps
  deps=$(go list -deps ${tags:+-tags "$tags"} "$pkg")
  for bad in "$@"; do
    if grep -q "^${bad}\(/\|$\)" <<<"$deps"; then
      echo "boundary: $pkg must not import $bad" >&2
      fail=1
    fi
  done
}
deny $mod/api $mod/datastore $mod/server $mod/scheduler $mod/controllers $mod/agent $mod/mqtt
deny $mod/datastore $mod/server $mod/scheduler $mod/controllers $mod/agent $mod/mqtt
deny $mod/clock $mod/api $mod/datastore $mod/server $mod/scheduler $mod/controllers $mod/agent $mod/mqtt
mochi=github.com/mochi-mqtt/server
# The MQTT wire contract, the node's client and the paho store link no broker.
for pkg in $mod/mqtt $mod/mqtt/client $mod/mqtt/pahostore; do
  deny "$pkg" $mod/server $mod/agent $mod/scheduler $mod/controllers $mod/mqtt/broker $mochi
done
# The broker package is the server's side: it knows nothing of the server.
deny $mod/mqtt/broker $mod/server $mod/agent $mod/scheduler $mod/controllers
# The registry client is shared by the agent's pulls and the server's scheduler.
deny $mod/imageregistry $mod/server $mod/agent $mod/scheduler $mod/controllers $mod/mqtt
# The agent (and the log driver containerd's shim starts) links neither the
# server nor the MQTT broker.
for pkg in $(go list ./agent/...) $mod/cmd/bramble-log; do
  deny "$pkg" $mod/server $mod/scheduler $mod/controllers $mod/mqtt/broker $mochi
done
# The agent-only build of the binary links none of the server's side, nor
# cgo SQLite, nor the Kubernetes proxy helpers only the API server uses.
tags=agentonly deny $mod/cmd/bramble $mod/server $mod/scheduler $mod/controllers $mod/datastore $mod/informer \
  $mod/mqtt/broker $mochi github.com/mattn/go-sqlite3 k8s.io/apimachinery/pkg/util/proxy
for pkg in $(go list ./scheduler/...); do
  deny "$pkg" $mod/agent $mod/server $mod/controllers
done
deny $mod/controllers $mod/agent $mod/server
# The registry (storage and admission) never reaches up into HTTP.
if [ -d server/registry ]; then
  for pkg in $(go list ./server/registry/...); do
    deny "$pkg" $mod/server/apiserver
  done
fi
# controllertest is the controllers' test harness: it runs the server's admission path.
for pkg in $(go list ./controllers/... | grep -v /controllertest); do
  deny "$pkg" $mod/agent $mod/server $mod/scheduler
done
# The shared cache sits below everything that reads it.
deny $mod/informer $mod/server $mod/scheduler $mod/controllers $mod/agent $mod/mqtt
for pkg in $(go list ./...); do
  deny "$pkg" k8s.io/apiserver k8s.io/client-go sigs.k8s.io/controller-runtime k8s.io/kubernetes
done
exit $fail
