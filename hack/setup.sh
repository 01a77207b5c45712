#!/usr/bin/env bash
# Sets up bramble from this checkout on Debian 12, as root: installs the
# build dependencies and Go if needed, builds the binary and installs it as
# /usr/local/bin/bramble. Then run `bramble server`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash hack/deps.sh
export PATH=/usr/local/go/bin:$PATH
version=$(git describe --tags --always --dirty 2>/dev/null || echo v0.0.0-dev)
go build -trimpath -ldflags "-s -w -X github.com/bramble-edge/bramble/version.Version=${version}" -o /usr/local/bin/bramble ./cmd/bramble
echo "installed /usr/local/bin/bramble ($(/usr/local/bin/bramble version))" >&2
