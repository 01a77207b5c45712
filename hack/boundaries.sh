#!/usr/bin/env bash
# Fails when a package imports across the boundaries of docs/ARCHITECTURE.md:
# dependencies point one way (api <- datastore <- server/scheduler/controllers;
# mqtt is used by server and agent; the agent never imports the server), and
# none of the Kubernetes server-side libraries are linked in.
set -euo pipefail
cd "$(dirname "$0")/.."
mod=github.com/bramble-edge/bramble
fail=0
deny() { # package, forbidden import prefix...
  local pkg=$1; shift
  [ -d "${pkg#"$mod"/}" ] || return 0
  compgen -G "${pkg#"$mod"/}/*.go" >/dev/null || return 0
  local deps
  deps=$(go list -deps "$pkg")
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
deny $mod/mqtt $mod/server $mod/agent $mod/scheduler $mod/controllers
deny $mod/agent $mod/server $mod/scheduler $mod/controllers
deny $mod/scheduler $mod/agent $mod/server $mod/controllers
deny $mod/controllers $mod/agent $mod/server
# controllertest is the controllers' test harness: it runs the server's admission path.
for pkg in $(go list ./controllers/... | grep -v /controllertest); do
  deny "$pkg" $mod/agent $mod/server $mod/scheduler
done
for pkg in $(go list ./...); do
  deny "$pkg" k8s.io/apiserver k8s.io/client-go sigs.k8s.io/controller-runtime k8s.io/kubernetes
done
exit $fail
