#!/bin/sh
# Installs bramble as a systemd service, in the spirit of k3s's installer:
#
#   curl -sfL https://.../install.sh | sh -                          # a server
#   curl -sfL https://.../install.sh | BRAMBLE_URL=https://SERVER:6443 \
#       BRAMBLE_TOKEN=K10... sh -                                     # an agent
#
# Re-running it upgrades bramble in place and keeps its data. Settings, all
# optional (docs/PACKAGING.md has the details):
#   BRAMBLE_URL, BRAMBLE_TOKEN    join a server as an agent (both, or neither)
#   BRAMBLE_NODE_NAME             the node's name (default: the hostname)
#   INSTALL_BRAMBLE_EXEC          "server" or "agent" and/or extra flags;
#                                 arguments to this script are added too
#   INSTALL_BRAMBLE_VERSION       release to install (default: the latest)
#   INSTALL_BRAMBLE_DOWNLOAD_URL  folder holding the release files (bramble-ARCH,
#                                 bramble-agent-ARCH, bramble-log-ARCH, SHA256SUMS)
#   INSTALL_BRAMBLE_FULL=true     an agent gets the full build bramble-ARCH, not
#                                 the agent-only bramble-agent-ARCH; a server
#                                 always gets the full build
#   INSTALL_BRAMBLE_BIN_DIR       where the binaries go (/usr/local/bin)
#   INSTALL_BRAMBLE_SKIP_DOWNLOAD=true  airgap: bramble and bramble-log are
#                                 already in the bin dir, put there by hand
#   INSTALL_BRAMBLE_SKIP_START=true     install and enable, do not start
#   INSTALL_BRAMBLE_START_TIMEOUT seconds to wait for the service (120)
#   INSTALL_BRAMBLE_PRINT_UNIT=server|agent  print the unit and exit
#                                 (packagers; hack/release.sh uses it)
set -eu

REPO_URL=https://github.com/bramble-edge/bramble
SYSTEMD_DIR=/etc/systemd/system
DEFAULT_DATA_DIR=/var/lib/bramble

info() { echo "[bramble] $*" >&2; }
fatal() {
	echo "[bramble] error: $*" >&2
	exit 1
}

is_true() {
	case "${1:-}" in true | TRUE | 1 | yes) return 0 ;; *) return 1 ;; esac
}

# --- settings ---------------------------------------------------------------

# setup_env settles the command (server or agent), the service's name and
# files, and the flags the unit runs bramble with.
setup_env() {
	BIN_DIR=${INSTALL_BRAMBLE_BIN_DIR:-/usr/local/bin}
	# shellcheck disable=SC2086 # INSTALL_BRAMBLE_EXEC is split into words on purpose
	set -- ${INSTALL_BRAMBLE_EXEC:-} "$@"
	CMD=
	case "${1:-}" in
	server | agent)
		CMD=$1
		shift
		;;
	esac
	if [ -z "$CMD" ]; then
		if [ -n "${BRAMBLE_URL:-}" ]; then CMD=agent; else CMD=server; fi
	fi
	if [ "$CMD" = agent ]; then
		[ -n "${BRAMBLE_URL:-}" ] || fatal "an agent needs BRAMBLE_URL (https://SERVER:6443)"
		[ -n "${BRAMBLE_TOKEN:-}" ] || fatal "an agent needs BRAMBLE_TOKEN (cat /var/lib/bramble/server/token on the server)"
		case "$BRAMBLE_URL" in https://?*) ;; *) fatal "BRAMBLE_URL: got '$BRAMBLE_URL', want https://HOST:PORT" ;; esac
		SERVICE=bramble-agent
	else
		SERVICE=bramble
	fi
	if [ -n "${BRAMBLE_NODE_NAME:-}" ]; then
		set -- "$@" --node-name "$BRAMBLE_NODE_NAME"
	fi
	collect_args "$@"
	UNIT_FILE=$SYSTEMD_DIR/$SERVICE.service
	ENV_FILE=$SYSTEMD_DIR/$SERVICE.service.env
	UNINSTALL=$BIN_DIR/$SERVICE-uninstall.sh
}

