package sessionio

import (
	"fmt"
	"path"
	"reflect"
	"strings"

	"gopkg.in/yaml.v3"
)

// maskList reads a source's optional list of texts under key: a list of
// scalars, or one scalar for a list of one. check returns the problem
// with one item, or "".
func (p configParser) maskList(fields map[string]yamlEntry, key, field string, check func(string) string) ([]string, error) {
	e, ok := fields[key]
	if !ok {
		return nil, nil
	}
	field = fieldPath(field, key)
	n := unalias(e.value)
	if isYAMLNull(n) {
		return nil, nil
	}
	items := []*yaml.Node{n}
	if n.Kind == yaml.SequenceNode {
		items = n.Content
	}
	var out []string
	for i, item := range items {
		f := field
		if n.Kind == yaml.SequenceNode {
			f = fmt.Sprintf("%s[%d]", field, i)
		}
		s, err := p.text(item, f)
		if err != nil {
			return nil, err
		}
		s = strings.TrimSpace(s)
		if problem := check(s); problem != "" {
			return nil, p.fail(unalias(item), f, problem)
		}
		out = append(out, s)
	}
	return out, nil
}

// maskedColumn checks one item of mask: table.column (or
// schema.table.column).
func maskedColumn(s string) string {
	dot := strings.LastIndexByte(s, '.')
	if dot <= 0 || dot == len(s)-1 {
		return fmt.Sprintf("want table.column, such as customers.email, found %q", s)
	}
	return ""
}

// maskPattern checks one item of mask_pattern: a glob on column names.
func maskPattern(s string) string {
	if s == "" {
		return "want a pattern on column names, such as *ssn*, found an empty text"
	}
	if _, err := path.Match(s, ""); err != nil {
		return fmt.Sprintf("%q is not a pattern (%v); use * and ? as in *ssn*", s, err)
	}
	return ""
}

// masks reads mask and mask_pattern into s.
func (p configParser) masks(fields map[string]yamlEntry, field string, s *Source) error {
	var err error
	if s.Mask, err = p.maskList(fields, "mask", field, maskedColumn); err != nil {
		return err
	}
	s.MaskPattern, err = p.maskList(fields, "mask_pattern", field, maskPattern)
	return err
}

// Equal reports whether s and o are the same source, field by field.
func (s Source) Equal(o Source) bool { return reflect.DeepEqual(s, o) }
