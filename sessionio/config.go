package sessionio

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"gopkg.in/yaml.v3"
)

// LLM is the model endpoint from config.yaml's llm section, after
// environment overrides.
type LLM struct {
	URL    string
	APIKey Secret
	Model  string
}

// Configured reports whether a model can be called: URL and Model set (the
// key is optional: Ollama needs none).
func (l LLM) Configured() bool {
	return l.URL != "" && l.Model != ""
}

// Config is config/config.yaml.
type Config struct {
	LLM LLM
}

// Source types.
const (
	TypeMySQL      = "mysql"
	TypePostgreSQL = "postgresql"
	TypeSeekDB     = "seekdb"
	TypeSQLite     = "sqlite"
)

// sourceTypes lists the source types for error messages.
const sourceTypes = "mysql, postgresql, seekdb or sqlite"

// Source is one entry of config/sources.yaml. For sqlite, Database is the
// file path.
type Source struct {
	Name     string
	Type     string
	Host     string
	Port     int
	Database string
	Username string
	Password Secret
	// SchemaBudget is the size in bytes of the schema card in the system
	// prompt (schema_budget, an aiq-rpc key the CLI ignores); 0 means the
	// default.
	SchemaBudget int
	// Access is the source's policy for statements that write: "confirm"
	// (the default, "": ask each time) or "read_only" (refuse without
	// asking). The AIQ CLI ignores the key.
	Access string
	// Label names the source for every dialog and the editors' source
	// indicator, such as "production"; on a source labelled production,
	// "Allow always" is never offered. The AIQ CLI ignores the key.
	Label string
	// MaxEstimatedRows is the cost gate: a read the engine estimates above
	// it asks first; 0 means the default, DefaultMaxEstimatedRows.
	MaxEstimatedRows int64
	// Mask lists the columns whose values the model never sees, as
	// table.column (mask); MaskPattern holds globs on column names
	// (mask_pattern, such as *ssn*). The AIQ CLI ignores both keys.
	Mask        []string
	MaskPattern []string
}

// DefaultMaxEstimatedRows is the cost gate of a source that sets none.
const DefaultMaxEstimatedRows = 10_000_000

// The values of Source.Access.
const (
	AccessConfirm  = "confirm"
	AccessReadOnly = "read_only"
)

// IsProduction reports whether the source is labelled production, in any
// case.
func (s Source) IsProduction() bool {
	return strings.EqualFold(strings.TrimSpace(s.Label), "production")
}

// ConfigError is a malformed configuration file: which file, which line,
// which field, what is wrong. Line is 0 when unknown and Field is empty when
// the problem is not about one field.
type ConfigError struct {
	Path    string
	Line    int
	Field   string
	Problem string
}

// Error returns "path:line: field: problem", leaving out the parts that are
// unknown.
func (e *ConfigError) Error() string {
	var b strings.Builder
	b.WriteString(e.Path)
	if e.Line > 0 {
		b.WriteString(":")
		b.WriteString(strconv.Itoa(e.Line))
	}
	b.WriteString(": ")
	if e.Field != "" {
		b.WriteString(e.Field)
		b.WriteString(": ")
	}
	b.WriteString(e.Problem)
	return b.String()
}

// ConfigPath returns the path of config.yaml.
func (h Home) ConfigPath() string {
	return filepath.Join(h.ConfigDir(), "config.yaml")
}

// SourcesPath returns the path of sources.yaml.
func (h Home) SourcesPath() string {
	return filepath.Join(h.ConfigDir(), "sources.yaml")
}

// LoadConfig reads <home>/config/config.yaml and applies environment
// overrides: AIQ_LLM_URL, AIQ_API_KEY and AIQ_MODEL override the file when
// set non-empty; OPENAI_API_KEY is used only when no other key is set. A missing file is "not configured"
// (zero Config + overrides), not an error. A malformed file gives a
// *ConfigError.
func (h Home) LoadConfig(getenv func(string) string) (Config, error) {
	path := h.ConfigPath()
	root, err := readYAML(path)
	if err != nil {
		return Config{}, err
	}
	var c Config
	if root != nil {
		c, err = newConfigParser(path).config(root)
		if err != nil {
			return Config{}, err
		}
	}
	c.LLM = c.LLM.withEnv(getenv)
	return c, nil
}

