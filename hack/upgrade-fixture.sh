#!/bin/sh
# Remakes server/testdata/upgrade-c31d05b.tar.gz: a data dir made by the
# release before RBAC was enforced (commit c31d05b) holding an admin user
# (olga), a viewer (vic) and a ConfigMap, with their kubeconfigs (server
# URL replaced by https://SERVER). TestUpgradeKeepsUsers starts the current
# server on it. Run from the repository root; needs Go and kubectl.
set -eu
pid=""
work=$(mktemp -d)
trap 'kill "$pid" 2>/dev/null || true; rm -rf "$work"' EXIT
mkdir "$work/src"
git archive c31d05b | tar -x -C "$work/src"
(cd "$work/src" && go build -o "$work/bramble" ./cmd/bramble)
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
mqtt=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$work/bramble" server --data-dir "$work/data" --disable-agent --bind-address 127.0.0.1 \
	--https-listen-port "$port" --mqtt-listen-port "$mqtt" --write-kubeconfig "$work/admin.yaml" --config /dev/null \
	>"$work/server.log" 2>&1 &
pid=$!
until [ -s "$work/admin.yaml" ]; do sleep 1; done
sleep 3
"$work/bramble" user create olga --role admin --kubeconfig "$work/admin.yaml" --out "$work/olga.kubeconfig"
"$work/bramble" user create vic --role viewer --kubeconfig "$work/admin.yaml" --out "$work/vic.kubeconfig"
kubectl --kubeconfig "$work/olga.kubeconfig" create configmap before-upgrade --from-literal=a=b
kill "$pid"
wait "$pid" || true
rm -f "$work/data/server/lock"
sed -i "s#https://127.0.0.1:$port#https://SERVER#" "$work/olga.kubeconfig" "$work/vic.kubeconfig"
tar -czf server/testdata/upgrade-c31d05b.tar.gz -C "$work" data olga.kubeconfig vic.kubeconfig