# collect_args quotes the flags for ExecStart into EXEC_ARGS, and notes
# the data dir and containerd namespace for the uninstall script.
collect_args() {
	EXEC_ARGS=
	DATA_DIR=$DEFAULT_DATA_DIR CONTAINERD_NS=bramble
	prev=
	for arg in "$@"; do
		EXEC_ARGS="$EXEC_ARGS $(unit_quote "$arg")"
		case "$arg" in
		--data-dir=*) DATA_DIR=${arg#--data-dir=} ;;
		--containerd-namespace=*) CONTAINERD_NS=${arg#--containerd-namespace=} ;;
		esac
		if [ "$prev" = --data-dir ]; then DATA_DIR=$arg; fi
		if [ "$prev" = --containerd-namespace ]; then CONTAINERD_NS=$arg; fi
		prev=$arg
	done
}

# unit_quote quotes one argument for a unit's ExecStart: double quotes,
# with \ and " escaped, and $ and % (expanded by systemd) doubled.
unit_quote() {
	printf '"%s"' "$(printf '%s' "$1" | sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/\$/$$/g' -e 's/%/%%/g')"
}

# --- the machine ------------------------------------------------------------

# setup_arch maps the machine to a release binary. The binaries are static,
# so a 32-bit Raspberry Pi OS on a 64-bit kernel can run the arm64 one.
setup_arch() {
	machine=$(uname -m)
	case "$machine" in
	x86_64 | amd64) ARCH=amd64 ;;
	aarch64 | arm64) ARCH=arm64 ;;
	armv7* | armv8l) ARCH=armv7 ;;
	armv6*) ARCH=armv6 ;;
	*) fatal "no bramble binary for this machine ($machine); there are amd64, arm64, armv7 and armv6 ones" ;;
	esac
	# The release file installed as bramble: an agent takes the agent-only
	# build (no server, smaller, less memory) unless told otherwise.
	BRAMBLE_FILE=bramble-$ARCH
	if [ "$CMD" = agent ] && ! is_true "${INSTALL_BRAMBLE_FULL:-}"; then
		BRAMBLE_FILE=bramble-agent-$ARCH
	fi
}

verify_system() {
	[ "$(id -u)" = 0 ] || fatal "run as root (sudo sh install.sh)"
	[ -d /run/systemd/system ] || fatal "systemd is not running: this installer writes systemd units"
	command -v systemctl >/dev/null || fatal "systemctl not found"
}

# --- download ---------------------------------------------------------------

setup_download() {
	if [ -n "${INSTALL_BRAMBLE_DOWNLOAD_URL:-}" ]; then
		BASE_URL=${INSTALL_BRAMBLE_DOWNLOAD_URL%/}
	elif [ -n "${INSTALL_BRAMBLE_VERSION:-}" ]; then
		BASE_URL=$REPO_URL/releases/download/$INSTALL_BRAMBLE_VERSION
	else
		BASE_URL=$REPO_URL/releases/latest/download
	fi
	if command -v curl >/dev/null; then
		DOWNLOADER=curl
	elif command -v wget >/dev/null; then
		DOWNLOADER=wget
	else
		fatal "neither curl nor wget is installed"
	fi
}

# download URL FILE
download() {
	case "$DOWNLOADER" in
	curl) curl -fsSL --retry 3 -o "$2" "$1" ;;
	wget) wget -q -O "$2" "$1" ;;
	esac || fatal "download $1 failed"
}

# listed_hash NAME prints NAME's SHA-256 from SHA256SUMS, or nothing.
listed_hash() {
	awk -v n="$1" '$2 == n || $2 == "*" n { print $1 }' "$TMP_DIR/SHA256SUMS"
}

