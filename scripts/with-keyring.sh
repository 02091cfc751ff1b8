#!/bin/sh
# Runs "$@" with an unlocked gnome-keyring on the D-Bus session bus, then
# stops the keyring daemon, so that nothing is left running. Meant to run
# inside `dbus-run-session --` (which ends the bus itself), with a fresh HOME:
#   dbus-run-session -- scripts/with-keyring.sh go test ./...
# The daemon runs in the foreground as this script's child (a daemonized
# one outlives the session); the command starts once it owns
# org.freedesktop.secrets.
printf pw | gnome-keyring-daemon --foreground --unlock --components=secrets >/dev/null 2>&1 &
keyring=$!
tries=0
until dbus-send --session --print-reply --dest=org.freedesktop.DBus / \
  org.freedesktop.DBus.NameHasOwner string:org.freedesktop.secrets 2>/dev/null | grep -q 'boolean true'; do
  tries=$((tries + 1))
  if [ "$tries" -ge 200 ]; then
    echo "with-keyring: gnome-keyring-daemon did not appear on the session bus in 10 s" >&2
    kill "$keyring" 2>/dev/null
    exit 1
  fi
  sleep 0.05
done
"$@"
rc=$?
kill "$keyring" 2>/dev/null
wait "$keyring" 2>/dev/null
exit "$rc"
