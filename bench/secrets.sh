#!/usr/bin/env bash
# Times `botkit cloud secrets set` and `botkit cloud secrets list -o json` on
# the embedded local platform, each beside a floor measured in the same run
# with the sqlite3 command on the same kind of database file:
#
#   set   one new key per run, into one set (warm: the database exists)
#         floor: sqlite3 inserting one row into a WAL database with
#                synchronous=FULL (a process start, an open, one fsync'd commit)
#   list  -o json of 10,000 secret sets (5 keys each)
#         floor: sqlite3 -json selecting the same 10,000 rows of the
#                platform's own objects table
#
# Usage: bench/secrets.sh [N]     (N timed runs of each, default 20; or env N)
# Env:   BOTKIT=path              measure this botkit binary (default: one built
#                                 as the release is)
#        SETS=10000               sets seeded for list (0: no list runs)
#        GOAL=2.5                 the set ratio the line reports against
#        ENFORCE_GOAL=1           exit 1 when the set ratio is above GOAL
#
# Runs alternate (botkit, floor, botkit, floor, ...) so that a change in the
# machine's load hits both alike; one untimed warm-up run of each comes
# first. Prints the medians in ms, the CPU time per run of set and its floor
# (user + system, from the shell's times builtin), the ratios to the floors
# and the goals:
# set <= 2.5x its floor, printed last as `ratio: X.YYx (goal <=
# 2.5x)`; list of 10,000 < 250 ms. Not a test: it reports, and fails on a
# missed goal only with ENFORCE_GOAL=1. Exits non-zero when a command fails.
#
# botkit is built as .goreleaser.yaml builds the release (CGO_ENABLED=0,
# -trimpath, -ldflags "-s -w": static, stripped), as bench/startup.sh does: a
# plain `go build` links the C library dynamically and starts slower than
# what users run. BOTKIT=path measures a given binary instead.
set -euo pipefail

N=${1:-${N:-20}}
SETS=${SETS:-10000}
GOAL=${GOAL:-2.5}
case $N in '' | *[!0-9]* | 0)
	echo "bench/secrets.sh: N must be a positive integer, got '$N'" >&2
	exit 2
	;;
esac
case $SETS in '' | *[!0-9]*)
	echo "bench/secrets.sh: SETS must be a number, got '$SETS'" >&2
	exit 2
	;;
esac

repo=$(cd "$(dirname "$0")/.." && pwd)
TMP=$(mktemp -d "${TMPDIR:-/tmp}/botkit-bench-secrets.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

BENCH=bench/secrets.sh
# shellcheck source=bench/lib.sh
. "$repo/bench/lib.sh"
bench_need go awk sort
command -v sqlite3 >/dev/null || {
	echo "bench/secrets.sh: sqlite3 is not installed (apt-get install -y sqlite3)" >&2
	exit 1
}

echo "building botkit and the seeder..." >&2
bench_botkit "$repo" "$TMP/botkit"
(cd "$repo" && go build -o "$TMP/seed" ./bench/secrets-seed)

# A fresh machine for botkit: its own home, no configuration (embedded
# platform), not a terminal (stdin /dev/null), CI set.
export HOME=$TMP/home XDG_CONFIG_HOME=$TMP/home/.config XDG_STATE_HOME=$TMP/home/.state CI=true
unset BOTKIT_API_URL BOTKIT_TOKEN BOTKIT_ORG BOTKIT_CONFIG_DIR
mkdir -p "$HOME"
SET_DATA=$TMP/set-data
LIST_DATA=$TMP/list-data

if [ "$SETS" -gt 0 ]; then
	echo "seeding $SETS sets..." >&2
	"$TMP/seed" -data-dir "$LIST_DATA/botkit" -n "$SETS"
	count=$(XDG_DATA_HOME=$LIST_DATA "$TMP/botkit" cloud secrets list -o name </dev/null | wc -l)
	[ "$count" -eq "$SETS" ] || {
		echo "bench/secrets.sh: list shows $count sets, want $SETS" >&2
		exit 1
	}
fi

FLOOR_DB=$TMP/floor.db
sqlite3 "$FLOOR_DB" 'PRAGMA journal_mode=WAL; CREATE TABLE t (k TEXT PRIMARY KEY, v TEXT NOT NULL);' >/dev/null
LIST_DB=$LIST_DATA/botkit/platform.db
LIST_SQL="SELECT name, kind, region, keys, host, username, labels, version, state, message, created_at, updated_at FROM objects ORDER BY name"

i=0
# run_one KIND: runs one command and prints its wall time in nanoseconds,
# from bash's own clock so that no extra process is counted.
run_one() {
	local kind=$1 start end
	i=$((i + 1))
	case $kind in
	set)
		start=${EPOCHREALTIME/[.,]/}
		XDG_DATA_HOME=$SET_DATA "$TMP/botkit" cloud secrets set bench "KEY_$i=value-$i" </dev/null >/dev/null
		end=${EPOCHREALTIME/[.,]/}
		;;
	setfloor)
		start=${EPOCHREALTIME/[.,]/}
		sqlite3 "$FLOOR_DB" "PRAGMA synchronous=FULL; INSERT INTO t VALUES ('KEY_$i', 'value-$i');" </dev/null >/dev/null
		end=${EPOCHREALTIME/[.,]/}
		;;
	list)
		start=${EPOCHREALTIME/[.,]/}
		XDG_DATA_HOME=$LIST_DATA "$TMP/botkit" cloud secrets list -o json </dev/null >"$TMP/list.json"
		end=${EPOCHREALTIME/[.,]/}
		;;
	listfloor)
		start=${EPOCHREALTIME/[.,]/}
		sqlite3 -json "$LIST_DB" "$LIST_SQL" </dev/null >"$TMP/floor.json"
		end=${EPOCHREALTIME/[.,]/}
		;;
	esac
	echo $(((end - start) * 1000))
}

