#!/usr/bin/env bash
# Builds a bramble release into OUT_DIR (default dist/): for linux/amd64,
# linux/arm64, linux/arm/v7 and linux/arm/v6, the static, stripped,
# version-stamped binaries bramble-ARCH (cgo SQLite, Debian's cross
# compilers), bramble-agent-ARCH (the agent-only build, pure Go) and
# bramble-log-ARCH; a .deb per architecture (nfpm) with the full build;
# install.sh; and SHA256SUMS over all of them. docs/PACKAGING.md describes
# the files.
#
#   bash hack/release.sh                    # every architecture
#   ARCHES="amd64 arm64" bash hack/release.sh
#   VERSION=v0.2.0 OUT_DIR=/tmp/rel bash hack/release.sh
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH=/usr/local/go/bin:$PATH

NFPM_VERSION=v2.44.0 # v2.45+ need modules the Go proxy here refuses (go.digitalxero.dev)
OUT_DIR=${OUT_DIR:-dist}
ARCHES=${ARCHES:-amd64 arm64 armv7 armv6}
TOOLS_DIR=${BRAMBLE_TOOLS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/bramble-tools}
MODULE=github.com/bramble-edge/bramble

log() { printf '==> %s\n' "$*" >&2; }

# release_version is VERSION, else the latest v* tag git describes, else
# v0.0.0-dev+COMMIT: always a v-prefixed version a .deb can carry.
release_version() {
  if [ -n "${VERSION:-}" ]; then
    echo "$VERSION"
  elif v=$(git describe --tags --match 'v[0-9]*' --dirty 2>/dev/null); then
    echo "$v"
  else
    echo "v0.0.0-dev+$(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet HEAD 2>/dev/null || echo .dirty)"
  fi
}

# target ARCH sets GOARCH, GOARM, CC and the Debian architecture. armhf's
# libc is ARMv7-only, so ARMv6 (Pi Zero and 1) builds with the armel
# cross compiler; every binary is linked statically, so one runs on any
# distribution of its architecture.
target() {
  GOARM=
  case "$1" in
  amd64) GOARCH=amd64 CC=gcc DEB_ARCH=amd64 ;;
  arm64) GOARCH=arm64 CC=aarch64-linux-gnu-gcc DEB_ARCH=arm64 ;;
  armv7) GOARCH=arm GOARM=7 CC=arm-linux-gnueabi-gcc DEB_ARCH=armhf ;;
  armv6) GOARCH=arm GOARM=6 CC=arm-linux-gnueabi-gcc DEB_ARCH=armhf ;;
  *) echo "release: unknown architecture $1 (want amd64, arm64, armv7, armv6)" >&2; exit 1 ;;
  esac
  command -v "$CC" >/dev/null || { echo "release: $1 needs the C cross compiler $CC (apt-get install gcc-${CC%-gcc})" >&2; exit 1; }
}

build() {
  local arch=$1 version=$2
  target "$arch"
  log "build $arch (GOARCH=$GOARCH${GOARM:+ GOARM=$GOARM}, CC=$CC)"
  CGO_ENABLED=1 GOOS=linux GOARCH=$GOARCH GOARM=$GOARM CC=$CC go build -trimpath \
    -tags netgo,osusergo,sqlite_omit_load_extension,no_dynamic_plugins \
    -ldflags "-s -w -X $MODULE/version.Version=$version -linkmode external -extldflags -static" \
    -o "$OUT_DIR/bramble-$arch" ./cmd/bramble
  # The agent-only build links no SQLite, so no cgo: static without a C compiler.
  CGO_ENABLED=0 GOOS=linux GOARCH=$GOARCH GOARM=$GOARM go build -trimpath \
    -tags agentonly,no_dynamic_plugins,netgo,osusergo \
    -ldflags "-s -w -X $MODULE/version.Version=$version" \
    -o "$OUT_DIR/bramble-agent-$arch" ./cmd/bramble
  CGO_ENABLED=0 GOOS=linux GOARCH=$GOARCH GOARM=$GOARM go build -trimpath -ldflags "-s -w" \
    -o "$OUT_DIR/bramble-log-$arch" ./cmd/bramble-log
}

nfpm_bin() {
  local bin=$TOOLS_DIR/nfpm-$NFPM_VERSION
  if [ ! -x "$bin" ]; then
    log "go install nfpm $NFPM_VERSION into $TOOLS_DIR (not a module dependency)"
    mkdir -p "$TOOLS_DIR/gobin-$NFPM_VERSION"
    (cd "$TOOLS_DIR" && GOFLAGS=-mod=mod GOBIN="$TOOLS_DIR/gobin-$NFPM_VERSION" \
      go install "github.com/goreleaser/nfpm/v2/cmd/nfpm@$NFPM_VERSION")
    mv "$TOOLS_DIR/gobin-$NFPM_VERSION/nfpm" "$bin"
  fi
  echo "$bin"
}

# deb ARCH VERSION packages the binaries, both units and the maintainer
# scripts; the units come from install.sh, so both ways install the same.
deb() {
  local arch=$1 version=$2 work=$3 nfpm=$4
  target "$arch"
  local units=$work/units-$arch
  mkdir -p "$units"
  for cmd in server agent; do
    local name=bramble; [ "$cmd" = agent ] && name=bramble-agent
    INSTALL_BRAMBLE_PRINT_UNIT=$cmd INSTALL_BRAMBLE_BIN_DIR=/usr/bin sh packaging/install.sh >"$units/$name.service"
  done
  local suffix=; [ "$arch" = armv6 ] && suffix=-armv6
  sed -e "s|@ARCH@|$arch|g" -e "s|@DEB_ARCH@|$DEB_ARCH|g" -e "s|@VERSION@|$version|g" \
    -e "s|@OUT@|$OUT_DIR|g" -e "s|@UNITS@|$units|g" -e "s|@DEB@|$PWD/packaging/deb|g" \
    packaging/deb/nfpm.yaml >"$work/nfpm-$arch.yaml"
  "$nfpm" package --config "$work/nfpm-$arch.yaml" --packager deb \
    --target "$OUT_DIR/bramble_${version#v}_${DEB_ARCH}${suffix}.deb" >&2
}

# build_all builds two architectures at a time: one cgo SQLite compile is
# single-threaded and long, so a lone build leaves a core idle.
build_all() {
  local version=$1 pids=() arch pid
  for arch in $ARCHES; do
    build "$arch" "$version" &
    pids+=($!)
    if [ "${#pids[@]}" -ge 2 ]; then
      wait "${pids[0]}"
      pids=("${pids[@]:1}")
    fi
  done
  for pid in "${pids[@]}"; do wait "$pid"; done
}

main() {
  local version nfpm
  version=$(release_version)
  mkdir -p "$OUT_DIR"
  OUT_DIR=$(cd "$OUT_DIR" && pwd)
  rm -f "$OUT_DIR"/bramble-* "$OUT_DIR"/bramble_*.deb "$OUT_DIR"/SHA256SUMS "$OUT_DIR"/install.sh
  nfpm=$(nfpm_bin)
  build_all "$version"
  WORK=$(mktemp -d)
  trap 'rm -rf "$WORK"' EXIT
  for arch in $ARCHES; do deb "$arch" "$version" "$WORK" "$nfpm"; done
  cp packaging/install.sh "$OUT_DIR/install.sh"
  (cd "$OUT_DIR" && sha256sum bramble-* bramble_*.deb install.sh >SHA256SUMS)
  log "release $version in $OUT_DIR:"
  ls -l "$OUT_DIR" >&2
}

main "$@"