// LoadSources reads <home>/config/sources.yaml. A missing file gives no
// sources and no error. A malformed file gives a *ConfigError.
func (h Home) LoadSources() ([]Source, error) {
	path := h.SourcesPath()
	root, err := readYAML(path)
	if err != nil || root == nil {
		return nil, err
	}
	return newConfigParser(path).sources(root)
}

// withEnv returns l with the environment overrides applied.
func (l LLM) withEnv(getenv func(string) string) LLM {
	// A value of blanks cannot be a URL, key or model name; treat it as unset
	// rather than let it wipe out the file's value.
	env := func(name string) string { return strings.TrimSpace(getenv(name)) }
	if v := env("AIQ_LLM_URL"); v != "" {
		l.URL = v
	}
	// OPENAI_API_KEY is exported by many developers for other tools; it
	// must not replace the key that config.yaml gives for another endpoint
	// (and so be sent to it), so it only fills a missing key.
	if v := env("AIQ_API_KEY"); v != "" {
		l.APIKey = Secret(v)
	} else if v := env("OPENAI_API_KEY"); v != "" && l.APIKey == "" {
		l.APIKey = Secret(v)
	}
	if v := env("AIQ_MODEL"); v != "" {
		l.Model = v
	}
	return l
}

// readYAML returns the root node of the file's document, or nil when the file
// is missing or holds no document (empty, or only comments).
func readYAML(path string) (*yaml.Node, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		// The path is already in our message; keep only the cause.
		var pathErr *fs.PathError
		if errors.As(err, &pathErr) {
			err = pathErr.Err
		}
		return nil, fmt.Errorf("read config %s: %w", path, err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, yamlSyntaxError(path, data, err)
	}
	if len(doc.Content) == 0 {
		return nil, nil
	}
	root := unalias(doc.Content[0])
	if isYAMLNull(root) {
		return nil, nil
	}
	return root, nil
}

// yamlEntry is one key of a mapping and its value.
type yamlEntry struct {
	key   *yaml.Node
	value *yaml.Node
}

// configParser walks the nodes of one file, so that every problem carries the
// file, the line and the field.
type configParser struct {
	path string
	// fields caches the expanded keys of each mapping, so an anchor merged in
	// many places is expanded once. A nil value marks a mapping being
	// expanded, which catches an anchor merged into itself.
	fields map[*yaml.Node]map[string]yamlEntry
}

// newConfigParser returns a parser for the file at path.
func newConfigParser(path string) configParser {
	return configParser{path: path, fields: make(map[*yaml.Node]map[string]yamlEntry)}
}

// fail returns the problem as a *ConfigError at n's line.
func (p configParser) fail(n *yaml.Node, field, problem string) error {
	return &ConfigError{Path: p.path, Line: n.Line, Field: field, Problem: problem}
}

// config reads config.yaml's root mapping.
func (p configParser) config(root *yaml.Node) (Config, error) {
	if root.Kind != yaml.MappingNode {
		return Config{}, p.fail(root, "", "want a mapping with an llm section, found "+describeNode(root))
	}
	top, err := p.entries(root, "")
	if err != nil {
		return Config{}, err
	}
	e, ok := top["llm"]
	if !ok || isYAMLNull(unalias(e.value)) {
		return Config{}, nil
	}
	l, err := p.llm(unalias(e.value))
	if err != nil {
		return Config{}, err
	}
	return Config{LLM: l}, nil
}

