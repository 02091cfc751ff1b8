package cmdutil

import (
	"errors"
	"os/exec"
	"runtime"
	"strings"

	"github.com/botkit-dev/botkit/pkg/iostreams"
)

// CanOpenBrowser reports whether a command may open a page in the user's
// browser: a person at a terminal (stdout and stderr are terminals) and CI
// not set. Otherwise it prints the URL only.
func CanOpenBrowser(io *iostreams.IOStreams) bool { return io.ShowProgress() }

// OpenBrowser opens url in the user's browser, without waiting for it: the
// command BROWSER names (its words, then url), else the system's opener
// (xdg-open; open on macOS; the URL handler on Windows). getenv reads the
// environment.
func OpenBrowser(getenv func(string) string, url string) error {
	var argv []string
	if b := strings.Fields(getenv("BROWSER")); len(b) > 0 {
		argv = append(b, url)
	} else {
		switch runtime.GOOS {
		case "darwin":
			argv = []string{"open", url}
		case "windows":
			argv = []string{"rundll32", "url.dll,FileProtocolHandler", url}
		default:
			argv = []string{"xdg-open", url}
		}
	}
	path, err := exec.LookPath(argv[0])
	if err != nil {
		return errors.New("no browser to open: " + argv[0] + " not found (set BROWSER)")
	}
	cmd := exec.Command(path, argv[1:]...)
	if err := cmd.Start(); err != nil {
		return errors.New("opening the browser: " + argv[0] + ": " + err.Error())
	}
	go func() { _ = cmd.Wait() }() // error ignored: the browser's exit is not the command's
	return nil
}