median() { sort -n | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'; }

kinds="set setfloor"
[ "$SETS" -gt 0 ] && kinds="$kinds list listfloor"
for kind in $kinds; do run_one "$kind" >/dev/null; done # warm-up
for f in $kinds; do : >"$TMP/$f.t"; done
# The CPU time (user + system) of this shell's finished children, from the
# times builtin written to a file around each run (no extra process: one
# would count as a child), is summed per side after the runs.
for ((r = 1; r <= N; r++)); do
	times >"$TMP/times.$r.0"
	run_one set >>"$TMP/set.t"
	times >"$TMP/times.$r.1"
	run_one setfloor >>"$TMP/setfloor.t"
	times >"$TMP/times.$r.2"
done
# cpu FILE: the children's CPU time in ms in a times output.
cpu() {
	awk 'NR == 2 {
		split($1, u, /[ms]/); split($2, s, /[ms]/)
		printf "%.0f\n", (u[1] * 60 + u[2] + s[1] * 60 + s[2]) * 1000
	}' "$1"
}
set_cpu=0 setfloor_cpu=0
for ((r = 1; r <= N; r++)); do
	c0=$(cpu "$TMP/times.$r.0") c1=$(cpu "$TMP/times.$r.1") c2=$(cpu "$TMP/times.$r.2")
	set_cpu=$((set_cpu + c1 - c0)) setfloor_cpu=$((setfloor_cpu + c2 - c1))
done
if [ "$SETS" -gt 0 ]; then
	for ((r = 1; r <= N; r++)); do
		run_one list >>"$TMP/list.t"
		run_one listfloor >>"$TMP/listfloor.t"
	done
	grep -q '"kind": "List"' "$TMP/list.json" || {
		echo "bench/secrets.sh: list -o json printed no List" >&2
		exit 1
	}
fi

ms() { awk -v ns="$1" 'BEGIN {printf "%.2f", ns / 1e6}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a / b}'; }
set_m=$(median <"$TMP/set.t")
setfloor_m=$(median <"$TMP/setfloor.t")
echo "runs: $N of each, alternating; $SETS sets for list"
if [ "$SETS" -gt 0 ]; then
	list_m=$(median <"$TMP/list.t")
	listfloor_m=$(median <"$TMP/listfloor.t")
	printf 'list -o json     median %7s ms   floor (sqlite3 -json, same %s rows)        %7s ms   ratio %sx   (goal < 250 ms)\n' \
		"$(ms "$list_m")" "$SETS" "$(ms "$listfloor_m")" "$(ratio "$list_m" "$listfloor_m")"
fi
echo "median botkit cloud secrets set: $(ms "$set_m") ms ($N runs)"
echo "median sqlite3 fsync'd insert (WAL, synchronous=FULL): $(ms "$setfloor_m") ms ($N runs)"
# CPU time moves less with the machine's load than wall time does.
echo "CPU per run (user + system): set $(awk -v t="$set_cpu" -v n="$N" 'BEGIN {printf "%.1f", t / n}') ms, floor $(awk -v t="$setfloor_cpu" -v n="$N" 'BEGIN {printf "%.1f", t / n}') ms: $(awk -v a="$set_cpu" -v b="$setfloor_cpu" 'BEGIN {if (b <= 0) b = 1; printf "%.2f", a / b}')x"
r=$(ratio "$set_m" "$setfloor_m")
echo "ratio: ${r}x (goal <= ${GOAL}x)"
if [ "${ENFORCE_GOAL:-}" = 1 ] && awk -v r="$r" -v g="$GOAL" 'BEGIN { exit !(r > g) }'; then
	echo "bench/secrets.sh: ratio ${r}x is above the goal of ${GOAL}x" >&2
	exit 1
fi
