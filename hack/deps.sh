#!/usr/bin/env bash
# Installs what building and testing bramble needs on Debian 12, as root:
# Debian packages, Go (from the Go module proxy's toolchain module when the
# machine has no new enough Go), staticcheck (built from the module proxy
# into $(go env GOPATH)/bin) and Helm 3 and 4 for the helm-tagged tests
# (built from the module proxy into ${XDG_CACHE_HOME:-~/.cache}/bramble/helm/
# <version>/helm, where e2e/helm looks). Safe to run again.
set -euo pipefail

GO_VERSION=1.26.8
# honnef.co/go/tools v0.8.2 is staticcheck 2026.2.2, the latest release when
# this was written; it builds with Go 1.26 and checks code written for it.
STATICCHECK_VERSION=v0.8.2
# Helm releases e2e/helm drives (its Helm3 and Helm4 constants).
HELM_VERSIONS=(v3.22.0 v4.3.1)
PKGS=(ca-certificates curl unzip git gcc libc6-dev strace procps iproute2 nftables kmod sqlite3 mosquitto mosquitto-clients containerd runc busybox-static containernetworking-plugins iptables prometheus)

log() { printf '==> %s\n' "$*" >&2; }

missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  log "apt-get install ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

go_ok() {
  local go=$1
  [ -x "$go" ] || return 1
  local v
  v=$("$go" env GOVERSION 2>/dev/null | sed 's/^go//')
  [ -n "$v" ] && [ "$(printf '%s\n%s\n' "$GO_VERSION" "$v" | sort -V | head -n1)" = "$GO_VERSION" ]
}

if ! go_ok "$(command -v go || true)" && ! go_ok /usr/local/go/bin/go; then
  arch=$(dpkg --print-architecture)
  case "$arch" in amd64|arm64) ;; armhf) arch=armv6l ;; *) echo "no Go toolchain for $arch" >&2; exit 1 ;; esac
  proxy=${GOPROXY:-https://proxy.golang.org}
  proxy=${proxy%%,*}
  url="$proxy/golang.org/toolchain/@v/v0.0.1-go${GO_VERSION}.linux-${arch}.zip"
  log "installing Go ${GO_VERSION} from $url"
  tmp=$(mktemp -d)
  curl -fsSL -o "$tmp/go.zip" "$url"
  unzip -q "$tmp/go.zip" -d "$tmp"
  rm -rf /usr/local/go
  mv "$tmp/golang.org/toolchain@v0.0.1-go${GO_VERSION}.linux-${arch}" /usr/local/go
  chmod -R a+rX /usr/local/go
  find /usr/local/go/bin /usr/local/go/pkg/tool -type f -exec chmod 755 {} +
  rm -rf "$tmp"
fi

go=/usr/local/go/bin/go
go_ok "$go" || go=$(command -v go)
sc="$("$go" env GOPATH | cut -d: -f1)/bin/staticcheck"
if ! "$sc" -version 2>/dev/null | grep -qF "(${STATICCHECK_VERSION#v})"; then
  log "installing staticcheck ${STATICCHECK_VERSION} from the Go module proxy"
  "$go" install "honnef.co/go/tools/cmd/staticcheck@${STATICCHECK_VERSION}"
fi

helm_cache="${XDG_CACHE_HOME:-$HOME/.cache}/bramble/helm"
for v in "${HELM_VERSIONS[@]}"; do
  if [ ! -x "$helm_cache/$v/helm" ]; then
    log "building Helm $v from the Go module proxy into $helm_cache/$v (once)"
    # Outside the repository: Helm's own go.mod picks its dependencies.
    (cd /tmp && GOBIN="$helm_cache/$v" "$go" install "helm.sh/helm/${v%%.*}/cmd/helm@$v")
  fi
done
