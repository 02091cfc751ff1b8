# shellcheck shell=bash
# Shared by the bench scripts (sourced, not run): the tools check, the
# botkit under measure built as the release is built, and medians.
# Each script sets BENCH (its name, for messages) before it sources this.

# bench_need TOOL...: exits 1 naming the first tool missing.
bench_need() {
	local tool
	for tool in "$@"; do
		command -v "$tool" >/dev/null || {
			echo "$BENCH: $tool is not installed" >&2
			exit 1
		}
	done
}

# bench_botkit REPO DEST: the botkit to measure at DEST — $BOTKIT when set
# (an executable: the build of an older commit, say), else built from the
# checkout at REPO as .goreleaser.yaml builds the release: CGO_ENABLED=0,
# -trimpath, -ldflags "-s -w" and the version stamped (static, stripped;
# a plain `go build` links the C library dynamically and starts slower,
# and an unstamped one reads its build information for --version).
bench_botkit() {
	if [ -n "${BOTKIT:-}" ]; then
		[ -x "$BOTKIT" ] || {
			echo "$BENCH: BOTKIT=$BOTKIT is not an executable" >&2
			exit 1
		}
		cp "$BOTKIT" "$2"
	else
		(cd "$1" && CGO_ENABLED=0 go build -trimpath \
			-ldflags "-s -w -X github.com/botkit-dev/botkit/pkg/cmdutil.Version=v0.0.0-bench" -o "$2" ./cmd/botkit)
	fi
}

# bench_rounds VALUE: exits 2 unless VALUE (a script's ROUNDS) is a
# positive integer.
bench_rounds() {
	case $1 in '' | *[!0-9]* | 0)
		echo "$BENCH: ROUNDS must be a positive integer, got '$1'" >&2
		exit 2
		;;
	esac
}

# bench_go BENCHMARK PACKAGE ROUNDS: runs the Go benchmark BENCHMARK of
# PACKAGE once (it does its ROUNDS rounds itself) with CI=true, so that a
# missing engine or registry fails instead of skipping, and prints its
# lines without go test's own.
bench_go() {
	ROUNDS=$3 CI=true go test -count=1 -run '^$' -bench "^$1\$" -benchtime 1x -timeout 30m "$2" |
		grep -v '^\(goos\|goarch\|pkg\|cpu\|PASS\|ok \)'
}

# bench_median_ms UNIT DIGITS: the median of the numbers on stdin, given
# in UNIT per ms (1000 for µs, 1000000 for ns), printed in ms with DIGITS
# decimals; exits 1 on no numbers.
bench_median_ms() {
	sort -n | awk -v unit="$1" -v digits="$2" '{ v[NR] = $1 } END {
		if (NR == 0) exit 1
		m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		printf "%." digits "f\n", m / unit
	}'
}

# bench_as_pg PROGRAM ARGS...: runs a PostgreSQL program as user postgres
# when this runs as root (the server refuses to run as root), else as is.
bench_as_pg() {
	if [ "$(id -u)" -eq 0 ]; then
		su postgres -s /bin/sh -c "$(printf '%q ' "$@")"
	else
		"$@"
	fi
}

# bench_pg_start DIR: a PostgreSQL cluster of PGBIN's programs in DIR/pg
# (made, then started with only a Unix socket in it: no port to pick or
# clash, fsync on; BENCH_PG_OPTS adds server options, "-c name=value ...",
# a later one overriding an earlier one).
# Sets PGDIR, PGDATA and BENCH_PG_URL (the store URL);
# the caller stops it: bench_as_pg "$PGBIN/pg_ctl" -D "$PGDATA" stop.
bench_pg_start() {
	PGDIR=$1/pg
	mkdir -p "$PGDIR"
	if [ "$(id -u)" -eq 0 ]; then
		chmod 711 "$1"
		chown postgres "$PGDIR"
	fi
	PGDATA=$PGDIR/data
	bench_as_pg "$PGBIN/initdb" -D "$PGDATA" -U postgres -A trust -E UTF8 >/dev/null
	bench_as_pg "$PGBIN/pg_ctl" -D "$PGDATA" -l "$PGDIR/server.log" -w \
		-o "-c listen_addresses= -k $PGDIR -c max_connections=200 ${BENCH_PG_OPTS:-}" start >/dev/null
	# shellcheck disable=SC2034 # read by the script that sources this
	BENCH_PG_URL="postgres:///postgres?host=$PGDIR&user=postgres&sslmode=disable"
}
