#!/usr/bin/env bash
# Measures `botkit deploy` against `docker run` of the same image with the
# same environment on the same engine, in the same run: one agent
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

ROUNDS=${1:-${ROUNDS:-5}}
case $ROUNDS in '' | *[!0-9]* | 0)
	echo "bench/deploy.sh: ROUNDS must be a positive integer, got '$ROUNDS'" >&2
	exit 2
	;;
esac
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
# CI=true: a missing engine or registry fails instead of skipping.
ROUNDS=$ROUNDS CI=true go test -count=1 -run '^$' -bench '^BenchmarkDeploy$' -benchtime 1x -timeout 30m ./bench/deploy |
	grep -v '^\(goos\|goarch\|pkg\|cpu\|PASS\|ok \)'
