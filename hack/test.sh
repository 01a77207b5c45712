#!/usr/bin/env bash
# Runs every bramble test, as CI does: formatting, vet, staticcheck, module
# tidiness, package boundaries, unit and end-to-end tests under the race detector
# (real SQLite, the real kubectl 1.27-1.33, real processes), then a short run
# of every fuzz target. Installs what it needs first (hack/deps.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
bash hack/deps.sh
export PATH=/usr/local/go/bin:$PATH
FUZZTIME=${FUZZTIME:-5s}

step() { printf '\n==> %s\n' "$*" >&2; }

step "kubectl present"
test -x /usr/bin/kubectl || { echo "the end-to-end tests need /usr/bin/kubectl (kubectl 1.27-1.33)" >&2; exit 1; }

step "gofmt"
unformatted=$(git ls-files -z '*.go' | xargs -0 gofmt -l)
[ -z "$unformatted" ] || { echo "not gofmt'ed:" >&2; echo "$unformatted" >&2; exit 1; }

step "go vet"
go vet ./...

step "staticcheck"
"$(go env GOPATH | cut -d: -f1)/bin/staticcheck" -tags kubectl,install,helm,chaos ./...

# The agent-only build (cmd/bramble with -tags agentonly, what install.sh
# puts on an agent; docs/PACKAGING.md) has files of its own: vet, lint and
# test them, and build it without cgo as the release does.
step "the agent-only build: vet, staticcheck, tests, a build without cgo"
go vet -tags agentonly ./cmd/bramble
"$(go env GOPATH | cut -d: -f1)/bin/staticcheck" -tags agentonly ./cmd/bramble
go test -tags agentonly -count=1 ./cmd/bramble
CGO_ENABLED=0 go build -tags agentonly,no_dynamic_plugins,netgo,osusergo -o /dev/null ./cmd/bramble

step "go mod tidy leaves no diff"
cp go.mod /tmp/bramble-go.mod.orig; cp go.sum /tmp/bramble-go.sum.orig
go mod tidy
if ! diff -q go.mod /tmp/bramble-go.mod.orig >/dev/null || ! diff -q go.sum /tmp/bramble-go.sum.orig >/dev/null; then
  diff -u /tmp/bramble-go.mod.orig go.mod >&2 || true
  cp /tmp/bramble-go.mod.orig go.mod; cp /tmp/bramble-go.sum.orig go.sum
  echo "go.mod/go.sum are not tidy" >&2; exit 1
fi

step "package boundaries"
bash hack/boundaries.sh

# The chaos suite (e2e/chaos, tag chaos, docs/CHAOS.md) runs its short
# version in the background while the other tests run; its figure lines
# are printed when it passes, its whole output when it fails. Without
# -race: its writers must load the server at their real speed, and the race
# detector slows their HTTPS and JSON tenfold (the server binary it drives
# is never race-built; the other end-to-end suites cover that).
step "chaos suite (short version), in the background"
chaos_log=$(mktemp)
go test -tags chaos -count=1 -v -timeout 10m ./e2e/chaos/ >"$chaos_log" 2>&1 &
chaos_pid=$!

# The real-clock CronJob test sleeps through three minute boundaries
# (docs/WORKLOADS.md); it waits, so it runs beside the rest instead of
# adding its 3.5 minutes to the end-to-end package.
step "CronJob on the real clock (3.5 minutes), in the background"
cron_log=$(mktemp)
BRAMBLE_E2E_LONG=1 go test -count=1 -v -run '^TestCronJobEveryMinute$' -timeout 10m ./e2e/ >"$cron_log" 2>&1 &
cron_pid=$!

step "go test -race ./... (unit, conformance, crash, end-to-end)"
go test -race -tags kubectl -count=1 -timeout 25m ./...

step "chaos suite results"
if ! wait "$chaos_pid"; then
  cat "$chaos_log" >&2
  echo "the chaos suite failed" >&2; exit 1
fi
grep '^chaos: ' "$chaos_log" >&2

step "CronJob on the real clock: results"
if ! wait "$cron_pid" || ! grep -q -- '--- PASS: TestCronJobEveryMinute' "$cron_log"; then
  cat "$cron_log" >&2
  echo "the real-clock CronJob test failed" >&2; exit 1
fi

step "Helm end to end and the chart corpus (writes docs/COMPATIBILITY.md)"
go test -race -tags helm -count=1 -timeout 20m ./e2e/helm/

# Each new interesting input is minimised in at most 100 runs (Go's default
# is a minute, longer than a short run: a target with large inputs, such as
# FuzzDecodeStoredReusing's two pod revisions, spent all of it minimising
# after 16 executions). A crashing input is still written, less minimised.
# A fuzz run that fails without writing a crashing input is Go's own
# coordinator timing out (golang/go#75804), not a finding: run it once more.
fuzz() {
  local pkg=$1 f=$2 out
  for attempt in 1 2; do
    if out=$(go test -run='^$' -fuzz="^${f}\$" -fuzztime="$FUZZTIME" -fuzzminimizetime=100x "$pkg" 2>&1); then
      return 0
    fi
    if grep -q 'Failing input written to' <<<"$out" || [ "$attempt" = 2 ]; then
      echo "$out" >&2
      return 1
    fi
    echo "fuzz $pkg $f: failed without a crashing input; retrying once" >&2
  done
}

step "fuzz targets, ${FUZZTIME} each"
for pkg in $(go list ./...); do
  dir=$(go list -f '{{.Dir}}' "$pkg")
  while read -r f; do
    [ -n "$f" ] || continue
    echo "fuzz $pkg $f" >&2
    fuzz "$pkg" "$f" </dev/null
  done < <(grep -ho '^func Fuzz[A-Za-z0-9_]*' "$dir"/*_test.go 2>/dev/null | sed 's/^func //' | sort -u)
done

step "benchmarks compile and run once"
# Output is kept and shown only when a benchmark fails; the bench package
# runs real clusters one after another, so it gets more than go test's
# default 10 minutes.
bench_log=$(mktemp)
if ! go test -run='^$' -bench=. -benchtime=1x -short -timeout 25m ./... >"$bench_log" 2>&1; then
  cat "$bench_log" >&2
  echo "a benchmark failed" >&2; exit 1
fi

step "packaging: release builds, qemu-user, install.sh on systemd machines"
bash hack/packaging-test.sh

echo "all tests passed" >&2
