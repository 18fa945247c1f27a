package engine

import (
	"cmp"
	"slices"
	"strings"

	"github.com/aiq/aiq-rpc/tools/sqltext"
)

// LookupAll finds each name's table, once each.
func (s *Schema) LookupAll(names []string) (found []*Table, missing []string) {
	for _, name := range names {
		t, ok := s.Lookup(name)
		switch {
		case !ok:
			missing = append(missing, name)
		case !slices.Contains(found, t):
			found = append(found, t)
		}
	}
	return found, missing
}

// Lookup finds a table by the name the model gives, bare, qualified or
// quoted in the dialect's way ("Order Details", `select`, "sales"."x").
func (s *Schema) Lookup(name string) (*Table, bool) {
	name = strings.TrimSpace(name)
	if t, ok := s.find(name); ok {
		return t, true
	}
	return s.find(unquoteQualified(name))
}

// find finds a table by its name or its qualified name (schema.name).
// An exact match wins; else the match must be unique regardless of case,
// as unquoted names are case-insensitive in SQL.
func (s *Schema) find(name string) (*Table, bool) {
	for i := range s.Tables {
		if t := &s.Tables[i]; t.Name == name || t.QualifiedName() == name {
			return t, true
		}
	}
	var found *Table
	for i := range s.Tables {
		if t := &s.Tables[i]; strings.EqualFold(t.Name, name) || strings.EqualFold(t.QualifiedName(), name) {
			if found != nil {
				return nil, false
			}
			found = t
		}
	}
	return found, found != nil
}

// unquoteQualified removes the quotes of each part of a name such as
// "sales"."Order Details"; a name without quotes is returned as it is.
func unquoteQualified(name string) string {
	if !strings.ContainsAny(name, "\"`[") {
		return name
	}
	var parts []string
	for rest := name; rest != ""; {
		end := 0
		switch rest[0] {
		case '"', '`':
			q := rest[0]
			for end = 1; end < len(rest); end++ {
				if rest[end] == q {
					if end+1 < len(rest) && rest[end+1] == q {
						end++
						continue
					}
					break
				}
			}
			end = min(end+1, len(rest))
		case '[':
			end = strings.IndexByte(rest, ']') + 1
			if end == 0 {
				end = len(rest)
			}
		default:
			end = strings.IndexByte(rest, '.')
			if end < 0 {
				end = len(rest)
			}
		}
		parts = append(parts, UnquoteIdent(rest[:end]))
		rest = strings.TrimPrefix(rest[end:], ".")
	}
	return strings.Join(parts, ".")
}

// NoTable says that no table has the name, and names the closest.
func (s *Schema) NoTable(name string) string {
	var names []string
	for i := range s.Tables {
		names = append(names, s.Tables[i].QualifiedName())
	}
	return "no table `" + name + "`" + didYouMean(name, names, "; call search_schema to find tables by name, column or comment")
}

// NoColumn says that the table has no column of that name, and names the
// closest.
func (s *Schema) NoColumn(t *Table, name string) string {
	var names []string
	for _, c := range t.Columns {
		names = append(names, c.Name)
	}
	return "no column `" + name + "` in " + s.TableName(t) + didYouMean(name, names, "; its columns are "+strings.Join(names, ", "))
}

// didYouMean returns "; did you mean `orders`?" with up to three names
// close to name, or otherwise when none is close.
func didYouMean(name string, names []string, otherwise string) string {
	type near struct {
		name string
		d    int
	}
	want := strings.ToLower(unquoteQualified(name))
	var close []near
	for _, n := range names {
		lower := strings.ToLower(n)
		_, bare, _ := strings.Cut(lower, ".")
		d := min(editDistance(want, lower), editDistance(want, bare))
		switch {
		case d <= max(2, len(want)/3):
		case len(want) >= 3 && (strings.Contains(lower, want) || strings.Contains(want, bare) && bare != ""):
			d = 3 + abs(len(lower)-len(want))
		case sqltext.Stem(want) == sqltext.Stem(bare):
			d = 1
		default:
			continue
		}
		close = append(close, near{n, d})
	}
	if len(close) == 0 {
		return otherwise
	}
	slices.SortStableFunc(close, func(a, b near) int { return cmp.Compare(a.d, b.d) })
	var quoted []string
	for _, c := range close[:min(3, len(close))] {
		quoted = append(quoted, "`"+c.name+"`")
	}
	return "; did you mean " + strings.Join(quoted, " or ") + "?"
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// editDistance is the Levenshtein distance between a and b, in bytes,
// given up past 8 (the names are then not close).
func editDistance(a, b string) int {
	if d := abs(len(a) - len(b)); d > 8 {
		return d
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
