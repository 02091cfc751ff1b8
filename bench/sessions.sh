#!/usr/bin/env bash
# Measures the platform's sessions against their floors, measured in the
# same run on the same engine, and prints the ratios (it does not judge):
# a warm start (/start until the agent has POST /bot) against a direct
# POST /bot to an idle agent, and 20 starters at once; a cold start
# (minAgents 0) against the engine API's create and start of the same
# image until its first /readyz 200; api/offer through the platform's proxy
# against the agent directly (and two peers: a bare TCP relay and Go's
# reverse proxy alone), and a websocket echo of 20 ms audio frames
# through wsUrl against the agent's /ws; a burst of 200 starts against
# maxAgents 10, what is left after, and the platform process's memory.
# Everything is private to the run and removed after it: a Docker Engine
# (dockerd as root, its own roots and socket), a docker-registry with
# htpasswd, the stand-in of Pipecat Cloud's base image, botkit-platform
# built from this checkout and run as `serve`. See
# bench/sessions/sessions_test.go.
#
# Usage: bench/sessions.sh [ROUNDS]   (default 5; or env ROUNDS)
# Needs: root, dockerd, containerd, runc (docker.io), docker-registry and
#        htpasswd (apache2-utils): scripts/setup.sh installs them.
set -euo pipefail

BENCH=bench/sessions.sh
repo=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=bench/lib.sh
. "$repo/bench/lib.sh"
ROUNDS=${1:-${ROUNDS:-5}}
bench_rounds "$ROUNDS"
cd "$repo"
bench_go BenchmarkSessions ./bench/sessions "$ROUNDS"
