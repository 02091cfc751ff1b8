//go:build unix && !darwin

package credentials

import (
	"errors"
	"os"
	"path/filepath"
)

// sessionBus checks that a D-Bus session bus is there to ask the Secret
// Service on: DBUS_SESSION_BUS_ADDRESS, or systemd's $XDG_RUNTIME_DIR/bus.
// Without one, the D-Bus library would start a bus of its own through
// dbus-launch — a dbus-daemon and a gnome-keyring-daemon that outlive the
// command, one pair per command — so the keyring is unavailable at once
// instead.
func sessionBus() error {
	if os.Getenv("DBUS_SESSION_BUS_ADDRESS") != "" {
		return nil
	}
	if dir := os.Getenv("XDG_RUNTIME_DIR"); dir != "" {
		if fi, err := os.Stat(filepath.Join(dir, "bus")); err == nil && fi.Mode()&os.ModeSocket != 0 {
			return nil
		}
	}
	return errors.New("no D-Bus session bus: DBUS_SESSION_BUS_ADDRESS is not set")
}