// llm reads the llm section. Unknown keys are ignored: newer CLI versions
// may add some.
func (p configParser) llm(n *yaml.Node) (LLM, error) {
	if n.Kind != yaml.MappingNode {
		return LLM{}, p.fail(n, "llm", "want a mapping of url, api_key and model, found "+describeNode(n))
	}
	fields, err := p.entries(n, "llm")
	if err != nil {
		return LLM{}, err
	}
	var l LLM
	var key string
	targets := []struct {
		name string
		dst  *string
	}{{"url", &l.URL}, {"api_key", &key}, {"model", &l.Model}}
	for _, t := range targets {
		if *t.dst, err = p.optionalText(fields, t.name, "llm"); err != nil {
			return LLM{}, err
		}
	}
	l.APIKey = Secret(key)
	return l, nil
}

// sources reads sources.yaml's root list.
func (p configParser) sources(root *yaml.Node) ([]Source, error) {
	if root.Kind != yaml.SequenceNode {
		return nil, p.fail(root, "", "want a list of sources, found "+describeNode(root))
	}
	list := make([]Source, 0, len(root.Content))
	names := make(map[string]*yaml.Node)
	for i, item := range root.Content {
		s, err := p.source(fmt.Sprintf("[%d]", i), unalias(item), names)
		if err != nil {
			return nil, err
		}
		list = append(list, s)
	}
	return list, nil
}

// source reads one item of sources.yaml. names maps the names already seen
// to where they were set, to reject a second source of the same name.
func (p configParser) source(field string, item *yaml.Node, names map[string]*yaml.Node) (Source, error) {
	if item.Kind != yaml.MappingNode {
		return Source{}, p.fail(item, field, "want a mapping of source fields, found "+describeNode(item))
	}
	fields, err := p.entries(item, field)
	if err != nil {
		return Source{}, err
	}
	var s Source
	if s.Name, err = p.name(fields, item, field, names); err != nil {
		return Source{}, err
	}
	if s.Type, err = p.sourceType(fields, item, field); err != nil {
		return Source{}, err
	}
	if s.Port, err = p.port(fields, field); err != nil {
		return Source{}, err
	}
	var password string
	targets := []struct {
		name string
		dst  *string
	}{{"host", &s.Host}, {"database", &s.Database}, {"username", &s.Username}, {"password", &password}}
	for _, t := range targets {
		if *t.dst, err = p.optionalText(fields, t.name, field); err != nil {
			return Source{}, err
		}
	}
	s.Password = Secret(password)
	if s.SchemaBudget, err = p.schemaBudget(fields, field); err != nil {
		return Source{}, err
	}
	if s.Label, err = p.optionalText(fields, "label", field); err != nil {
		return Source{}, err
	}
	if s.Access, err = p.optionalText(fields, "access", field); err != nil {
		return Source{}, err
	}
	if max, err := p.optionalText(fields, "max_estimated_rows", field); err != nil {
		return Source{}, err
	} else if max != "" {
		n, err := strconv.ParseInt(strings.ReplaceAll(max, "_", ""), 10, 64)
		if err != nil || n < 1 {
			return Source{}, p.fail(nodeOf(fields, "max_estimated_rows", item), field+".max_estimated_rows", fmt.Sprintf("want a whole number of rows above 0, found %q", max))
		}
		s.MaxEstimatedRows = n
	}
	if err := p.masks(fields, field, &s); err != nil {
		return Source{}, err
	}
	switch s.Access {
	case "", AccessConfirm, AccessReadOnly:
	default:
		return Source{}, p.fail(nodeOf(fields, "access", item), field+".access", fmt.Sprintf("%q is not a policy; want read_only or confirm", s.Access))
	}
	if s.Type == TypeSQLite && s.Database == "" {
		return Source{}, p.fail(nodeOf(fields, "database", item), field+".database", "missing; a sqlite source needs the database file path")
	}
	return s, nil
}

