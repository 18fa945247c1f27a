package sessionio

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"
)

// maxSkillSize bounds a SKILL.md: skills go into every system prompt that
// matches them, so a huge one is a mistake.
const maxSkillSize = 64 << 10

// Skill is a user's instruction for a kind of question, from
// <home>/skills/NAME/SKILL.md: YAML front matter with name and description,
// then the body.
type Skill struct {
	Name        string
	Description string
	Body        string
	Path        string
}

// LoadSkills reads the skills of the home folder, sorted by name. A skill
// that cannot be read is skipped and reported in the errors; a missing
// skills folder is no skills.
func (h Home) LoadSkills() ([]Skill, []error) {
	paths, err := filepath.Glob(filepath.Join(h.SkillsDir(), "*", "SKILL.md"))
	if err != nil {
		return nil, []error{fmt.Errorf("list skills: %w", err)}
	}
	var skills []Skill
	var errs []error
	for _, path := range paths {
		s, err := readSkill(path)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		skills = append(skills, s)
	}
	slices.SortFunc(skills, func(a, b Skill) int { return strings.Compare(a.Name, b.Name) })
	return skills, errs
}

func readSkill(path string) (Skill, error) {
	info, err := os.Stat(path)
	if err != nil {
		return Skill{}, fmt.Errorf("read skill %s: %w", path, err)
	}
	if !info.Mode().IsRegular() {
		return Skill{}, fmt.Errorf("read skill %s: %w", path, fs.ErrInvalid)
	}
	if info.Size() > maxSkillSize {
		return Skill{}, fmt.Errorf("read skill %s: %d bytes is over the %d byte limit", path, info.Size(), maxSkillSize)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return Skill{}, fmt.Errorf("read skill %s: %w", path, err)
	}
	s, err := parseSkill(data)
	if err != nil {
		return Skill{}, fmt.Errorf("read skill %s: %w", path, err)
	}
	if s.Name == "" {
		s.Name = filepath.Base(filepath.Dir(path))
	}
	s.Path = path
	return s, nil
}

// parseSkill splits the front matter, between two "---" lines, from the
// body.
func parseSkill(data []byte) (Skill, error) {
	data = bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n"))
	rest, ok := bytes.CutPrefix(data, []byte("---\n"))
	if !ok {
		return Skill{Body: strings.TrimSpace(string(data))}, nil
	}
	front, body, ok := bytes.Cut(rest, []byte("\n---"))
	if !ok {
		return Skill{}, errors.New("the front matter has no closing --- line")
	}
	var meta struct {
		Name        string `yaml:"name"`
		Description string `yaml:"description"`
	}
	if err := yaml.Unmarshal(front, &meta); err != nil {
		return Skill{}, fmt.Errorf("front matter: %w", err)
	}
	body = bytes.TrimLeft(body, "-")
	return Skill{Name: meta.Name, Description: meta.Description, Body: strings.TrimSpace(string(body))}, nil
}
