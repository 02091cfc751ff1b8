#!/usr/bin/env bash
# Compares the wall time of `botkit create quickstart` with create-vite's
# react-ts template, both writing a fresh project into an empty directory.
#
# Usage: bench/create.sh [N]      (N runs of each, default 10; or env N)
# Env:   BOTKIT=path              measure this botkit binary (default: one built
#                                 as the release is)
#        CREATE_VITE=create-vite@9.3.0   the npm package spec to compare with
#        GOAL=12                          the speed-up the line reports against
#                                         (goal: >= 12x)
#        ENFORCE_GOAL=1                   exit 1 when the ratio is below GOAL
#
# The runs alternate (botkit, create-vite, botkit, ...) so that a change in
# machine load hits both alike; one untimed warm-up run of each comes first.
# Prints each run, the medians in ms, the mean CPU time per run of each
# (user + system, from the shell's times builtin) and `ratio: X.Yx (goal >=
# 12x)` where
# ratio = median(create-vite) / median(botkit). Exits non-zero when a build,
# the install or any run fails.
#
# botkit is built as .goreleaser.yaml builds the release (CGO_ENABLED=0,
# -trimpath, -ldflags "-s -w": static, stripped), as bench/startup.sh does: a
# plain `go build` links the C library dynamically and starts slower than
# what users run. BOTKIT=path measures a given binary instead.
set -euo pipefail

N=${1:-${N:-10}}
GOAL=${GOAL:-12}
CREATE_VITE=${CREATE_VITE:-create-vite@9.3.0}
case $N in '' | *[!0-9]* | 0)
	echo "bench/create.sh: N must be a positive integer, got '$N'" >&2
	exit 2
	;;
esac

repo=$(cd "$(dirname "$0")/.." && pwd)
TMP=$(mktemp -d "${TMPDIR:-/tmp}/botkit-bench.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

BENCH=bench/create.sh
# shellcheck source=bench/lib.sh
. "$repo/bench/lib.sh"
bench_need go node npm date awk sort

echo "building botkit..." >&2
bench_botkit "$repo" "$TMP/botkit"

echo "installing $CREATE_VITE..." >&2
npm install --prefix "$TMP/cv" --cache "$TMP/npm-cache" --no-audit --no-fund --loglevel=error "$CREATE_VITE" >&2
CV="$TMP/cv/node_modules/create-vite/index.js"
[ -f "$CV" ] || {
	echo "bench/create.sh: $CV not found after install" >&2
	exit 1
}

# Neither command may wait for input: stdin is /dev/null and CI is set.
# Times come from bash's own clock ($EPOCHREALTIME), so no extra process
# (date, timeout) is counted in either command's time.

# run_one KIND: runs one command in a fresh directory, checks what it wrote
# and prints the wall time in nanoseconds.
run_one() {
	local kind=$1 dir start end
	dir=$(mktemp -d "$TMP/run.XXXXXX")
	cd "$dir"
	case $kind in
	botkit)
		times >"$dir.t0"
		start=${EPOCHREALTIME/[.,]/}
		CI=1 "$TMP/botkit" create quickstart </dev/null >/dev/null 2>"$dir.err" || {
			echo "bench/create.sh: botkit create quickstart failed:" >&2
			cat "$dir.err" >&2
			exit 1
		}
		end=${EPOCHREALTIME/[.,]/}
		[ -f pipecat-quickstart/server/bot.py ] || {
			echo "bench/create.sh: botkit wrote no pipecat-quickstart/server/bot.py" >&2
			exit 1
		}
		;;
	create-vite)
		times >"$dir.t0"
		start=${EPOCHREALTIME/[.,]/}
		CI=1 node "$CV" app --template react-ts --no-interactive --no-immediate </dev/null >/dev/null 2>"$dir.err" || {
			echo "bench/create.sh: create-vite failed:" >&2
			cat "$dir.err" >&2
			exit 1
		}
		end=${EPOCHREALTIME/[.,]/}
		[ -f app/package.json ] || {
			echo "bench/create.sh: create-vite wrote no app/package.json" >&2
			exit 1
		}
		;;
	esac
	times >"$dir.t1"
	# The run's CPU time (user + system of this subshell's children, from
	# the times builtin: no extra process counted), appended to KIND.cpu.
	awk 'FNR == 2 {
		split($1, u, /[ms]/); split($2, s, /[ms]/)
		t[FILENAME] = (u[1] * 60 + u[2] + s[1] * 60 + s[2]) * 1000
	} END { printf "%.0f\n", t[ARGV[2]] - t[ARGV[1]] }' "$dir.t0" "$dir.t1" >>"$TMP/$kind.cpu"
	cd "$TMP"
	rm -rf "$dir" "$dir.err" "$dir.t0" "$dir.t1"
	echo $(((end - start) * 1000)) # microseconds to nanoseconds
}

# median of the numbers on stdin (ns), printed in ms with one decimal.
median_ms() { bench_median_ms 1000000 1; }

run_one botkit >/dev/null
run_one create-vite >/dev/null
: >"$TMP/botkit.cpu"
: >"$TMP/create-vite.cpu"

: >"$TMP/botkit.ns"
: >"$TMP/cv.ns"
for i in $(seq 1 "$N"); do
	b=$(run_one botkit)
	c=$(run_one create-vite)
	echo "$b" >>"$TMP/botkit.ns"
	echo "$c" >>"$TMP/cv.ns"
	awk -v i="$i" -v b="$b" -v c="$c" 'BEGIN { printf "run %2d: botkit %8.1f ms   create-vite %8.1f ms\n", i, b / 1e6, c / 1e6 }'
done

mb=$(median_ms <"$TMP/botkit.ns")
mc=$(median_ms <"$TMP/cv.ns")
cv_version=$(node -p "require('$TMP/cv/node_modules/create-vite/package.json').version")
echo "median botkit create quickstart:                                 $mb ms ($N runs)"
echo "median create-vite $cv_version app --template react-ts --no-interactive: $mc ms ($N runs)"
# CPU time moves less with the machine's load than wall time does.
cb=$(awk '{ t += $1 } END { printf "%.1f", t / NR }' "$TMP/botkit.cpu")
cc=$(awk '{ t += $1 } END { printf "%.1f", t / NR }' "$TMP/create-vite.cpu")
echo "CPU per run (user + system): botkit $cb ms, create-vite $cc ms: $(awk -v b="$cb" -v c="$cc" 'BEGIN { if (b <= 0) b = 0.1; printf "%.1f", c / b }')x"
ratio=$(awk -v b="$mb" -v c="$mc" 'BEGIN { if (b <= 0) b = 0.1; printf "%.1f", c / b }')
echo "ratio: ${ratio}x (goal >= ${GOAL}x)"
if [ "${ENFORCE_GOAL:-}" = 1 ] && awk -v r="$ratio" -v g="$GOAL" 'BEGIN { exit !(r < g) }'; then
	echo "bench/create.sh: ratio ${ratio}x is below the goal of ${GOAL}x" >&2
	exit 1
fi
