#!/usr/bin/env bash
# Soak of `botkit-platform serve`: builds the binaries, starts the server(s)
# on 127.0.0.1 over a fresh store, drives a mix of API operations from M
# clients for a given time (bench/soak), then watches an idle spell, and
# prints every interval: throughput, p50/p99 latency, errors, each server's
# RSS and open files, and the SQLite database's and write-ahead log's sizes
# (or, on PostgreSQL, the connections and the database's size). Everything
# it started is stopped when it ends, also on Ctrl-C or failure.
#
# Usage: bench/soak.sh [-d DURATION] [-c CLIENTS] [-r REPLICAS] [-i INTERVAL] [-w IDLE]
#   -d  time under load (Go duration, default 2m)
#   -c  concurrent clients (default 16)
#   -r  0: one server on SQLite (default); N: N replicas on one PostgreSQL
#       database, in a cluster initdb'd for the run
#       (/usr/lib/postgresql/15/bin, or PG_BINDIR)
#   -i  time between two report lines (default 10s)
#   -w  time watched after the load stopped (default 10s)
#
# Not a test: it reports. It exits non-zero when an operation failed or a
# server could not start.
set -euo pipefail

DURATION=2m CLIENTS=16 REPLICAS=0 INTERVAL=10s IDLE=10s
usage() {
	sed -n '10,17p' "$0" | sed 's/^# \{0,1\}//' >&2
	exit 2
}
while getopts d:c:r:i:w:h opt; do
	case $opt in
	d) DURATION=$OPTARG ;;
	c) CLIENTS=$OPTARG ;;
	r) REPLICAS=$OPTARG ;;
	i) INTERVAL=$OPTARG ;;
	w) IDLE=$OPTARG ;;
	*) usage ;;
	esac
done
for n in "$CLIENTS" "$REPLICAS"; do
	case $n in '' | *[!0-9]*)
		echo "bench/soak.sh: -c and -r take a number, got '$n'" >&2
		exit 2
		;;
	esac
done

repo=$(cd "$(dirname "$0")/.." && pwd)
BENCH=bench/soak.sh
# shellcheck source=bench/lib.sh
. "$repo/bench/lib.sh"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/botkit-soak.XXXXXX")
PIDS=()
PGBIN=${PG_BINDIR:-/usr/lib/postgresql/15/bin}
PGDATA=
cleanup() {
	local pid
	for pid in "${PIDS[@]}"; do
		kill "$pid" 2>/dev/null || true
	done
	for pid in "${PIDS[@]}"; do
		wait "$pid" 2>/dev/null || true
	done
	if [ -n "$PGDATA" ]; then
		bench_as_pg "$PGBIN/pg_ctl" -D "$PGDATA" -m immediate -w stop >/dev/null 2>&1 || true
	fi
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

echo "building botkit-platform and the load driver..." >&2
(cd "$repo" && go build -o "$TMP/botkit-platform" ./cmd/botkit-platform && go build -o "$TMP/soak" ./bench/soak)

# start_server LOG ARGS...: starts `botkit-platform serve` on a free port
# of 127.0.0.1 and sets URL and PID once it listens.
start_server() {
	local log=$1
	shift
	"$TMP/botkit-platform" serve --listen 127.0.0.1:0 "$@" >"$log" 2>&1 &
	PID=$!
	PIDS+=("$PID")
	URL=
	for _ in $(seq 200); do
		URL=$(sed -n 's/.*listening on \(http:[^ ]*\).*/\1/p' "$log" | head -n 1)
		[ -n "$URL" ] && return 0
		kill -0 "$PID" 2>/dev/null || break
		sleep 0.1
	done
	echo "bench/soak.sh: botkit-platform serve did not start:" >&2
	cat "$log" >&2
	exit 1
}

if [ "$REPLICAS" -eq 0 ]; then
	DATA=$TMP/data
	"$TMP/botkit-platform" orgs create soak --data-dir "$DATA" >/dev/null 2>&1
	TOKEN=$("$TMP/botkit-platform" tokens create --org soak --data-dir "$DATA" 2>/dev/null | tail -n 1)
	start_server "$TMP/serve.log" --data-dir "$DATA"
	echo "SQLite, data directory on $(df --output=source,fstype "$TMP" | tail -n 1)" >&2
	"$TMP/soak" -url "$URL" -pid "$PID" -token "$TOKEN" -clients "$CLIENTS" -duration "$DURATION" \
		-interval "$INTERVAL" -idle "$IDLE" -data-dir "$DATA"
	exit
fi

for prog in initdb pg_ctl postgres; do
	[ -x "$PGBIN/$prog" ] || {
		echo "bench/soak.sh: $PGBIN/$prog not found (apt-get install postgresql-15, or set PG_BINDIR)" >&2
		exit 1
	}
done
bench_pg_start "$TMP"
STORE=$BENCH_PG_URL
od -An -tx1 -N32 /dev/urandom | tr -d ' \n' >"$TMP/master.key"
chmod 600 "$TMP/master.key"
"$TMP/botkit-platform" orgs create soak --store "$STORE" >/dev/null 2>&1
TOKEN=$("$TMP/botkit-platform" tokens create --org soak --store "$STORE" 2>/dev/null | tail -n 1)
URLS=() SERVER_PIDS=()
for i in $(seq "$REPLICAS"); do
	start_server "$TMP/serve.$i.log" --store "$STORE" --master-key-file "$TMP/master.key"
	URLS+=("$URL")
	SERVER_PIDS+=("$PID")
done
echo "PostgreSQL 15 (fsync on, default settings but max_connections=200), $REPLICAS replicas" >&2
"$TMP/soak" -url "$(
	IFS=,
	echo "${URLS[*]}"
)" -pid "$(
	IFS=,
	echo "${SERVER_PIDS[*]}"
)" -token "$TOKEN" -clients "$CLIENTS" -duration "$DURATION" -interval "$INTERVAL" -idle "$IDLE" -pg "$STORE"