// name reads a source's name, which must be set and unique.
func (p configParser) name(fields map[string]yamlEntry, item *yaml.Node, field string, names map[string]*yaml.Node) (string, error) {
	name, err := p.optionalText(fields, "name", field)
	if err != nil {
		return "", err
	}
	field += ".name"
	n := nodeOf(fields, "name", item)
	if name == "" {
		return "", p.fail(n, field, "missing; every source needs a name")
	}
	if first, ok := names[name]; ok {
		return "", p.fail(n, field, fmt.Sprintf("duplicate name %q, first used on line %d", name, first.Line))
	}
	names[name] = n
	return name, nil
}

// sourceType reads a source's type, in any case, and returns it in lower
// case.
func (p configParser) sourceType(fields map[string]yamlEntry, item *yaml.Node, field string) (string, error) {
	t, err := p.optionalText(fields, "type", field)
	if err != nil {
		return "", err
	}
	n := nodeOf(fields, "type", item)
	switch lower := strings.ToLower(t); lower {
	case TypeMySQL, TypePostgreSQL, TypeSeekDB, TypeSQLite:
		return lower, nil
	case "":
		return "", p.fail(n, field+".type", "missing; want one of "+sourceTypes)
	}
	return "", p.fail(n, field+".type", fmt.Sprintf("want one of %s, found %q", sourceTypes, t))
}

// port reads a source's optional port. A quoted number is accepted, as users
// often quote ports.
func (p configParser) port(fields map[string]yamlEntry, field string) (int, error) {
	e, ok := fields["port"]
	if !ok {
		return 0, nil
	}
	n := unalias(e.value)
	if isYAMLNull(n) {
		return 0, nil
	}
	field += ".port"
	if n.Kind != yaml.ScalarNode {
		return 0, p.fail(n, field, "want a port number from 1 to 65535, found "+describeNode(n))
	}
	var port int
	var err error
	switch n.ShortTag() {
	case "!!int":
		// Decode reads every integer form YAML allows (0x1F90, 5_432...).
		err = n.Decode(&port)
	case "!!str":
		port, err = strconv.Atoi(n.Value)
	default:
		err = errors.New("not an integer")
	}
	if err != nil || port < 1 || port > 65535 {
		return 0, p.fail(n, field, fmt.Sprintf("want a port number from 1 to 65535, found %q", n.Value))
	}
	return port, nil
}

// schemaBudget reads a source's optional schema_budget, a number of bytes.
func (p configParser) schemaBudget(fields map[string]yamlEntry, field string) (int, error) {
	e, ok := fields["schema_budget"]
	if !ok {
		return 0, nil
	}
	n := unalias(e.value)
	if isYAMLNull(n) {
		return 0, nil
	}
	var budget int
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!int" || n.Decode(&budget) != nil || budget < 0 {
		found := describeNode(n)
		if n.Kind == yaml.ScalarNode {
			found = strconv.Quote(n.Value)
		}
		return 0, p.fail(n, field+".schema_budget", "want a number of bytes, such as 12288, found "+found)
	}
	return budget, nil
}

// optionalText returns the text of key in fields, or "" when it is absent or
// null.
func (p configParser) optionalText(fields map[string]yamlEntry, key, field string) (string, error) {
	e, ok := fields[key]
	if !ok {
		return "", nil
	}
	return p.text(e.value, fieldPath(field, key))
}

// text returns a scalar's text; numbers and booleans are taken as written.
// Its errors never quote the value: it also reads passwords and API keys.
func (p configParser) text(n *yaml.Node, field string) (string, error) {
	n = unalias(n)
	if n.Kind != yaml.ScalarNode {
		return "", p.fail(n, field, "want a text value, found "+describeNode(n))
	}
	if isYAMLNull(n) {
		return "", nil
	}
	return n.Value, nil
}

