package sessionio_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aiq/aiq-rpc/sessionio"
)

func writeSkill(t *testing.T, home sessionio.Home, dir, text string) {
	t.Helper()
	path := filepath.Join(home.SkillsDir(), dir, "SKILL.md")
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o700))
	require.NoError(t, os.WriteFile(path, []byte(text), 0o600))
}

func TestLoadSkills(t *testing.T) {
	home := sessionio.Home{Dir: t.TempDir()}
	skills, errs := home.LoadSkills()
	assert.Empty(t, skills, "no skills folder is no skills")
	assert.Empty(t, errs)

	writeSkill(t, home, "revenue", "---\nname: revenue\ndescription: How we compute revenue from orders\n---\nRevenue is sum(quantity * unit_price) of delivered orders.\n")
	writeSkill(t, home, "plain", "Always answer in French.\r\n")
	writeSkill(t, home, "broken", "---\nname: [unclosed\n---\nbody\n")
	writeSkill(t, home, "open", "---\nname: open\n")
	require.NoError(t, os.MkdirAll(filepath.Join(home.SkillsDir(), "dir", "SKILL.md"), 0o700))

	skills, errs = home.LoadSkills()
	require.Len(t, skills, 2)
	assert.Equal(t, "plain", skills[0].Name, "named after its folder")
	assert.Equal(t, "Always answer in French.", skills[0].Body)
	assert.Equal(t, "revenue", skills[1].Name)
	assert.Equal(t, "How we compute revenue from orders", skills[1].Description)
	assert.Equal(t, "Revenue is sum(quantity * unit_price) of delivered orders.", skills[1].Body)
	require.Len(t, errs, 3)
	for _, err := range errs {
		assert.Contains(t, err.Error(), "read skill "+home.SkillsDir())
	}
}
