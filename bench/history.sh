#!/usr/bin/env bash
# Times `botkit cloud secrets history NAME` of a secret set with 100 kept
# versions against `botkit cloud secrets list NAME` of the same set, on the
# embedded local platform, in the same run (goal: history <= 1.2x list).
# Both open the same database, read one set and print a table; history
# reads the 100 versions' headers besides.
#
# Usage: bench/history.sh [N]      (N timed runs of each, default 30; or env N)
# Env:   BOTKIT=path              measure this botkit binary (default: one built
#                                 as the release is)
#        VERSIONS=100               versions the set is given (1 to 100: the
#                                   organization keeps 100, the most it may)
#        GOAL=1.2                   the ratio the line reports against
#        ENFORCE_GOAL=1             exit 1 when the ratio is above GOAL
#
# The set is written VERSIONS times (one key changed each time) after
# `botkit-platform orgs set local --history-limit 100` on the same data
# directory. Runs alternate (history, list, history, ...) so that a change in
# the machine's load hits both alike; one untimed run of each comes first.
# Prints the medians in ms and `ratio: X.YYx (goal <= 1.2x)` = median(history)
# / median(list). Exits non-zero when a build or a command fails, or when
# history does not show VERSIONS versions.
#
# botkit is built as .goreleaser.yaml builds the release (CGO_ENABLED=0,
# -trimpath, -ldflags "-s -w": static, stripped), as bench/startup.sh does: a
# plain `go build` links the C library dynamically and starts slower than
# what users run. BOTKIT=path measures a given binary instead.
set -euo pipefail

N=${1:-${N:-30}}
VERSIONS=${VERSIONS:-100}
GOAL=${GOAL:-1.2}
for n in "$N" "$VERSIONS"; do
	case $n in '' | *[!0-9]* | 0)
		echo "bench/history.sh: N and VERSIONS must be positive integers, got '$n'" >&2
		exit 2
		;;
	esac
done
[ "$VERSIONS" -le 100 ] || {
	echo "bench/history.sh: VERSIONS must be at most 100 (the most versions an organization keeps)" >&2
	exit 2
}
repo=$(cd "$(dirname "$0")/.." && pwd)
BENCH=bench/history.sh
# shellcheck source=bench/lib.sh
. "$repo/bench/lib.sh"
bench_need go awk sort
TMP=$(mktemp -d "${TMPDIR:-/tmp}/botkit-bench-history.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

echo "building botkit and botkit-platform..." >&2
bench_botkit "$repo" "$TMP/botkit"
(cd "$repo" && go build -o "$TMP/botkit-platform" ./cmd/botkit-platform)

# A fresh machine for botkit: its own home, no configuration (embedded
# platform), not a terminal (stdin /dev/null), CI set.
export HOME=$TMP/home XDG_CONFIG_HOME=$TMP/home/.config XDG_STATE_HOME=$TMP/home/.state XDG_DATA_HOME=$TMP/data CI=true
unset BOTKIT_API_URL BOTKIT_TOKEN BOTKIT_ORG BOTKIT_CONFIG_DIR
mkdir -p "$HOME"
BK=$TMP/botkit
NAME=bench-history

echo "writing $VERSIONS versions of $NAME..." >&2
"$BK" cloud secrets set "$NAME" KEY=value-1 </dev/null >/dev/null
"$TMP/botkit-platform" orgs set local --history-limit 100 --data-dir "$XDG_DATA_HOME/botkit" >/dev/null
for ((v = 2; v <= VERSIONS; v++)); do
	"$BK" cloud secrets set "$NAME" "KEY=value-$v" --skip </dev/null >/dev/null
done
shown=$("$BK" cloud secrets history "$NAME" -o json </dev/null | grep -c '"version":' || true)
[ "$shown" -eq "$VERSIONS" ] || {
	echo "bench/history.sh: history shows $shown versions, want $VERSIONS" >&2
	exit 1
}

# run_one history|list: prints the wall time of one run in microseconds, from
# bash's own clock ($EPOCHREALTIME): no extra process is counted.
run_one() {
	local start end
	start=${EPOCHREALTIME/[.,]/}
	"$BK" cloud secrets "$1" "$NAME" </dev/null >/dev/null || {
		echo "bench/history.sh: botkit cloud secrets $1 $NAME failed" >&2
		exit 1
	}
	end=${EPOCHREALTIME/[.,]/}
	echo $((end - start))
}

# median of the numbers on stdin (µs), printed in ms with two decimals.
median_ms() { bench_median_ms 1000 2; }

run_one history >/dev/null
run_one list >/dev/null
: >"$TMP/history.us"
: >"$TMP/list.us"
for ((r = 1; r <= N; r++)); do
	run_one history >>"$TMP/history.us"
	run_one list >>"$TMP/list.us"
done

mh=$(median_ms <"$TMP/history.us")
ml=$(median_ms <"$TMP/list.us")
echo "median botkit cloud secrets history NAME ($VERSIONS versions): $mh ms ($N runs)"
echo "median botkit cloud secrets list NAME (the same set):        $ml ms ($N runs)"
ratio=$(awk -v h="$mh" -v l="$ml" 'BEGIN { if (l <= 0) l = 0.01; printf "%.2f", h / l }')
echo "ratio: ${ratio}x (goal <= ${GOAL}x)"
if [ "${ENFORCE_GOAL:-}" = 1 ] && awk -v r="$ratio" -v g="$GOAL" 'BEGIN { exit !(r > g) }'; then
	echo "bench/history.sh: ratio ${ratio}x is above the goal of ${GOAL}x" >&2
	exit 1
fi
