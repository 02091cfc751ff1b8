#!/usr/bin/env bash
# Times `botkit apply` of N secret sets against N imperative
# `botkit cloud secrets set` calls, in the same run, on the embedded local
# platform AND on the real botkit-platform server (127.0.0.1, SQLite):
#
#   first      botkit apply -f sets.yaml: N new sets (3 keys each, fromEnv)
#              in one request per organization, one transaction
#   unchanged  the same apply again: nothing to write (median of 3 runs)
#   loop       N calls of `botkit cloud secrets set NAME K1=.. K2=.. K3=..`,
#              one process and one request each. The loop is SAMPLED: S
#              calls (default 100) are timed and the total scaled by N/S;
#              every call creates a new set, like the apply.
#
# Usage: bench/apply.sh [N]        (default 1000; or env N)
# Env:   S=100                     sampled loop calls per platform
#
#   sealed     on the embedded platform: the first apply of the same N sets
#              (median of 3)
#              with sealed values (botkit seal) against the same first apply
#              with fromEnv values, each into a platform that exists already
#              (its database and sealing key made by `botkit seal --fetch-cert`)
#
# Prints the times and the ratios against the goals: first apply at least
# 20x faster than the loop; the unchanged apply at least 50x faster than the
# loop and faster than the first apply; the sealed apply at most 2x the
# fromEnv one. Not a test: it reports, it does not
# fail on a missed goal. Exits non-zero when a command fails or an apply
# reports something other than created/unchanged.
set -euo pipefail

N=${1:-${N:-1000}}
S=${S:-100}
for v in "$N" "$S"; do
	case $v in '' | *[!0-9]* | 0)
		echo "bench/apply.sh: N and S must be positive integers, got N='$N' S='$S'" >&2
		exit 2
		;;
	esac
done
((S <= N)) || S=$N

repo=$(cd "$(dirname "$0")/.." && pwd)
TMP=$(mktemp -d "${TMPDIR:-/tmp}/botkit-bench-apply.XXXXXX")
server_pid=
cleanup() {
	if [ -n "$server_pid" ]; then
		kill "$server_pid" 2>/dev/null || true
		wait "$server_pid" 2>/dev/null || true
	fi
	rm -rf "$TMP"
}
trap cleanup EXIT

echo "building botkit and botkit-platform..." >&2
(cd "$repo" && go build -o "$TMP/botkit" ./cmd/botkit && go build -o "$TMP/botkit-platform" ./cmd/botkit-platform)

# A fresh machine: its own home, no configuration, no terminal, CI set.
export HOME=$TMP/home XDG_CONFIG_HOME=$TMP/home/.config XDG_STATE_HOME=$TMP/home/.state CI=true
unset BOTKIT_API_URL BOTKIT_TOKEN BOTKIT_ORG BOTKIT_CONFIG_DIR
mkdir -p "$HOME"
export BENCH_K1=value-one BENCH_K2=value-two BENCH_K3=value-three

echo "writing $N manifests..." >&2
awk -v n="$N" 'BEGIN {
	for (i = 1; i <= n; i++) {
		printf "apiVersion: botkit.dev/v1\nkind: SecretSet\nmetadata:\n  name: bench-%05d\n  labels: {team: bench}\n", i
		printf "spec:\n  data:\n    K1: {fromEnv: BENCH_K1}\n    K2: {fromEnv: BENCH_K2}\n    K3: {fromEnv: BENCH_K3}\n---\n"
	}
}' >"$TMP/sets.yaml"

now() { echo "${EPOCHREALTIME/[.,]/}"; } # microseconds, bash's own clock

# timed_apply OUT [FILE]: runs botkit apply (of sets.yaml or FILE), prints
# microseconds.
timed_apply() {
	local out=$1 file=${2:-$TMP/sets.yaml} start end
	start=$(now)
	"$TMP/botkit" apply -f "$file" </dev/null >"$out"
	end=$(now)
	echo $((end - start))
}

check_lines() {
	local file=$1 want=$2 got
	got=$(grep -cE " $want( \(version [0-9]+\))?\$" "$file" || true)
	if [ "$got" -ne "$N" ]; then
		echo "bench/apply.sh: $got of $N lines say '$want' in $file:" >&2
		head -3 "$file" >&2
		exit 1
	fi
}

# loop_sample: S imperative set calls, each a new set; prints microseconds.
loop_sample() {
	local start end i
	start=$(now)
	for ((i = 1; i <= S; i++)); do
		"$TMP/botkit" cloud secrets set "loop-$i" K1="$BENCH_K1" K2="$BENCH_K2" K3="$BENCH_K3" </dev/null >/dev/null
	done
	end=$(now)
	echo $((end - start))
}

median3() { printf '%s\n' "$@" | sort -n | sed -n 2p; }
ms() { awk -v us="$1" 'BEGIN {printf "%.0f", us / 1000}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.1f", a / b}'; }
verdict() { awk -v r="$1" -v g="$2" 'BEGIN {print (r >= g) ? "ok" : "MISSED"}'; }

