#!/usr/bin/env bash
# Installs what botkit's test suite needs and is missing on this machine:
# Debian packages (Python checkers, shellcheck, docker-registry, Chromium, gnome-keyring
# with D-Bus, PostgreSQL 15, sqlite3, age for the sealing key backups, docker.io for the engine
# the runtime tests start, gcc and libopus0 for the tone of the base image's stand-in), staticcheck, the Go modules. Node 20
# and npm are expected on the machine (the npm packages of the generated
# clients are installed by the tests themselves). Safe to run again: it only
# installs what is not there.
set -euo pipefail
cd "$(dirname "$0")/.."

# command-or-file → Debian package
need=(
  "pyflakes3:pyflakes3" "black:black" "python3:python3"
  "docker-registry:docker-registry" "htpasswd:apache2-utils"
  "chromium:chromium"
  "gnome-keyring-daemon:gnome-keyring" "dbus-run-session:dbus" "dbus-launch:dbus-x11"
  "/usr/lib/postgresql/15/bin/initdb:postgresql"
  "sqlite3:sqlite3" "git:git" "shellcheck:shellcheck" "age-keygen:age"
  "dockerd:docker.io"
  "gcc:gcc" "/usr/lib/$(uname -m)-linux-gnu/libopus.so.0:libopus0"
)
missing=()
for pair in "${need[@]}"; do
  probe=${pair%%:*} pkg=${pair#*:}
  if [[ $probe == /* ]]; then [ -e "$probe" ] && continue; else command -v "$probe" >/dev/null 2>&1 && continue; fi
  missing+=("$pkg")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "== apt-get install ${missing[*]}"
  sudo=""; [ "$(id -u)" = 0 ] || sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq "${missing[@]}" libsecret-1-0 ca-certificates >/dev/null
fi

for tool in go node npm; do
  command -v $tool >/dev/null 2>&1 || { echo "$tool is required (Go 1.26, Node 20 with npm)"; exit 1; }
done

GOBIN="$(go env GOPATH)/bin"
if [ ! -x "$GOBIN/staticcheck" ]; then
  echo "== go install staticcheck"
  GOBIN="$GOBIN" go install honnef.co/go/tools/cmd/staticcheck@v0.8.2
fi
go mod download