// entries returns the keys of mapping m with `<<` merges expanded as yaml.v3
// decodes them for the CLI: a key written in m wins over a merged one, and an
// earlier merged mapping wins over a later one. A key written twice in m is
// an error, as it is for the CLI. Keys that are not scalars are skipped: no
// field has such a name.
func (p configParser) entries(m *yaml.Node, field string) (map[string]yamlEntry, error) {
	if cached, ok := p.fields[m]; ok {
		if cached == nil {
			// Only a merge comes back to a mapping being expanded, so field
			// already ends in "<<".
			return nil, p.fail(m, field, "a mapping merges itself")
		}
		return cached, nil
	}
	p.fields[m] = nil
	own := make(map[string]yamlEntry)
	var merged []map[string]yamlEntry
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := unalias(m.Content[i]), m.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			continue
		}
		if k.ShortTag() == "!!merge" {
			more, err := p.merge(unalias(v), fieldPath(field, "<<"))
			if err != nil {
				return nil, err
			}
			merged = append(merged, more...)
			continue
		}
		if first, ok := own[k.Value]; ok {
			return nil, p.fail(k, fieldPath(field, k.Value), fmt.Sprintf("set twice, first on line %d", first.key.Line))
		}
		own[k.Value] = yamlEntry{key: k, value: v}
	}
	for _, more := range merged {
		for name, e := range more {
			if _, ok := own[name]; !ok {
				own[name] = e
			}
		}
	}
	p.fields[m] = own
	return own, nil
}

// merge returns the keys of the mappings merged by a `<<` key whose value is
// n: one mapping or a list of them.
func (p configParser) merge(n *yaml.Node, field string) ([]map[string]yamlEntry, error) {
	const want = "want a mapping or a list of mappings to merge, found "
	switch n.Kind {
	case yaml.MappingNode:
		fields, err := p.entries(n, field)
		if err != nil {
			return nil, err
		}
		return []map[string]yamlEntry{fields}, nil
	case yaml.SequenceNode:
		all := make([]map[string]yamlEntry, 0, len(n.Content))
		for _, item := range n.Content {
			item = unalias(item)
			if item.Kind != yaml.MappingNode {
				return nil, p.fail(item, field, want+describeNode(item))
			}
			fields, err := p.entries(item, field)
			if err != nil {
				return nil, err
			}
			all = append(all, fields)
		}
		return all, nil
	}
	return nil, p.fail(n, field, want+describeNode(n))
}

// nodeOf returns the value node of key for an error's line, or fallback when the
// key is absent.
func nodeOf(fields map[string]yamlEntry, key string, fallback *yaml.Node) *yaml.Node {
	if e, ok := fields[key]; ok {
		return unalias(e.value)
	}
	return fallback
}

// fieldPath appends key to the field path.
func fieldPath(field, key string) string {
	if field == "" {
		return key
	}
	return field + "." + key
}

// unalias follows aliases to the node they name.
func unalias(n *yaml.Node) *yaml.Node {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	return n
}

// isYAMLNull reports whether n is a YAML null: empty, ~ or null.
func isYAMLNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null"
}

// describeNode names the kind of value n holds but never the value, which may
// be a secret.
func describeNode(n *yaml.Node) string {
	switch {
	case n.Kind == yaml.MappingNode:
		return "a mapping"
	case n.Kind == yaml.SequenceNode:
		return "a list"
	case isYAMLNull(n):
		return "nothing"
	}
	return "a single value"
}

// yamlSyntaxError turns a yaml.v3 syntax error into a *ConfigError with the line
// as a field of its own and any secret of the file redacted.
func yamlSyntaxError(path string, data []byte, err error) *ConfigError {
	problem := strings.TrimPrefix(err.Error(), "yaml: ")
	line := 0
	if rest, ok := strings.CutPrefix(problem, "line "); ok {
		if num, text, ok := strings.Cut(rest, ": "); ok {
			if n, err := strconv.Atoi(num); err == nil {
				line, problem = n, text
			}
		}
	}
	if isYAMLParserError(problem) {
		// yaml.v3 reports parser errors with a 0-based line and leaves out
		// line 0 (go-yaml/yaml#205); scanner errors are already 1-based.
		line++
	}
	if line == 0 {
		line = aliasLine(problem, data)
	}
	return &ConfigError{Path: path, Line: line, Problem: "invalid YAML: " + redactSecrets(problem, data)}
}

