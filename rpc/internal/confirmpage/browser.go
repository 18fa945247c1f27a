package confirmpage

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
)

// Browser returns the Opener of the user's browser: each command of
// $BROWSER in turn (a list separated by the path list separator, where %s
// stands for the URL, else it is added at the end), else the platform's
// opener (xdg-open, open, or the URL handler of Windows). getenv reads the
// environment. The opener's own input and output are not the server's, so
// that a text browser cannot take over the protocol's stdin and stdout.
func Browser(getenv func(string) string) Opener {
	return func(_ context.Context, url string) error {
		var commands [][]string
		if list := getenv("BROWSER"); strings.TrimSpace(list) != "" {
			for _, c := range strings.Split(list, string(os.PathListSeparator)) {
				if args := strings.Fields(c); len(args) > 0 {
					commands = append(commands, withURL(args, url))
				}
			}
		} else {
			c, err := platformOpener(getenv, url)
			if err != nil {
				return err
			}
			commands = append(commands, c)
		}
		var errs []error
		for _, c := range commands {
			err := run(c)
			if err == nil {
				return nil
			}
			errs = append(errs, err)
		}
		return errors.Join(errs...)
	}
}

// withURL puts url in place of each %s of args, or after them.
func withURL(args []string, url string) []string {
	out := make([]string, 0, len(args)+1)
	placed := false
	for _, a := range args {
		if strings.Contains(a, "%s") {
			a, placed = strings.ReplaceAll(a, "%s", url), true
		}
		out = append(out, a)
	}
	if !placed {
		out = append(out, url)
	}
	return out
}

func platformOpener(getenv func(string) string, url string) ([]string, error) {
	switch runtime.GOOS {
	case "darwin":
		return []string{"open", url}, nil
	case "windows":
		return []string{"rundll32", "url.dll,FileProtocolHandler", url}, nil
	}
	if getenv("DISPLAY") == "" && getenv("WAYLAND_DISPLAY") == "" {
		return nil, errors.New("BROWSER is not set and there is no display (neither DISPLAY nor WAYLAND_DISPLAY) to open one on")
	}
	return []string{"xdg-open", url}, nil
}

// run runs one opener; the error names the command, never the URL, whose
// path is the page's secret. It is not tied to a context: the user's
// browser outlives the question. Its stdin, stdout and stderr are the null
// device.
func run(args []string) error {
	cmd := exec.Command(args[0], args[1:]...)
	if err := cmd.Run(); err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return fmt.Errorf("%s ended with status %d", args[0], exit.ExitCode())
		}
		if errors.Is(err, exec.ErrNotFound) {
			return fmt.Errorf("%s is not installed", args[0])
		}
		return fmt.Errorf("%s could not start", args[0])
	}
	return nil
}
