#!/usr/bin/env bash
# Runs every row of botkit's speed goals (docs/performance.md), each against its floor in the same
# run, and prints one summary table at the end:
#
#   startup    botkit --version against a hello-world Go binary     <= 2x
#              (bench/startup.sh)
#   set        botkit cloud secrets set (embedded) against sqlite3's
#              fsync'd insert (bench/secrets.sh, no list runs)      <= 2.5x
#   create     botkit create quickstart against create-vite         >= 12x
#              (bench/create.sh; the ratio is create-vite / botkit)
#   history    botkit cloud secrets history NAME (100 versions)
#              against list NAME of the same set (bench/history.sh) <= 1.2x
#   sqlite     platform HTTP merges against raw fsync'd SQLite
#              commits, same disk (go run ./bench/platform)         >= 1.5
#   postgres   platform merges through 1 replica against raw
#              PostgreSQL commits (go run ./bench/platform -store)  >= 0.7
#              — only when PostgreSQL 15's binaries are in PG_BINDIR
#              (default /usr/lib/postgresql/15/bin): the script runs its own
#              cluster (initdb, fsync on, Unix socket in a temporary
#              directory) and removes it at the end.
#
# Usage: bench/speed.sh [ROW...]   (default: every row, in the order above)
# Env:   STARTUP_N=100 SET_N=20 CREATE_N=10 HISTORY_N=30   runs of each script
#        PLATFORM_DURATION=10s     each write phase of bench/platform
#        PLATFORM_ROUNDS=5         its alternating rounds
#        PG_BINDIR=/usr/lib/postgresql/15/bin
#
# Each script's own output goes to stderr as it runs; stdout gets the table.
# Absolute times depend on the machine and its load; the ratio of each row
# to its floor, measured in the same run with runs alternating, is the
# figure that counts. Not a test: a missed goal shows as "not met" and the
# exit status stays 0; it is non-zero when a script or build fails.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
BENCH=bench/speed.sh
# shellcheck source=bench/lib.sh
. "$repo/bench/lib.sh"
PGBIN=${PG_BINDIR:-/usr/lib/postgresql/15/bin}
ALL="startup set create history sqlite postgres"
ROWS=${*:-$ALL}
for row in $ROWS; do
	case " $ALL " in *" $row "*) ;; *)
		echo "bench/speed.sh: unknown row '$row' (rows: $ALL)" >&2
		exit 2
		;;
	esac
done
for tool in go awk; do
	command -v "$tool" >/dev/null || {
		echo "bench/speed.sh: $tool is not installed" >&2
		exit 1
	}
done