// isYAMLParserError reports whether problem is one of the messages of yaml.v3's
// parser, as opposed to its scanner.
func isYAMLParserError(problem string) bool {
	switch problem {
	case "did not find expected ',' or ']'",
		"did not find expected ',' or '}'",
		"did not find expected '-' indicator",
		"did not find expected <document start>",
		"did not find expected <stream-start>",
		"did not find expected key",
		"did not find expected node content",
		"found duplicate %TAG directive",
		"found duplicate %YAML directive",
		"found incompatible YAML document",
		"found undefined tag handle":
		return true
	}
	return false
}

// aliasLine returns the first line of data that uses the alias named in
// yaml.v3's unknown-anchor error, which has no line of its own, or 0.
func aliasLine(problem string, data []byte) int {
	name, ok := strings.CutPrefix(problem, "unknown anchor '")
	if !ok {
		return 0
	}
	name, ok = strings.CutSuffix(name, "' referenced")
	if !ok {
		return 0
	}
	for i, line := range strings.Split(string(data), "\n") {
		for rest := line; ; {
			_, after, found := strings.Cut(rest, "*"+name)
			if !found {
				break
			}
			// An anchor name runs up to a blank or a flow indicator, so
			// "*pw" must not match "*pw2".
			if after == "" || strings.ContainsAny(after[:1], " \t,[]{}") {
				return i + 1
			}
			rest = after
		}
	}
	return 0
}

// minRedacted is the length of the shortest text redacted. Shorter pieces
// occur in any message; removing them would garble it and protect nothing.
const minRedacted = 3

// redactSecrets replaces in msg every value found on a password or api_key
// line of data. Our own messages never quote those values, but yaml.v3's
// can (an unknown anchor's name, for one), and a malformed line cannot be
// parsed to find the value exactly, so every likely piece of it goes.
func redactSecrets(msg string, data []byte) string {
	var values []string
	for _, line := range strings.Split(string(data), "\n") {
		values = append(values, secretValues(line)...)
	}
	// Longest first, so that a piece does not break up a longer value.
	slices.SortFunc(values, func(a, b string) int { return len(b) - len(a) })
	for _, v := range values {
		msg = strings.ReplaceAll(msg, v, redactedText)
	}
	return msg
}

// secretValues returns the candidate secret values on one raw line: the text
// after each "password:" or "api_key:" (any case), whole, unquoted and cut
// into words.
func secretValues(line string) []string {
	var values []string
	add := func(s string) {
		if len(s) >= minRedacted {
			values = append(values, s)
		}
	}
	for _, key := range []string{"password", "api_key"} {
		for i := 0; i+len(key) <= len(line); i++ {
			if !strings.EqualFold(line[i:i+len(key)], key) {
				continue
			}
			value, ok := afterColon(line[i+len(key):])
			if !ok {
				continue
			}
			add(value)
			add(strings.Trim(value, `"'*&!|>{}[], `))
			for _, word := range strings.FieldsFunc(value, isValueBreak) {
				add(strings.TrimLeft(word, "*&!"))
			}
		}
	}
	return values
}

// afterColon returns the trimmed text after the colon that ends a key, past
// the closing quote of a quoted key.
func afterColon(s string) (string, bool) {
	s = strings.TrimLeft(s, `"'`)
	s = strings.TrimLeft(s, " \t")
	rest, ok := strings.CutPrefix(s, ":")
	return strings.TrimSpace(rest), ok
}

// isValueBreak reports whether r separates words of a raw YAML value.
func isValueBreak(r rune) bool {
	return unicode.IsSpace(r) || strings.ContainsRune(`,{}[]"'`, r)
}
