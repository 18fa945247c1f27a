package sessionio

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// homeTestEnv returns a getenv that reads only vars, so that the tests do not
// depend on the environment they run in.
func homeTestEnv(vars map[string]string) func(string) string {
	return func(name string) string { return vars[name] }
}

func TestHomeFind(t *testing.T) {
	tests := []struct {
		name    string
		aiqHome string // relative to the user home; "" leaves AIQ_HOME unset
		dirs    []string
		files   []string
		want    string
	}{
		{name: "AIQ_HOME wins", aiqHome: "custom", dirs: []string{".aiq", ".aiqconfig"}, want: "custom"},
		{name: "AIQ_HOME need not exist", aiqHome: "missing", want: "missing"},
		{name: "nothing exists", want: ".aiq"},
		{name: "only .aiq", dirs: []string{".aiq"}, want: ".aiq"},
		{name: "only .aiqconfig", dirs: []string{".aiqconfig"}, want: ".aiqconfig"},
		{name: "both", dirs: []string{".aiq", ".aiqconfig"}, want: ".aiq"},
		{name: ".aiqconfig is a file", files: []string{".aiqconfig"}, want: ".aiq"},
		{name: ".aiq is a file", dirs: []string{".aiqconfig"}, files: []string{".aiq"}, want: ".aiq"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			user := t.TempDir()
			for _, d := range tt.dirs {
				require.NoError(t, os.Mkdir(filepath.Join(user, d), 0o700))
			}
			for _, f := range tt.files {
				require.NoError(t, os.WriteFile(filepath.Join(user, f), nil, 0o600))
			}
			vars := map[string]string{"HOME": user}
			if tt.aiqHome != "" {
				vars["AIQ_HOME"] = filepath.Join(user, tt.aiqHome)
			}

			home, err := FindHome(homeTestEnv(vars))
			require.NoError(t, err)
			assert.Equal(t, filepath.Join(user, tt.want), home.Dir)

			entries, err := os.ReadDir(user)
			require.NoError(t, err)
			assert.Len(t, entries, len(tt.dirs)+len(tt.files), "FindHome must not create anything")
		})
	}
}

func TestHomeFindUserHomeDir(t *testing.T) {
	// os.UserHomeDir reads $HOME only on these systems.
	if runtime.GOOS != "linux" && runtime.GOOS != "darwin" && runtime.GOOS != "freebsd" {
		t.Skip("os.UserHomeDir does not read $HOME on " + runtime.GOOS)
	}
	t.Run("fallback", func(t *testing.T) {
		user := t.TempDir()
		t.Setenv("HOME", user)
		home, err := FindHome(homeTestEnv(nil))
		require.NoError(t, err)
		assert.Equal(t, filepath.Join(user, ".aiq"), home.Dir)
	})
	t.Run("no home at all", func(t *testing.T) {
		t.Setenv("HOME", "")
		_, err := FindHome(homeTestEnv(nil))
		require.Error(t, err)
		assert.Contains(t, err.Error(), "find AIQ home")
	})
}

func TestHomeDirs(t *testing.T) {
	h := Home{Dir: filepath.Join("base", ".aiq")}
	assert.Equal(t, filepath.Join("base", ".aiq", "sessions"), h.SessionsDir())
	assert.Equal(t, filepath.Join("base", ".aiq", "config"), h.ConfigDir())
	assert.Equal(t, filepath.Join("base", ".aiq", "skills"), h.SkillsDir())
	assert.Equal(t, filepath.Join("base", ".aiq", "config", "config.yaml"), h.ConfigPath())
	assert.Equal(t, filepath.Join("base", ".aiq", "config", "sources.yaml"), h.SourcesPath())
}
