#!/usr/bin/env bash
# Compares the database's work per write of two builds of the platform on
# PostgreSQL, measured AT THE SAME TIME: one cluster (pg_stat_statements
# loaded), one database per build, both builds' bench/platform running at
# once. On a shared machine the throughput of two runs one after the other
# moves by ±30% with the load; two runs side by side
# get the same load, and the statements' own counters (time and buffer hits
# per call, per write) do not depend on whose turn it was.
#
# Usage: bench/pg-ab.sh BASE [HEAD]
#   BASE, HEAD: a git revision of this repository (built in a temporary
#   worktree) or the path of a bench/platform executable; HEAD defaults to
#   the checkout.
# Env:   PLATFORM_DURATION=9s  PLATFORM_ROUNDS=3   (bench/platform's)
#        PG_BINDIR=/usr/lib/postgresql/15/bin
#
# Prints, for each statement the writes ran more than 100 times: calls,
# mean ms (planning and execution) and buffer hits per call of BASE and HEAD; then the statements'
# time and buffer hits per write (the writes counted as the rows the audit
# inserts wrote: one per write) and HEAD / BASE. Each build's own output
# (its throughput against raw commits, which share the machine with the
# other build here and are not the issue's figure) goes to stderr.
set -euo pipefail

if [ $# -lt 1 ] || [ $# -gt 2 ]; then
	echo "usage: bench/pg-ab.sh BASE [HEAD]   (a git revision or a bench/platform executable)" >&2
	exit 2
fi
repo=$(cd "$(dirname "$0")/.." && pwd)
BENCH=bench/pg-ab.sh
# shellcheck source=bench/lib.sh
. "$repo/bench/lib.sh"
PGBIN=${PG_BINDIR:-/usr/lib/postgresql/15/bin}
bench_need go git awk
for prog in initdb pg_ctl postgres psql; do
	[ -x "$PGBIN/$prog" ] || {
		echo "$BENCH: $PGBIN/$prog not found (apt-get install postgresql-15, or set PG_BINDIR)" >&2
		exit 1
	}
done

TMP=$(mktemp -d "${TMPDIR:-/tmp}/botkit-pg-ab.XXXXXX")
PGDATA=
cleanup() {
	[ -z "$PGDATA" ] || bench_as_pg "$PGBIN/pg_ctl" -D "$PGDATA" -m fast -w stop >/dev/null 2>&1 || true
	git -C "$repo" worktree remove --force "$TMP/src" >/dev/null 2>&1 || true
	rm -rf "$TMP"
}
trap cleanup EXIT

# build WHAT DEST: bench/platform of a revision or checkout, or a copy of
# an executable.
build() {
	if [ -f "$1" ] && [ -x "$1" ]; then
		cp "$1" "$2"
	elif [ "$1" = checkout ]; then
		(cd "$repo" && go build -o "$2" ./bench/platform)
	else
		git -C "$repo" rev-parse --verify --quiet "$1^{commit}" >/dev/null || {
			echo "$BENCH: $1 is neither an executable nor a revision" >&2
			exit 2
		}
		git -C "$repo" worktree add --detach --quiet "$TMP/src" "$1"
		(cd "$TMP/src" && go build -o "$2" ./bench/platform)
		git -C "$repo" worktree remove --force "$TMP/src"
	fi
}
echo "building $1 and ${2:-the checkout}..." >&2
build "$1" "$TMP/base"
build "${2:-checkout}" "$TMP/head"

# shellcheck disable=SC2034 # read by bench_pg_start (bench/lib.sh)
BENCH_PG_OPTS="-c max_connections=300 -c shared_preload_libraries=pg_stat_statements -c pg_stat_statements.track_planning=on"
bench_pg_start "$TMP"
psql() { bench_as_pg "$PGBIN/psql" -h "$PGDIR" -U postgres -X -q "$@"; }
psql -c "CREATE DATABASE base" -c "CREATE DATABASE head"
psql -d base -c "CREATE EXTENSION pg_stat_statements"
url() { echo "postgres:///$1?host=$PGDIR&user=postgres&sslmode=disable"; }
args=(-replicas 2 -duration "${PLATFORM_DURATION:-9s}" -rounds "${PLATFORM_ROUNDS:-3}" -list-sets 0)
echo "running both at once..." >&2
"$TMP/base" -store "$(url base)" "${args[@]}" >"$TMP/base.out" 2>&1 &
base_pid=$!
"$TMP/head" -store "$(url head)" "${args[@]}" >"$TMP/head.out" 2>&1 || {
	cat "$TMP/head.out" >&2
	exit 1
}
wait "$base_pid" || {
	cat "$TMP/base.out" >&2
	exit 1
}
for b in base head; do
	echo "== $b" >&2
	cat "$TMP/$b.out" >&2
done

# One line per (database, statement): db|calls|total ms (planning and
# execution: a statement planned at each call pays for it)|hits|rows|query.
# (One line of SQL: bench_as_pg hands it to sh -c.)
q="SELECT d.datname, s.calls, s.total_plan_time + s.total_exec_time, s.shared_blks_hit, s.rows, left(regexp_replace(s.query, '\\s+', ' ', 'g'), 60)"
q="$q FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid"
q="$q WHERE d.datname IN ('base', 'head') AND s.query NOT LIKE '%bench_raw_commits%'"
psql -d base -A -t -F'|' -c "$q" >"$TMP/stats"
awk -F'|' '
	{ key = $6; calls[$1, key] += $2; ms[$1, key] += $3; hits[$1, key] += $4; seen[key] = 1
	  tms[$1] += $3; thits[$1] += $4
	  if (key ~ /^INSERT INTO audit/) writes[$1] += $5 }
	END {
		printf "%-60s %18s %18s\n", "statement (calls > 100)", "base: ms, hits", "head: ms, hits"
		for (k in seen) {
			if (calls["base", k] <= 100 && calls["head", k] <= 100) continue
			printf "%-60s %7.4f %9.1f  %7.4f %9.1f\n", k,
				calls["base", k] ? ms["base", k] / calls["base", k] : 0, calls["base", k] ? hits["base", k] / calls["base", k] : 0,
				calls["head", k] ? ms["head", k] / calls["head", k] : 0, calls["head", k] ? hits["head", k] / calls["head", k] : 0
		}
		if (!writes["base"] || !writes["head"]) { print "no writes counted" > "/dev/stderr"; exit 1 }
		b = tms["base"] * 1000 / writes["base"]; h = tms["head"] * 1000 / writes["head"]
		printf "writes: base %d, head %d\n", writes["base"], writes["head"]
		printf "statement time per write: base %.1f µs, head %.1f µs: head / base %.2f\n", b, h, h / b
		printf "buffer hits per write: base %.1f, head %.1f: head / base %.2f\n",
			thits["base"] / writes["base"], thits["head"] / writes["head"], (thits["head"] / writes["head"]) / (thits["base"] / writes["base"])
	}' "$TMP/stats"