# run_variant NAME LOOP_ENV...: the three measures on the current platform
# (the loop runs with LOOP_ENV, a separate data dir or organization, so that
# its sets do not touch the apply's).
report() {
	local name=$1 first=$2 unchanged=$3 loop_sample_us=$4
	local loop=$((loop_sample_us * N / S))
	local r1 r2
	r1=$(ratio "$loop" "$first")
	r2=$(ratio "$loop" "$unchanged")
	printf '%-9s first apply %6s ms | unchanged apply %6s ms | loop of %d set calls %7s ms (%d timed, %s ms each, scaled)\n' \
		"$name" "$(ms "$first")" "$(ms "$unchanged")" "$N" "$(ms "$loop")" "$S" "$(awk -v us="$loop_sample_us" -v s="$S" 'BEGIN {printf "%.1f", us / s / 1000}')"
	printf '%-9s loop/first %sx (goal >= 20x: %s) | loop/unchanged %sx (goal >= 50x: %s) | first/unchanged %sx (goal > 1x: %s)\n' \
		"$name" "$r1" "$(verdict "$r1" 20)" "$r2" "$(verdict "$r2" 50)" "$(ratio "$first" "$unchanged")" \
		"$(awk -v a="$first" -v b="$unchanged" 'BEGIN {print (a > b) ? "ok" : "MISSED"}')"
}

# --- embedded local platform (no API URL: SQLite under XDG_DATA_HOME) ---
echo "embedded: applying $N sets..." >&2
export XDG_DATA_HOME=$TMP/embedded-apply
e_first=$(timed_apply "$TMP/e1.out")
check_lines "$TMP/e1.out" created
u=()
for _ in 1 2 3; do
	u+=("$(timed_apply "$TMP/e2.out")")
	check_lines "$TMP/e2.out" unchanged
done
e_unchanged=$(median3 "${u[@]}")
echo "embedded: $S set calls..." >&2
export XDG_DATA_HOME=$TMP/embedded-loop
"$TMP/botkit" cloud secrets set warm-up K=v </dev/null >/dev/null # the database exists, as for the re-apply
e_loop=$(loop_sample)

# --- sealed values against fromEnv, embedded, same warm start ---
# Three runs of each (medians), alternating, each into a platform of its own
# that exists already: its database and sealing key made by --fetch-cert.
echo "embedded: applying $N sets with sealed values, and with fromEnv (3 runs each)..." >&2
(cd "$repo" && go build -o "$TMP/seal-manifests" ./bench/seal-manifests)
se=() fe=()
for r in 1 2 3; do
	export XDG_DATA_HOME=$TMP/embedded-sealed-$r
	"$TMP/botkit" seal --fetch-cert >"$TMP/org-$r.pub"
	"$TMP/seal-manifests" -cert "$TMP/org-$r.pub" -n "$N" >"$TMP/sets-sealed-$r.yaml"
	se+=("$(timed_apply "$TMP/se.out" "$TMP/sets-sealed-$r.yaml")")
	check_lines "$TMP/se.out" created
	export XDG_DATA_HOME=$TMP/embedded-fromenv-$r
	"$TMP/botkit" seal --fetch-cert >/dev/null
	fe+=("$(timed_apply "$TMP/fe.out")")
	check_lines "$TMP/fe.out" created
done
sealed_first=$(median3 "${se[@]}")
fromenv_first=$(median3 "${fe[@]}")
unset XDG_DATA_HOME

# --- the real botkit-platform server on 127.0.0.1 ---
DATA=$TMP/server
mkdir -p "$DATA"
"$TMP/botkit-platform" orgs create bench --data-dir "$DATA" >/dev/null
"$TMP/botkit-platform" orgs create loop --data-dir "$DATA" >/dev/null
apply_token=$("$TMP/botkit-platform" tokens create --org bench --data-dir "$DATA" 2>/dev/null | tail -1)
loop_token=$("$TMP/botkit-platform" tokens create --org loop --data-dir "$DATA" 2>/dev/null | tail -1)
"$TMP/botkit-platform" serve --listen 127.0.0.1:0 --data-dir "$DATA" 2>"$TMP/server.log" &
server_pid=$!
url=
for _ in $(seq 1 150); do
	url=$(sed -n 's/^listening on //p' "$TMP/server.log" | head -1)
	[ -n "$url" ] && break
	sleep 0.1
done
[ -n "$url" ] || {
	echo "bench/apply.sh: botkit-platform did not start:" >&2
	cat "$TMP/server.log" >&2
	exit 1
}
export BOTKIT_API_URL=$url
echo "server $url: applying $N sets..." >&2
export BOTKIT_TOKEN=$apply_token
s_first=$(timed_apply "$TMP/s1.out")
check_lines "$TMP/s1.out" created
u=()
for _ in 1 2 3; do
	u+=("$(timed_apply "$TMP/s2.out")")
	check_lines "$TMP/s2.out" unchanged
done
s_unchanged=$(median3 "${u[@]}")
echo "server: $S set calls..." >&2
export BOTKIT_TOKEN=$loop_token
s_loop=$(loop_sample)

echo "N=$N sets (3 keys each); loop sampled: $S calls timed, scaled by N/S"
report embedded "$e_first" "$e_unchanged" "$e_loop"
report server "$s_first" "$s_unchanged" "$s_loop"
sr=$(ratio "$sealed_first" "$fromenv_first")
printf '%-9s first apply with sealed values %6s ms | with fromEnv values %6s ms | sealed/fromEnv %sx (goal <= 2x: %s)\n' \
	sealed "$(ms "$sealed_first")" "$(ms "$fromenv_first")" "$sr" "$(awk -v r="$sr" 'BEGIN {print (r <= 2) ? "ok" : "MISSED"}')"
