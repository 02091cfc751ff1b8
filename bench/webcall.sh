#!/usr/bin/env bash
# Measures a browser's call to a deployed agent: the generated vanilla
# client, in headless Chromium with a fake microphone, from its page's load
# to RTVI ready (Connect clicked at once), through botkit's platform (a
# warm agent: the public start, the SmallWebRTC offer through the session's
# proxy) against the same page built to call an idle agent straight (the
# development runner's /start and offer path, which the stand-in of
# Pipecat Cloud's base image serves). Prints `npm run build` of the page,
# the medians and their ratio (it does not judge). Everything is private to
# the run: a Docker Engine, a registry, the stand-in, the platform's HTTP
# server in the test process. See TestBrowserCallBench in
# pkg/platform/webcall_browser_test.go.
#
# Usage: bench/webcall.sh [ROUNDS]   (default 5; or env ROUNDS)
# Needs: what bench/sessions.sh needs, and node, npm and chromium;
#        BOTKIT_NPM_CACHE names an npm cache to reuse.
set -euo pipefail

BENCH=bench/webcall.sh
repo=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=bench/lib.sh
. "$repo/bench/lib.sh"
ROUNDS=${1:-${ROUNDS:-5}}
bench_rounds "$ROUNDS"
bench_need go node npm chromium
cd "$repo"
BOTKIT_BENCH_WEBCALL_ROUNDS=$ROUNDS CI=true go test -count=1 -run '^TestBrowserCallBench$' -v -timeout 30m ./pkg/platform |
	sed -n 's/^ *webcall_browser_test.go:[0-9]*: \(npm run build (vanilla)\|page load to RTVI ready\|through the platform:\)/\1/p'