# verify_hash FILE NAME checks FILE against NAME's line in SHA256SUMS.
verify_hash() {
	want=$(listed_hash "$2")
	[ -n "$want" ] || fatal "SHA256SUMS from $BASE_URL has no line for $2"
	got=$(sha256sum "$1" | awk '{ print $1 }')
	[ "$got" = "$want" ] || fatal "$2: SHA-256 is $got, SHA256SUMS says $want"
}

# fetch BIN FILE downloads the release file FILE as BIN and checks it.
fetch() {
	download "$BASE_URL/$2" "$TMP_DIR/$1"
	verify_hash "$TMP_DIR/$1" "$2"
	chmod 755 "$TMP_DIR/$1"
}

download_and_verify() {
	TMP_DIR=$(mktemp -d)
	trap 'rm -rf "$TMP_DIR"' EXIT
	info "downloading bramble for $ARCH from $BASE_URL"
	download "$BASE_URL/SHA256SUMS" "$TMP_DIR/SHA256SUMS"
	if [ -z "$(listed_hash "$BRAMBLE_FILE")" ] && [ "$BRAMBLE_FILE" != "bramble-$ARCH" ]; then
		info "this release has no $BRAMBLE_FILE (older than the agent-only build): installing the full bramble-$ARCH"
		BRAMBLE_FILE=bramble-$ARCH
	fi
	fetch bramble "$BRAMBLE_FILE"
	fetch bramble-log "bramble-log-$ARCH"
	"$TMP_DIR/bramble" version >/dev/null || fatal "the downloaded bramble does not run on this machine"
	mkdir -p "$BIN_DIR"
	# Beside the target first, then a rename: a running bramble keeps its
	# old file, and no one sees half a binary.
	for bin in bramble bramble-log; do
		cp "$TMP_DIR/$bin" "$BIN_DIR/.$bin.new"
		mv -f "$BIN_DIR/.$bin.new" "$BIN_DIR/$bin"
	done
	info "installed $("$BIN_DIR/bramble" version)"
}

check_skipped_download() {
	[ -x "$BIN_DIR/bramble" ] || fatal "INSTALL_BRAMBLE_SKIP_DOWNLOAD: put bramble (the $BRAMBLE_FILE release file) in $BIN_DIR first"
	[ -x "$BIN_DIR/bramble-log" ] || fatal "INSTALL_BRAMBLE_SKIP_DOWNLOAD: put bramble-log (the bramble-log-$ARCH release file) in $BIN_DIR first"
	info "using $("$BIN_DIR/bramble" version)"
}

# --- containerd -------------------------------------------------------------

# needs_runtime: a server with --disable-agent runs no containers.
needs_runtime() {
	case " $EXEC_ARGS " in *' "--disable-agent"'* | *' "--disable-agent=true"'*) return 1 ;; esac
	return 0
}

install_runtime() {
	missing=
	command -v containerd >/dev/null || missing="$missing containerd"
	command -v runc >/dev/null || missing="$missing runc"
	# pod networking: Debian's CNI plugins (/usr/lib/cni), and iptables for portmap
	[ -x /usr/lib/cni/bridge ] || missing="$missing containernetworking-plugins"
	command -v iptables >/dev/null || missing="$missing iptables"
	if [ -n "$missing" ]; then
		command -v apt-get >/dev/null || fatal "install$missing first: this installer only knows apt-get"
		info "installing$missing with apt-get"
		export DEBIAN_FRONTEND=noninteractive
		apt-get update -qq || fatal "apt-get update failed"
		# shellcheck disable=SC2086 # one word per package
		apt-get install -y -qq --no-install-recommends $missing >/dev/null || fatal "apt-get install$missing failed"
	fi
	systemctl enable --now containerd.service >/dev/null 2>&1 ||
		fatal "containerd does not start; see journalctl -u containerd"
}

