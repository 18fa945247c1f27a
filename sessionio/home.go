package sessionio

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Home is the AIQ home folder shared with the AIQ CLI.
type Home struct {
	Dir string
}

// FindHome resolves the home folder: $AIQ_HOME when set (non-empty); else
// ~/.aiq; else, when only it exists, the older ~/.aiqconfig. getenv is
// os.Getenv in production; HOME comes from getenv("HOME"), falling back to
// os.UserHomeDir() when empty. It returns an error only when no user home can
// be found at all. FindHome does not create anything.
func FindHome(getenv func(string) string) (Home, error) {
	if dir := getenv("AIQ_HOME"); dir != "" {
		return Home{Dir: dir}, nil
	}
	user := getenv("HOME")
	if user == "" {
		var err error
		user, err = os.UserHomeDir()
		if err != nil {
			return Home{}, fmt.Errorf("find AIQ home: %w", err)
		}
	}
	current := filepath.Join(user, ".aiq")
	legacy := filepath.Join(user, ".aiqconfig")
	// The CLI never migrates ~/.aiqconfig, so a user who set up an older CLI
	// still keeps everything there; ~/.aiq wins as soon as it exists.
	if pathAbsent(current) && dirExists(legacy) {
		return Home{Dir: legacy}, nil
	}
	return Home{Dir: current}, nil
}

// SessionsDir returns the folder of saved sessions.
func (h Home) SessionsDir() string {
	return filepath.Join(h.Dir, "sessions")
}

// ConfigDir returns the folder of config.yaml and sources.yaml.
func (h Home) ConfigDir() string {
	return filepath.Join(h.Dir, "config")
}

// SkillsDir returns the folder of the user's skills.
func (h Home) SkillsDir() string {
	return filepath.Join(h.Dir, "skills")
}

// pathAbsent reports whether path certainly does not exist. Other stat errors
// (permissions, say) count as present, so that a doubt keeps the current
// layout rather than switching to the legacy one.
func pathAbsent(path string) bool {
	_, err := os.Stat(path)
	return errors.Is(err, fs.ErrNotExist)
}

// dirExists reports whether path is a directory; a stray file named like the
// legacy home must not be taken for one.
func dirExists(path string) bool {
	info, err := os.Stat(path)
	return err == nil && info.IsDir()
}
