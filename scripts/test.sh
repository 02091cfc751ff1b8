#!/usr/bin/env bash
# Runs botkit's whole test suite on a fresh machine: first installs what is
# missing (scripts/setup.sh), then gofmt, vet, staticcheck and every Go test
# (unit, testscript end-to-end, generated-project checks, npm builds and
# browser loads of the generated clients, the platform against real SQLite and
# a real docker-registry). Tests that touch the OS keyring run inside a
# private D-Bus session with an unlocked gnome-keyring when those are installed
# (scripts/with-keyring.sh; the daemon is stopped afterwards).
set -euo pipefail
cd "$(dirname "$0")/.."

./scripts/setup.sh

export BOTKIT_NPM_CACHE="${BOTKIT_NPM_CACHE:-$PWD/.cache/npm}"
mkdir -p "$BOTKIT_NPM_CACHE"
PATH="$PATH:$(go env GOPATH)/bin"

echo "== gofmt"
mapfile -t go_files < <(git ls-files '*.go' 2>/dev/null || find . -name '*.go' -not -path './.cache/*')
unformatted=$(gofmt -l "${go_files[@]}")
if [ -n "$unformatted" ]; then
  echo "gofmt would change:"; echo "$unformatted"; exit 1
fi
echo "== go vet"
go vet ./...
if command -v staticcheck >/dev/null 2>&1; then
  echo "== staticcheck"
  staticcheck ./...
else
  echo "staticcheck is not installed (scripts/setup.sh installs it)"; exit 1
fi

echo "== shellcheck"
shellcheck scripts/*.sh bench/*.sh .ci/run

echo "== go test"
# The arguments are passed to go test as they are (e.g. -run 'TestA|TestB').
test_cmd=(go test -count=1 -timeout 45m ./... "$@")
if command -v dbus-run-session >/dev/null 2>&1 && command -v gnome-keyring-daemon >/dev/null 2>&1; then
  # A fresh HOME keeps the keyring of the tests apart from the user's own;
  # Go's caches and settings stay where they are.
  keyring_home=$(mktemp -d)
  env GOCACHE="$(go env GOCACHE)" GOMODCACHE="$(go env GOMODCACHE)" GOPATH="$(go env GOPATH)" GOENV="$(go env GOENV)" \
    HOME="$keyring_home" XDG_DATA_HOME="$keyring_home/.local/share" XDG_CONFIG_HOME="$keyring_home/.config" \
    npm_config_cache="$BOTKIT_NPM_CACHE" \
    dbus-run-session -- scripts/with-keyring.sh "${test_cmd[@]}"
else
  "${test_cmd[@]}"
fi