TMP=$(mktemp -d "${TMPDIR:-/tmp}/botkit-speed.XXXXXX")
PGDATA=
cleanup() {
	if [ -n "$PGDATA" ]; then
		bench_as_pg "$PGBIN/pg_ctl" -D "$PGDATA" -m immediate -w stop >/dev/null 2>&1 || true
	fi
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# field FILE REGEX N: field N of the last line of FILE matching REGEX.
field() { awk -v n="$3" "/$2/ { v = \$n } END { print v }" "$1"; }

# row MEASURE BOTKIT FLOOR RATIO GOAL: one line of the summary; GOAL is
# "<= X" or ">= X".
: >"$TMP/summary"
row() {
	local met
	met=$(awk -v r="$4" -v g="$5" 'BEGIN {
		split(g, p, " ")
		if (r == "") { print "n/a"; exit }
		ok = (p[1] == "<=") ? (r + 0 <= p[2] + 0) : (r + 0 >= p[2] + 0)
		print ok ? "met" : "NOT MET"
	}')
	printf '%s|%s|%s|%s|%s|%s\n' "$1" "$2" "$3" "$4" "$5" "$met" >>"$TMP/summary"
}

# run NAME CMD...: runs CMD with its output on stderr and kept in
# $TMP/NAME.out.
run() {
	local name=$1
	shift
	echo "== $name: $*" >&2
	"$@" 2>&1 | tee "$TMP/$name.out" >&2
}

for r in $ROWS; do
	case $r in
	startup)
		run startup env GOAL=2 bash "$repo/bench/startup.sh" "${STARTUP_N:-100}"
		o=$TMP/startup.out
		row "botkit --version vs hello-world" "$(field "$o" '^median botkit --version:' 4) ms" \
			"$(field "$o" '^median hello-world:' 3) ms" "$(field "$o" '^ratio:' 2 | tr -d x)" "<= 2"
		;;
	set)
		run set env SETS=0 GOAL=2.5 bash "$repo/bench/secrets.sh" "${SET_N:-20}"
		o=$TMP/set.out
		row "cloud secrets set vs sqlite3 fsync'd insert" "$(field "$o" '^median botkit cloud secrets set:' 6) ms" \
			"$(field "$o" '^median sqlite3 fsync' 7) ms" "$(field "$o" '^ratio:' 2 | tr -d x)" "<= 2.5"
		;;
	create)
		run create env GOAL=12 bash "$repo/bench/create.sh" "${CREATE_N:-10}"
		o=$TMP/create.out
		row "create-vite / create quickstart" "$(field "$o" '^median botkit create quickstart:' 5) ms" \
			"$(field "$o" '^median create-vite' 8) ms" "$(field "$o" '^ratio:' 2 | tr -d x)" ">= 12"
		;;
	history)
		run history env GOAL=1.2 bash "$repo/bench/history.sh" "${HISTORY_N:-30}"
		o=$TMP/history.out
		row "secrets history (100 versions) vs list NAME" "$(field "$o" '^median botkit cloud secrets history' 9) ms" \
			"$(field "$o" '^median botkit cloud secrets list' 10) ms" "$(field "$o" '^ratio:' 2 | tr -d x)" "<= 1.2"
		;;
	sqlite)
		echo "building bench/platform..." >&2
		[ -x "$TMP/platform" ] || (cd "$repo" && go build -o "$TMP/platform" ./bench/platform)
		run sqlite "$TMP/platform" -duration "${PLATFORM_DURATION:-10s}" -rounds "${PLATFORM_ROUNDS:-5}" -list-sets 0
		o=$TMP/sqlite.out
		a=$(awk '/^A: HTTP merges/ { a = 1 } a && /median writes\/s/ { print $3; exit }' "$o")
		b=$(awk '/^B: raw SQLite/ { b = 1 } b && /median commits\/s/ { print $3; exit }' "$o")
		row "platform merges vs raw SQLite commits (SQLite)" "$a/s" "$b/s" \
			"$(field "$o" '^ratio of medians A \/ B' 7)" ">= 1.5"
		;;
	postgres)
		missing=
		for prog in initdb pg_ctl postgres; do
			[ -x "$PGBIN/$prog" ] || missing=$prog
		done
		if [ -n "$missing" ]; then
			echo "bench/speed.sh: $PGBIN/$missing not found: no PostgreSQL row (apt-get install postgresql-15, or set PG_BINDIR)" >&2
			row "platform 1 replica vs raw commits (PostgreSQL)" "-" "-" "" ">= 0.7"
			continue
		fi
		[ -x "$TMP/platform" ] || (cd "$repo" && go build -o "$TMP/platform" ./bench/platform)
		bench_pg_start "$TMP"
		run postgres "$TMP/platform" -store "$BENCH_PG_URL" \
			-replicas 3 -duration "${PLATFORM_DURATION:-10s}" -rounds "${PLATFORM_ROUNDS:-5}" -list-sets 0
		bench_as_pg "$PGBIN/pg_ctl" -D "$PGDATA" -m fast -w stop >/dev/null
		PGDATA=
		o=$TMP/postgres.out
		f=$(awk '/^F: raw PostgreSQL/ { f = 1 } f && /median commits\/s/ { print $3; exit }' "$o")
		one=$(awk '/^1: HTTP merges through 1 replica/ { f = 1 } f && /median writes\/s/ { print $3; exit }' "$o")
		row "platform 1 replica vs raw commits (PostgreSQL)" "$one/s" "$f/s" \
			"$(field "$o" '^ratio 1 replica \/ raw floor' 7)" ">= 0.7"
		;;
	esac
done

echo
echo "speed goals: each row against its floor, measured in the same run ($(date -u +%Y-%m-%dT%H:%MZ), load $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo n/a))"
awk -F'|' 'BEGIN { printf "%-48s %12s %12s %7s %7s  %s\n", "measure", "botkit", "floor", "ratio", "goal", "" }
	{ printf "%-48s %12s %12s %7s %7s  %s\n", $1, $2, $3, ($4 == "" ? "-" : $4), $5, $6 }' "$TMP/summary"
