#!/usr/bin/env bash
# Compares the start-up of `botkit --version` with its floor: a hello-world
# Go binary (fmt.Println) that this script builds, with the same toolchain, in
# a temporary directory. The ratio of the two, measured in the same run, is
# the figure that counts (goal <= 2x); absolute times depend on the
# machine and its load.
#
# Both are built as .goreleaser.yaml builds the release (CGO_ENABLED=0,
# -trimpath, -ldflags "-s -w": static, stripped; botkit with its version
# stamped, -X .../cmdutil.Version, so that it reads no build information); a
# plain `go build` of botkit links the C library dynamically (net, os/user)
# and starts slower.
#
# Usage: bench/startup.sh [N]      (N runs of each, default 100; or env N)
# Env:   BOTKIT=path       measure this botkit binary instead of building one
#                          (e.g. the build of an older commit)
#        GOAL=2            the ratio the line reports against
#        ENFORCE_GOAL=1    exit 1 when the ratio is above GOAL
#
# Prints:
#   - the binaries' sizes;
#   - package initialisation of botkit (GODEBUG=inittrace=1): packages,
#     allocations, bytes and clock summed, and the module's own packages'
#     share. Allocation counts do not depend on the machine's load; the
#     clock does;
#   - page faults of one run of each (perf stat -e page-faults, mean of 20
#     runs; without perf, /usr/bin/time -v's minor faults of one run);
#   - the wall time of each run, alternating (botkit, hello, botkit, ...) so
#     that a change in load hits both alike, after one untimed run of each;
#     the medians and `ratio: X.Yx (goal <= 2x)` = median(botkit) /
#     median(hello), and the same of the fastest run of each.
# Exits non-zero when a build or a run fails.
set -euo pipefail

N=${1:-${N:-100}}
GOAL=${GOAL:-2}
case $N in '' | *[!0-9]* | 0)
	echo "bench/startup.sh: N must be a positive integer, got '$N'" >&2
	exit 2
	;;
esac

repo=$(cd "$(dirname "$0")/.." && pwd)
BENCH=bench/startup.sh
# shellcheck source=bench/lib.sh
. "$repo/bench/lib.sh"
bench_need go awk sort stat

TMP=$(mktemp -d "${TMPDIR:-/tmp}/botkit-startup.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

echo "building botkit as .goreleaser.yaml does..." >&2
bench_botkit "$repo" "$TMP/botkit"

echo "building hello-world..." >&2
mkdir "$TMP/hello"
cat >"$TMP/hello/main.go" <<'EOF'
package main

import "fmt"

func main() { fmt.Println("hello, world") }
EOF
printf 'module hello\n\ngo 1.22\n' >"$TMP/hello/go.mod"
(cd "$TMP/hello" && CGO_ENABLED=0 GOFLAGS='' go build -trimpath -ldflags "-s -w" -o "$TMP/hello-world" .)

BK=$TMP/botkit
HW=$TMP/hello-world
"$BK" --version >/dev/null
"$HW" >/dev/null

size() { stat -c %s "$1" | awk '{ printf "%.1f MB", $1 / 1e6 }'; }
echo "binary size: botkit $(size "$BK"), hello-world $(size "$HW")"

# inittrace: one line per package, "init PKG @T ms, C ms clock, B bytes, A allocs".
GODEBUG=inittrace=1 "$BK" --version 2>"$TMP/inittrace" >/dev/null
awk '/^init / {
		n++; clock += $5; bytes += $8; allocs += $10
		if ($2 ~ /^github\.com\/botkit-dev\/botkit\//) { pn++; pclock += $5; pbytes += $8; pallocs += $10 }
	}
	END {
		printf "package init (inittrace): %d packages, %d allocs, %.0f KB, %.2f ms clock\n", n, allocs, bytes / 1024, clock
		printf "  of which botkit'"'"'s own: %d packages, %d allocs, %.1f KB, %.2f ms clock\n", pn, pallocs, pbytes / 1024, pclock
	}' "$TMP/inittrace"
echo "  largest by allocations:"
awk '/^init / { printf "    %-55s %6d allocs %8d bytes %7s ms\n", $2, $10, $8, $5 }' "$TMP/inittrace" | sort -k2 -n -r | awk 'NR <= 8'

# faults CMD...: page faults of one run of CMD.
faults() {
	if command -v perf >/dev/null && perf stat -x, -e page-faults true >/dev/null 2>&1; then
		perf stat -x, -r 20 -e page-faults "$@" 2>&1 >/dev/null | awk -F, '$3 == "page-faults" { printf "%.0f (perf, mean of 20)", $1 }'
	elif [ -x /usr/bin/time ]; then
		/usr/bin/time -v "$@" 2>&1 >/dev/null | awk -F: '/Minor \(reclaiming a frame\) page faults/ { gsub(/ /, "", $2); printf "%s minor (/usr/bin/time -v)", $2 }'
	else
		printf 'n/a (neither perf nor /usr/bin/time)'
	fi
}
echo "page faults: botkit --version $(faults "$BK" --version), hello-world $(faults "$HW")"

# run_one BIN ARGS...: prints the wall time of one run in microseconds, from
# bash's own clock ($EPOCHREALTIME): no extra process is counted.
run_one() {
	local start end
	start=${EPOCHREALTIME/[.,]/}
	"$@" >/dev/null || {
		echo "bench/startup.sh: $* failed" >&2
		exit 1
	}
	end=${EPOCHREALTIME/[.,]/}
	echo $((end - start))
}

# median of the numbers on stdin (µs), printed in ms with two decimals.
median_ms() { bench_median_ms 1000 2; }

: >"$TMP/botkit.us"
: >"$TMP/hello.us"
for _ in $(seq 1 "$N"); do
	run_one "$BK" --version >>"$TMP/botkit.us"
	run_one "$HW" >>"$TMP/hello.us"
done

mb=$(median_ms <"$TMP/botkit.us")
mh=$(median_ms <"$TMP/hello.us")
echo "median botkit --version: $mb ms ($N runs)"
echo "median hello-world:      $mh ms ($N runs)"
# The fastest run of each: what the machine gives when nothing else runs;
# on a loaded machine it moves less than the median.
lb=$(sort -n "$TMP/botkit.us" | awk 'NR == 1 { printf "%.2f", $1 / 1e3 }')
lh=$(sort -n "$TMP/hello.us" | awk 'NR == 1 { printf "%.2f", $1 / 1e3 }')
echo "fastest: botkit --version $lb ms, hello-world $lh ms: $(awk -v b="$lb" -v h="$lh" 'BEGIN { if (h <= 0) h = 0.01; printf "%.1f", b / h }')x"
ratio=$(awk -v b="$mb" -v h="$mh" 'BEGIN { if (h <= 0) h = 0.01; printf "%.1f", b / h }')
echo "ratio: ${ratio}x (goal <= ${GOAL}x)"
if [ "${ENFORCE_GOAL:-}" = 1 ] && awk -v r="$ratio" -v g="$GOAL" 'BEGIN { exit !(r > g) }'; then
	echo "bench/startup.sh: ratio ${ratio}x is above the goal of ${GOAL}x" >&2
	exit 1
fi
