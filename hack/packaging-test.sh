#!/usr/bin/env bash
# Tests bramble's packaging, as CI does (root, Debian 12; .ci/run installs
# the tools): shellcheck on the scripts; the release build (hack/release.sh)
# with its checksums, .debs and sizes; systemd-analyze verify on the units;
# the arm64, armv7 and armv6 binaries and the datastore and api tests under
# qemu-user (binfmt_misc registered, so the tests' child processes run too);
# then e2e/install_test.go: install.sh in Debian roots booted with systemd.
# A missing tool fails the run; nothing is skipped.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH=/usr/local/go/bin:$PATH
WORK=${PACKAGING_TEST_DIR:-/var/tmp/bramble-packaging-test}
DIST=$WORK/dist
STATIC_TAGS=netgo,osusergo,sqlite_omit_load_extension

step() { printf '\n==> packaging: %s\n' "$*" >&2; }
fail() { echo "packaging test: $*" >&2; exit 1; }
timed() {
  local begin=$SECONDS
  "$@"
  echo "    ($(( SECONDS - begin ))s)" >&2
}

require_tools() {
  local missing=()
  for tool in shellcheck systemd-analyze debootstrap qemu-arm-static qemu-aarch64-static \
    aarch64-linux-gnu-gcc arm-linux-gnueabi-gcc dpkg-deb unshare nsenter ip curl; do
    command -v "$tool" >/dev/null || missing+=("$tool")
  done
  [ "${#missing[@]}" = 0 ] || fail "missing tools: ${missing[*]} (.ci/run installs them)"
  [ "$(id -u)" = 0 ] || fail "run as root: the end-to-end test boots systemd in network namespaces"
}

lint() {
  shellcheck packaging/install.sh packaging/deb/postinst packaging/deb/prerm packaging/deb/postrm \
    hack/release.sh hack/packaging-test.sh hack/deps.sh hack/setup.sh hack/test.sh hack/boundaries.sh .ci/run
}

release() {
  rm -rf "$DIST" "$DIST-next"
  OUT_DIR=$DIST bash hack/release.sh
  (cd "$DIST" && sha256sum --quiet -c SHA256SUMS) || fail "SHA256SUMS does not match the files"
  # A second amd64 release with a newer version, for the upgrade test.
  VERSION="$(sed -n 's/^bramble \([^ ]*\) .*/\1/p' <("$DIST/bramble-amd64" version)).next" \
    ARCHES=amd64 OUT_DIR=$DIST-next bash hack/release.sh
}