# memory_cgroup_off: the agent needs the memory cgroup for limits, and
# Raspberry Pi OS ships with it off.
memory_cgroup_off() {
	if [ -f /sys/fs/cgroup/cgroup.controllers ]; then
		if grep -qw memory /sys/fs/cgroup/cgroup.controllers; then return 1; fi
		return 0
	fi
	if awk '$1 == "memory" && $4 == "1" { on = 1 } END { exit !on }' /proc/cgroups; then return 1; fi
	return 0
}

# --- units and scripts ------------------------------------------------------

# unit_text CMD prints the unit that runs `bramble CMD` with EXEC_ARGS.
# KillMode=process: a restart of bramble leaves the containers running,
# for the next start to adopt. Readiness (Type=notify) is sent by bramble.
unit_text() {
	cat <<UNIT
[Unit]
Description=bramble $1: lightweight Kubernetes-style orchestrator for edge fleets
Documentation=$REPO_URL
Wants=network-online.target containerd.service
After=network-online.target containerd.service

[Service]
Type=notify
NotifyAccess=main
EnvironmentFile=-/etc/default/%N
EnvironmentFile=-/etc/systemd/system/%N.service.env
ExecStart=$BIN_DIR/bramble $1$EXEC_ARGS
KillMode=process
Delegate=yes
LimitNOFILE=1048576
LimitNPROC=infinity
LimitCORE=infinity
TasksMax=infinity
TimeoutStartSec=0
Restart=always
RestartSec=5s

[Install]
WantedBy=multi-user.target
UNIT
}

write_units() {
	(
		umask 077
		: >"$ENV_FILE"
		if [ "$CMD" = agent ]; then
			printf 'BRAMBLE_URL=%s\nBRAMBLE_TOKEN=%s\n' "$BRAMBLE_URL" "$BRAMBLE_TOKEN" >"$ENV_FILE"
		fi
	)
	unit_text "$CMD" >"$UNIT_FILE"
	chmod 644 "$UNIT_FILE"
	info "wrote $UNIT_FILE"
}

# sh_quote quotes one word for a shell script, in single quotes.
sh_quote() {
	printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")"
}

