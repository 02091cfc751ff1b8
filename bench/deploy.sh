#!/usr/bin/env bash
# Measures `botkit deploy` against `docker run` of the same image with the
# same environment and network on the same engine, in the same run: one agent
# of a warm image (goal: within 1.5x plus the settle time) and a rollout of
# ten agents against ten sequential docker runs (goal: faster). Everything
# is private to the run and removed after it: a Docker Engine (dockerd as
# root, its own roots and socket, no network), a docker-registry with
# htpasswd, the test agent image, botkit built from this checkout on its
# embedded platform. See bench/deploy/deploy_test.go.
#
# Usage: bench/deploy.sh [ROUNDS]   (default 5; or env ROUNDS)
# Needs: root, dockerd, containerd, runc, the docker CLI (docker.io),
#        docker-registry and htpasswd (apache2-utils): scripts/setup.sh
#        installs them.
set -euo pipefail

BENCH=bench/deploy.sh
repo=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=bench/lib.sh
. "$repo/bench/lib.sh"
ROUNDS=${1:-${ROUNDS:-5}}
bench_rounds "$ROUNDS"
cd "$repo"
bench_go BenchmarkDeploy ./bench/deploy "$ROUNDS"