# verify_units runs systemd-analyze verify on both units install.sh writes,
# with flags that need quoting.
verify_units() {
  local dir=$WORK/units
  rm -rf "$dir" && mkdir -p "$dir"
  cp "$DIST/bramble-amd64" "$dir/bramble"
  INSTALL_BRAMBLE_PRINT_UNIT=server INSTALL_BRAMBLE_BIN_DIR=$dir sh packaging/install.sh \
    --tls-san 'my host' --node-label 'x=a$b%c"d' >"$dir/bramble.service"
  INSTALL_BRAMBLE_PRINT_UNIT=agent INSTALL_BRAMBLE_BIN_DIR=$dir sh packaging/install.sh >"$dir/bramble-agent.service"
  # shellcheck disable=SC2016 # the $ is literal: systemd's escaping of it
  grep -qx 'ExecStart='"$dir"'/bramble server "--tls-san" "my host" "--node-label" "x=a$$b%%c\\"d"' "$dir/bramble.service" ||
    fail "ExecStart quoting: got $(grep ExecStart "$dir/bramble.service")"
  for unit in "$dir"/*.service; do
    grep -q '^Type=notify$' "$unit" || fail "$unit is not Type=notify"
    systemd-analyze verify "$unit"
  done
}

check_debs() {
  local deb info files
  for deb in "$DIST"/bramble_*.deb; do
    info=$(dpkg-deb --info "$deb")
    grep -q 'Depends: containerd, runc' <<<"$info" || fail "$deb: no Depends on containerd and runc"
    files=$(dpkg-deb --contents "$deb" | awk '{ print $6 }')
    for path in ./usr/bin/bramble ./usr/bin/bramble-log ./lib/systemd/system/bramble.service ./lib/systemd/system/bramble-agent.service; do
      grep -qx "$path" <<<"$files" || fail "$deb has no $path"
    done
  done
  # A .deb serves a server or an agent, so it holds the full build.
  local arch suffix
  for arch in amd64 arm64 armv7 armv6; do
    case $arch in armv7) suffix=armhf ;; armv6) suffix=armhf-armv6 ;; *) suffix=$arch ;; esac
    deb=$(echo "$DIST"/bramble_*_"$suffix".deb)
    cmp -s <(dpkg-deb --fsys-tarfile "$deb" | tar -xOf - ./usr/bin/bramble) "$DIST/bramble-$arch" ||
      fail "$deb: /usr/bin/bramble is not bramble-$arch, the full build"
  done
}

# register_binfmt mounts binfmt_misc and registers Debian's qemu-user
# handlers for 32- and 64-bit ARM, so ARM programs started by ARM tests run.
register_binfmt() {
  [ -f /proc/sys/fs/binfmt_misc/register ] || mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc
  for arch in arm aarch64; do
    [ -e "/proc/sys/fs/binfmt_misc/qemu-$arch" ] || cat "/usr/lib/binfmt.d/qemu-$arch.conf" >/proc/sys/fs/binfmt_misc/register
    grep -qx enabled "/proc/sys/fs/binfmt_misc/qemu-$arch" || fail "binfmt_misc: qemu-$arch is not enabled"
  done
}

# qemu_version runs `bramble version` of one architecture's full and
# agent-only builds under qemu-user.
qemu_version() {
  local arch=$1 cpu=$2 want=$3 out bin
  for bin in bramble bramble-agent; do
    out=$(QEMU_CPU=$cpu "$DIST/$bin-$arch" version) || fail "$bin-$arch version under qemu ($cpu) failed"
    echo "    $bin-$arch on $cpu: $out" >&2
    grep -q "$want" <<<"$out" || fail "$bin-$arch version: got $out, want $want"
    case $bin in
    bramble) [[ "$out" != *"(agent-only build)" ]] || fail "$bin-$arch version: got $out, want the full build" ;;
    bramble-agent) [[ "$out" == *"(agent-only build)" ]] || fail "$bin-$arch version: got $out, want the agent-only build" ;;
    esac
  done
}

# qemu_tests builds the datastore and api tests for 32-bit ARMv7 (where a
# misaligned 64-bit atomic panics) as the release is built, and runs them.
qemu_tests() {
  local dir=$WORK/armv7-tests pkg
  rm -rf "$dir" && mkdir -p "$dir"
  CGO_ENABLED=1 GOOS=linux GOARCH=arm GOARM=7 CC=arm-linux-gnueabi-gcc go test -c -trimpath -tags "$STATIC_TAGS" \
    -ldflags '-linkmode external -extldflags -static' -o "$dir/" ./datastore/... ./api/... 2>&1 | grep -v 'dlopen\|pluginOpen\|^# ' || true
  for pkg in datastore api; do
    [ -x "$dir/$pkg.test" ] || fail "the $pkg tests did not build for linux/arm/v7"
    qemu_run "$dir/$pkg.test" "$pkg" || fail "$pkg tests failed on linux/arm/v7 under qemu"
  done
}

# qemu_run runs one test binary under qemu-user in folder pkg. qemu-user
# can deadlock a fork in a multi-threaded program (the parent then waits
# forever in forkExec for its child's exec), an emulator fault, not
# bramble's: a run that ends in Go's test timeout is run once more; any
# other failure fails at once.
qemu_run() {
  local bin=$1 pkg=$2 out rc attempt
  for attempt in 1 2; do
    rc=0
    out=$(cd "$pkg" && QEMU_CPU=cortex-a7 "$bin" -test.count=1 -test.timeout=6m 2>&1) || rc=$?
    echo "$out" | tail -20 >&2
    [ "$rc" = 0 ] && return 0
    grep -q '^panic: test timed out' <<<"$out" || return 1
    [ "$attempt" = 1 ] && echo "    $pkg under qemu: test timeout (a qemu-user fork deadlock?); running once more" >&2
  done
  return 1
}

sizes() {
  local arch
  for arch in amd64 arm64 armv7 armv6; do
    printf '    bramble-%s: %s bytes (%s MiB), bramble-agent-%s: %s bytes (%s MiB), bramble-log-%s: %s bytes\n' "$arch" \
      "$(stat -c %s "$DIST/bramble-$arch")" "$(( $(stat -c %s "$DIST/bramble-$arch") / 1048576 ))" \
      "$arch" "$(stat -c %s "$DIST/bramble-agent-$arch")" "$(( $(stat -c %s "$DIST/bramble-agent-$arch") / 1048576 ))" \
      "$arch" "$(stat -c %s "$DIST/bramble-log-$arch")" >&2
  done
  [ "$(stat -c %s "$DIST/bramble-arm64")" -le $((45 * 1048576)) ] || fail "bramble-arm64 is over the 45 MiB budget"
}

# base_root debootstraps a Debian 12 root once per run (the e2e test copies
# it for each machine). containerd, runc and the CNI plugins come in it:
# the machines have no route to a Debian mirror.
base_root() {
  local root=$WORK/debian-root
  local include=systemd,systemd-sysv,dbus,containerd,runc,containernetworking-plugins,iptables,iproute2,ca-certificates,curl,procps
  # .complete holds the package list: a root made with another one is made again
  if [ "$(cat "$root/.complete" 2>/dev/null)" != "$include" ]; then
    rm -rf "$root"
    debootstrap --variant=minbase --include="$include" \
      bookworm "$root" "${DEBIAN_MIRROR:-http://deb.debian.org/debian}" >"$WORK/debootstrap.log" 2>&1 ||
      { tail -20 "$WORK/debootstrap.log" >&2; fail "debootstrap failed"; }
    echo "$include" >"$root/.complete"
  fi
}

e2e() {
  BRAMBLE_RELEASE_DIR=$DIST BRAMBLE_RELEASE_NEXT_DIR=$DIST-next BRAMBLE_DEBIAN_ROOT=$WORK/debian-root \
    go test -tags install -count=1 -timeout 15m -run '^TestInstall$' -v ./e2e/ >&2
}

main() {
  require_tools
  mkdir -p "$WORK"
  step "shellcheck"; timed lint
  step "release build, all architectures"; timed release
  step "release sizes"; sizes
  step "systemd-analyze verify"; timed verify_units
  step ".deb contents"; timed check_debs
  step "binfmt_misc and qemu-user"; register_binfmt
  step "bramble version under qemu-user"
  qemu_version arm64 max linux/arm64
  qemu_version armv7 cortex-a7 linux/arm
  qemu_version armv6 arm1176 linux/arm
  step "datastore and api tests on linux/arm/v7 under qemu-user"; timed qemu_tests
  step "debootstrap a Debian 12 root"; timed base_root
  step "end to end: install.sh on systemd machines"; timed e2e
  echo "packaging tests passed" >&2
}

main "$@"
