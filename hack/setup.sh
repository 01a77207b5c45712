#!/usr/bin/env bash
# Sets up bramble from this checkout on Debian 12, as root: installs the
# build dependencies and Go if needed, builds the binary and installs it as
# /usr/local/bin/bramble. Then run `bramble server`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash hack/deps.sh
export PATH=/usr/local/go/bin:$PATH
version=$(git describe --tags --always --dirty 2>/dev/null || echo v0.0.0-dev)
# no_dynamic_plugins: containerd's client imports Go's plugin package on
# amd64, which makes the linker export every symbol (+9.6 MB, all of it
# read by the dynamic loader at start); bramble loads no plugins.
go build -trimpath -tags no_dynamic_plugins -ldflags "-s -w -X github.com/bramble-edge/bramble/version.Version=${version}" -o /usr/local/bin/bramble ./cmd/bramble
# The agent's per-container log driver: small, so each container costs little.
go build -trimpath -ldflags "-s -w" -o /usr/local/bin/bramble-log ./cmd/bramble-log
echo "installed /usr/local/bin/bramble ($(/usr/local/bin/bramble version))" >&2

# The server runs an embedded agent, which needs containerd running
# (deps.sh installed it). With systemd, Debian's unit starts it; without
# (a container, a chroot), start the daemon in the background.
if ! ctr --address /run/containerd/containerd.sock version >/dev/null 2>&1; then
  if [ -d /run/systemd/system ]; then
    systemctl enable --now containerd
  else
    mkdir -p /var/log
    nohup containerd >/var/log/containerd.log 2>&1 &
  fi
  for _ in $(seq 1 50); do
    ctr --address /run/containerd/containerd.sock version >/dev/null 2>&1 && break
    sleep 0.2
  done
  ctr --address /run/containerd/containerd.sock version >/dev/null || { echo "containerd did not start; see /var/log/containerd.log" >&2; exit 1; }
fi
echo "containerd is running; start the server (and its agent) with: bramble server" >&2