# uninstall_text prints the uninstall script: it stops the service,
# removes the node's containers and images from containerd, the pod
# network's devices, routes and nftables table, and deletes the unit, the
# binaries, the data and the config. containerd and runc,
# possibly used by others, stay.
uninstall_text() {
	cat <<SCRIPT
#!/bin/sh
# Removes bramble ($SERVICE), written by install.sh.
set -u
[ "\$(id -u)" = 0 ] || { echo "run as root" >&2; exit 1; }
service=$(sh_quote "$SERVICE") data_dir=$(sh_quote "$DATA_DIR") bin_dir=$(sh_quote "$BIN_DIR") ns=$(sh_quote "$CONTAINERD_NS")
systemctl disable --now "\$service.service" 2>/dev/null
if command -v ctr >/dev/null && ctr version >/dev/null 2>&1; then
	for id in \$(ctr -n "\$ns" tasks ls -q 2>/dev/null); do ctr -n "\$ns" tasks delete -f "\$id" >/dev/null 2>&1; done
	for id in \$(ctr -n "\$ns" containers ls -q 2>/dev/null); do ctr -n "\$ns" containers delete "\$id" >/dev/null 2>&1; done
	for ref in \$(ctr -n "\$ns" images ls -q 2>/dev/null); do ctr -n "\$ns" images rm "\$ref" >/dev/null 2>&1; done
	ctr namespaces remove "\$ns" >/dev/null 2>&1 || true
fi
# Pod networking (docs/NETWORKING.md): the pod bridge, the vxlan device, the
# overlay's routes (protocol 98) and bramble's nftables table. The agent
# leaves them in place when it stops so pods keep their network.
ip link delete cni0 2>/dev/null
ip link delete vxlan.1 2>/dev/null
ip route flush proto 98 2>/dev/null
command -v nft >/dev/null && nft delete table inet bramble 2>/dev/null
# The node's cgroups, made by the agent under its containerd namespace's name.
for d in /sys/fs/cgroup/*/"\$ns" /sys/fs/cgroup/"\$ns"; do [ -d "\$d" ] && find "\$d" -depth -type d -exec rmdir {} \; 2>/dev/null; done
awk -v d="\$data_dir/" 'index(\$2 "/", d) == 1 { print \$2 }' /proc/self/mounts | sort -r | while read -r m; do umount -l "\$m"; done
rm -f "/etc/systemd/system/\$service.service" "/etc/systemd/system/\$service.service.env"
rm -rf "/etc/systemd/system/\$service.service.d"
systemctl daemon-reload
systemctl reset-failed "\$service.service" 2>/dev/null
rm -rf "\$data_dir" /etc/bramble
rm -f "\$bin_dir/bramble" "\$bin_dir/bramble-log" "\$bin_dir/\$service-uninstall.sh"
echo "bramble (\$service) removed; containerd and runc stay installed" >&2
SCRIPT
}

write_uninstall() {
	uninstall_text >"$UNINSTALL"
	chmod 755 "$UNINSTALL"
	info "wrote $UNINSTALL"
}

# --- start ------------------------------------------------------------------

# wait_active waits for the unit to turn active; a unit that fails, and
# is waiting to be restarted, ends the install with its log.
wait_active() {
	timeout=${INSTALL_BRAMBLE_START_TIMEOUT:-120}
	i=0
	while [ "$i" -lt "$timeout" ]; do
		state=$(systemctl show -p ActiveState --value "$SERVICE.service")
		sub=$(systemctl show -p SubState --value "$SERVICE.service")
		[ "$state" = active ] && return 0
		if [ "$state" = failed ] || [ "$sub" = auto-restart ]; then
			journalctl -u "$SERVICE.service" -n 20 --no-pager >&2 || true
			fatal "$SERVICE failed to start; see journalctl -u $SERVICE"
		fi
		sleep 1
		i=$((i + 1))
	done
	fatal "$SERVICE is still $state after ${timeout}s (it keeps trying); see journalctl -u $SERVICE"
}

start_service() {
	systemctl daemon-reload
	systemctl enable "$SERVICE.service" >/dev/null 2>&1 || fatal "systemctl enable $SERVICE failed"
	if is_true "${INSTALL_BRAMBLE_SKIP_START:-}"; then
		info "enabled $SERVICE; not started (INSTALL_BRAMBLE_SKIP_START)"
		return
	fi
	if needs_runtime && memory_cgroup_off; then
		"$BIN_DIR/bramble" check-config >&2 || true
		info "the memory cgroup is off: apply the fix above and reboot; $SERVICE then starts by itself"
		return
	fi
	info "starting $SERVICE"
	# A restart, not a start: re-running the installer upgrades.
	systemctl restart --no-block "$SERVICE.service"
	wait_active
	info "$SERVICE is active"
	if [ "$CMD" = server ]; then
		info "kubeconfig: /etc/bramble/bramble.yaml; join token: $DATA_DIR/server/token"
	fi
}

main() {
	if [ -n "${INSTALL_BRAMBLE_PRINT_UNIT:-}" ]; then
		BIN_DIR=${INSTALL_BRAMBLE_BIN_DIR:-/usr/bin}
		collect_args "$@"
		unit_text "$INSTALL_BRAMBLE_PRINT_UNIT"
		return
	fi
	setup_env "$@"
	verify_system
	setup_arch
	if is_true "${INSTALL_BRAMBLE_SKIP_DOWNLOAD:-}"; then
		check_skipped_download
	else
		setup_download
		download_and_verify
	fi
	if needs_runtime; then install_runtime; fi
	write_units
	write_uninstall
	start_service
}

# The last line: a download cut short runs nothing.
main "$@"
