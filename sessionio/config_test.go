package sessionio

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// configTestHome returns a fresh home whose config folder holds files, name
// to content.
func configTestHome(t *testing.T, files map[string]string) Home {
	t.Helper()
	h := Home{Dir: t.TempDir()}
	require.NoError(t, os.MkdirAll(h.ConfigDir(), 0o700))
	for name, text := range files {
		require.NoError(t, os.WriteFile(filepath.Join(h.ConfigDir(), name), []byte(text), 0o600))
	}
	return h
}

// configErrorCase is a malformed file and the error it must give.
type configErrorCase struct {
	name    string
	text    string
	line    int
	field   string
	problem string
}

// assertConfigError checks that err is a *ConfigError for path with the
// case's line, field and problem, and that its text names them all without
// the secret.
func assertConfigError(t *testing.T, err error, path string, tt configErrorCase) {
	t.Helper()
	require.Error(t, err)
	var ce *ConfigError
	require.True(t, errors.As(err, &ce), "want a *ConfigError, got %T: %v", err, err)
	assert.Equal(t, path, ce.Path)
	assert.Equal(t, tt.line, ce.Line, "line")
	assert.Equal(t, tt.field, ce.Field, "field")
	assert.Contains(t, ce.Problem, tt.problem)

	msg := err.Error()
	want := path
	if tt.line > 0 {
		want += fmt.Sprintf(":%d", tt.line)
	}
	want += ": "
	if tt.field != "" {
		want += tt.field + ": "
	}
	assert.True(t, strings.HasPrefix(msg, want), "%q does not start with %q", msg, want)
	assert.Contains(t, msg, tt.problem)
	assert.NotContains(t, msg, secretTestValue)
	assert.NotContains(t, msg, "S3cret")
}

func TestConfigError(t *testing.T) {
	tests := []struct {
		err  ConfigError
		want string
	}{
		{ConfigError{"/h/config/sources.yaml", 7, "[1].port", `want a port number from 1 to 65535, found "abc"`},
			`/h/config/sources.yaml:7: [1].port: want a port number from 1 to 65535, found "abc"`},
		{ConfigError{"/h/c.yaml", 0, "llm", "bad"}, "/h/c.yaml: llm: bad"},
		{ConfigError{"/h/c.yaml", 3, "", "bad"}, "/h/c.yaml:3: bad"},
		{ConfigError{"/h/c.yaml", 0, "", "bad"}, "/h/c.yaml: bad"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, tt.err.Error())
	}
}

func TestConfigLoad(t *testing.T) {
	tests := []struct {
		name string
		text *string // nil: no file
		want Config
	}{
		{name: "full", text: configTestText("llm:\n    url: https://api.openai.com/v1\n    api_key: sk-abc\n    model: gpt-4o-mini\n"),
			want: Config{LLM: LLM{URL: "https://api.openai.com/v1", APIKey: "sk-abc", Model: "gpt-4o-mini"}}},
		{name: "missing file"},
		{name: "empty file", text: configTestText("")},
		{name: "only comments", text: configTestText("# set up later\n\n# llm:\n")},
		{name: "empty document", text: configTestText("---\n")},
		{name: "empty llm", text: configTestText("llm:\n")},
		{name: "no key (Ollama)", text: configTestText("llm:\n  url: http://localhost:11434/v1\n  model: qwen2.5\n"),
			want: Config{LLM: LLM{URL: "http://localhost:11434/v1", Model: "qwen2.5"}}},
		{name: "unknown keys ignored", text: configTestText("theme: dark\nllm:\n  url: u\n  model: m\n  temperature: 0.2\n  extra: [1, 2]\n"),
			want: Config{LLM: LLM{URL: "u", Model: "m"}}},
		{name: "numbers as text", text: configTestText("llm:\n  url: u\n  api_key: 12345\n  model: 4.1\n"),
			want: Config{LLM: LLM{URL: "u", APIKey: "12345", Model: "4.1"}}},
		{name: "null values", text: configTestText("llm:\n  url: u\n  api_key: ~\n  model:\n"),
			want: Config{LLM: LLM{URL: "u"}}},
		{name: "anchors and merges", text: configTestText("base: &b {url: u, model: m}\nllm:\n  <<: *b\n  model: n\n"),
			want: Config{LLM: LLM{URL: "u", Model: "n"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files := map[string]string{}
			if tt.text != nil {
				files["config.yaml"] = *tt.text
			}
			h := configTestHome(t, files)
			got, err := h.LoadConfig(homeTestEnv(nil))
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
			assert.Equal(t, tt.want.LLM.APIKey.Reveal(), got.LLM.APIKey.Reveal())
		})
	}
}

func TestConfigEnv(t *testing.T) {
	const file = "llm:\n  url: file-url\n  api_key: file-key\n  model: file-model\n"
	tests := []struct {
		name    string
		noFile  bool
		vars    map[string]string
		want    LLM
		wantKey string
	}{
		{name: "no overrides", want: LLM{URL: "file-url", Model: "file-model"}, wantKey: "file-key"},
		{name: "url", vars: map[string]string{"AIQ_LLM_URL": "env-url"},
			want: LLM{URL: "env-url", Model: "file-model"}, wantKey: "file-key"},
		{name: "model", vars: map[string]string{"AIQ_MODEL": "env-model"},
			want: LLM{URL: "file-url", Model: "env-model"}, wantKey: "file-key"},
		{name: "AIQ_API_KEY", vars: map[string]string{"AIQ_API_KEY": "aiq-key"},
			want: LLM{URL: "file-url", Model: "file-model"}, wantKey: "aiq-key"},
		// The file's key is for the file's endpoint: a generic OpenAI key
		// from the environment must not be sent there instead.
		{name: "OPENAI_API_KEY does not replace the file's key", vars: map[string]string{"OPENAI_API_KEY": "openai-key"},
			want: LLM{URL: "file-url", Model: "file-model"}, wantKey: "file-key"},
		{name: "AIQ_API_KEY beats OPENAI_API_KEY", vars: map[string]string{"AIQ_API_KEY": "aiq-key", "OPENAI_API_KEY": "openai-key"},
			want: LLM{URL: "file-url", Model: "file-model"}, wantKey: "aiq-key"},
		{name: "empty and blank values do not override",
			vars: map[string]string{"AIQ_LLM_URL": "", "AIQ_API_KEY": " ", "OPENAI_API_KEY": "", "AIQ_MODEL": "\t"},
			want: LLM{URL: "file-url", Model: "file-model"}, wantKey: "file-key"},
		{name: "env alone", noFile: true,
			vars: map[string]string{"AIQ_LLM_URL": "env-url", "OPENAI_API_KEY": "openai-key", "AIQ_MODEL": "env-model"},
			want: LLM{URL: "env-url", Model: "env-model"}, wantKey: "openai-key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files := map[string]string{"config.yaml": file}
			if tt.noFile {
				files = nil
			}
			h := configTestHome(t, files)
			got, err := h.LoadConfig(homeTestEnv(tt.vars))
			require.NoError(t, err)
			assert.Equal(t, tt.wantKey, got.LLM.APIKey.Reveal())
			got.LLM.APIKey = ""
			assert.Equal(t, tt.want, got.LLM)
			assert.True(t, got.LLM.Configured())
		})
	}
}

func TestConfigConfigured(t *testing.T) {
	tests := []struct {
		llm  LLM
		want bool
	}{
		{LLM{URL: "u", APIKey: "k", Model: "m"}, true},
		{LLM{URL: "u", Model: "m"}, true},
		{LLM{URL: "u", APIKey: "k"}, false},
		{LLM{APIKey: "k", Model: "m"}, false},
		{LLM{}, false},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, tt.llm.Configured(), "%+v", tt.llm)
	}
}

func TestConfigMalformed(t *testing.T) {
	tests := []configErrorCase{
		{"top level is a list", "- llm\n", 1, "", "want a mapping with an llm section, found a list"},
		{"top level is the key", secretTestValue + "\n", 1, "", "want a mapping with an llm section, found a single value"},
		{"llm is text", "llm: openai\n", 1, "llm", "want a mapping of url, api_key and model, found a single value"},
		{"url is a list", "llm:\n  url: [a, b]\n", 2, "llm.url", "want a text value, found a list"},
		{"model is a mapping", "llm:\n  url: u\n  model: {name: m}\n", 3, "llm.model", "want a text value, found a mapping"},
		{"api_key is a list", "llm:\n  url: u\n  api_key: [" + secretTestValue + "]\n", 3, "llm.api_key", "want a text value, found a list"},
		{"api_key is a mapping", "llm:\n  api_key:\n    " + secretTestValue + ": x\n", 3, "llm.api_key", "want a text value, found a mapping"},
		{"api_key twice", "llm:\n  url: u\n  api_key: " + secretTestValue + "\n  api_key: " + secretTestValue + "\n", 4, "llm.api_key", "set twice, first on line 3"},
		{"llm twice", "llm:\n  url: u\nllm:\n  url: v\n", 3, "llm", "set twice, first on line 1"},
		{"unterminated quote", "llm:\n  url: u\n  api_key: \"" + secretTestValue + "\n", 3, "", "invalid YAML: found unexpected end of stream"},
		{"colon in key", "llm:\n  url: u\n  api_key: " + secretTestValue + ": x\n", 3, "", "invalid YAML: mapping values are not allowed in this context"},
		{"key looks like an alias", "llm:\n  url: u\n  api_key: *" + secretTestValue + "\n", 3, "", "invalid YAML: unknown anchor '[redacted]' referenced"},
		{"key looks like an alias, in capitals", "LLM:\n  URL: u\n  API_KEY: *" + secretTestValue + " # old key\n", 3, "", "unknown anchor '[redacted]' referenced"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := configTestHome(t, map[string]string{"config.yaml": tt.text})
			_, err := h.LoadConfig(homeTestEnv(nil))
			assertConfigError(t, err, h.ConfigPath(), tt)
		})
	}
}

func TestConfigUnreadable(t *testing.T) {
	tests := []struct {
		name string
		load func(Home) error
		path func(Home) string
	}{
		{"config", func(h Home) error { _, err := h.LoadConfig(homeTestEnv(nil)); return err }, Home.ConfigPath},
		{"sources", func(h Home) error { _, err := h.LoadSources(); return err }, Home.SourcesPath},
	}
	for _, tt := range tests {
		t.Run(tt.name+" is a folder", func(t *testing.T) {
			h := configTestHome(t, nil)
			require.NoError(t, os.Mkdir(tt.path(h), 0o700))
			err := tt.load(h)
			require.Error(t, err)
			assert.Contains(t, err.Error(), "read config "+tt.path(h)+": ")
			var ce *ConfigError
			assert.False(t, errors.As(err, &ce), "an unreadable file is not a malformed one")
		})
		t.Run(tt.name+" under a file", func(t *testing.T) {
			h := Home{Dir: t.TempDir()}
			require.NoError(t, os.WriteFile(h.ConfigDir(), nil, 0o600))
			err := tt.load(h)
			require.Error(t, err)
			assert.Contains(t, err.Error(), "read config "+tt.path(h)+": ")
		})
	}
}

func TestSourcesLoad(t *testing.T) {
	const all = `# every type
- name: prod
  type: mysql
  host: db.example.com
  port: 3306
  database: shop
  username: app
  password: hunter2-S3cret
- name: analytics
  type: PostgreSQL    # any case
  host: pg.example.com
  port: "5432"        # quoted
  database: stats
  username: reader
- {name: vectors, type: seekdb, host: localhost, port: 2881, database: test, username: root, password: ""}
- name: local
  type: sqlite
  database: /data/app.db
  comment: ignored, as are other unknown keys
  schema_budget: 20000
`
	want := []Source{
		{Name: "prod", Type: TypeMySQL, Host: "db.example.com", Port: 3306, Database: "shop", Username: "app", Password: secretTestValue},
		{Name: "analytics", Type: TypePostgreSQL, Host: "pg.example.com", Port: 5432, Database: "stats", Username: "reader"},
		{Name: "vectors", Type: TypeSeekDB, Host: "localhost", Port: 2881, Database: "test", Username: "root"},
		{Name: "local", Type: TypeSQLite, Database: "/data/app.db", SchemaBudget: 20000},
	}
	tests := []struct {
		name string
		text *string // nil: no file
		want []Source
	}{
		{name: "all types", text: configTestText(all), want: want},
		{name: "missing file"},
		{name: "empty file", text: configTestText("")},
		{name: "only comments", text: configTestText("# no sources yet\n")},
		{name: "empty list", text: configTestText("[]\n"), want: []Source{}},
		{name: "numbers as text", text: configTestText("- name: 42\n  type: mysql\n  password: 12345\n  port: ~\n"),
			want: []Source{{Name: "42", Type: TypeMySQL, Password: "12345"}}},
		{name: "policy and label", text: configTestText("- {name: a, type: mysql, access: read_only, label: production}\n- {name: b, type: mysql, access: confirm}\n"),
			want: []Source{{Name: "a", Type: TypeMySQL, Access: AccessReadOnly, Label: "production"}, {Name: "b", Type: TypeMySQL, Access: AccessConfirm}}},
		{name: "cost gate", text: configTestText("- {name: a, type: mysql, max_estimated_rows: 1_000_000}\n"),
			want: []Source{{Name: "a", Type: TypeMySQL, MaxEstimatedRows: 1000000}}},
		{name: "masks", text: configTestText("- name: a\n  type: mysql\n  mask: [customers.email, shop.customers.phone]\n  mask_pattern: '*ssn*'\n- {name: b, type: mysql, mask: orders.note, mask_pattern: ['a?c', '*card*']}\n"),
			want: []Source{{Name: "a", Type: TypeMySQL, Mask: []string{"customers.email", "shop.customers.phone"}, MaskPattern: []string{"*ssn*"}},
				{Name: "b", Type: TypeMySQL, Mask: []string{"orders.note"}, MaskPattern: []string{"a?c", "*card*"}}}},
		{name: "port forms", text: configTestText("- {name: a, type: mysql, port: 0x1F90}\n- {name: b, type: mysql, port: 65535}\n- {name: c, type: mysql, port: 1}\n"),
			want: []Source{{Name: "a", Type: TypeMySQL, Port: 8080}, {Name: "b", Type: TypeMySQL, Port: 65535}, {Name: "c", Type: TypeMySQL, Port: 1}}},
		{name: "anchors and merges", text: configTestText(`- &base
  name: a
  type: mysql
  host: h
  username: u
  password: p
- <<: *base
  name: b
- <<: [{host: x, port: 1}, *base]
  name: c
`), want: []Source{
			{Name: "a", Type: TypeMySQL, Host: "h", Username: "u", Password: "p"},
			{Name: "b", Type: TypeMySQL, Host: "h", Username: "u", Password: "p"},
			{Name: "c", Type: TypeMySQL, Host: "x", Port: 1, Username: "u", Password: "p"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files := map[string]string{}
			if tt.text != nil {
				files["sources.yaml"] = *tt.text
			}
			got, err := configTestHome(t, files).LoadSources()
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
			for i := range tt.want {
				assert.Equal(t, tt.want[i].Password.Reveal(), got[i].Password.Reveal())
			}
		})
	}
}

func TestSourcesMalformed(t *testing.T) {
	const ok = "- name: a\n  type: mysql\n" // lines 1-2
	const pw = "  password: " + secretTestValue + "\n"
	tests := []configErrorCase{
		{"top level is a mapping", "name: prod\npassword: " + secretTestValue + "\n", 1, "", "want a list of sources, found a mapping"},
		{"top level is text", secretTestValue + "\n", 1, "", "want a list of sources, found a single value"},
		{"item is a list", ok + "- [" + secretTestValue + "]\n", 3, "[1]", "want a mapping of source fields, found a list"},
		{"item is empty", ok + "-\n", 3, "[1]", "want a mapping of source fields, found nothing"},
		{"name missing", "- type: mysql\n" + pw, 1, "[0].name", "missing; every source needs a name"},
		{"name empty", ok + "- name: ''\n  type: mysql\n" + pw, 3, "[1].name", "missing; every source needs a name"},
		{"name is a list", "- name: [a]\n" + pw, 1, "[0].name", "want a text value, found a list"},
		{"name duplicated", ok + pw + "- name: b\n  type: mysql\n- name: a\n  type: postgresql\n" + pw, 6, "[2].name", `duplicate name "a", first used on line 1`},
		{"type missing", "- name: a\n  host: h\n" + pw, 1, "[0].type", "missing; want one of mysql, postgresql, seekdb or sqlite"},
		{"type unknown", "- name: a\n" + pw + "  type: oracle\n", 3, "[0].type", `want one of mysql, postgresql, seekdb or sqlite, found "oracle"`},
		{"port is a word", ok + "  port: 3306\n- name: b\n  type: mysql\n" + pw + "  port: abc\n", 7, "[1].port", `want a port number from 1 to 65535, found "abc"`},
		{"port too large", ok + pw + "  port: 70000\n", 4, "[0].port", `want a port number from 1 to 65535, found "70000"`},
		{"port zero", ok + "  port: 0\n", 3, "[0].port", `want a port number from 1 to 65535, found "0"`},
		{"port negative, quoted", ok + "  port: '-1'\n", 3, "[0].port", `want a port number from 1 to 65535, found "-1"`},
		{"port fractional", ok + "  port: 3306.5\n", 3, "[0].port", `want a port number from 1 to 65535, found "3306.5"`},
		{"port is a list", ok + "  port: [3306]\n", 3, "[0].port", "want a port number from 1 to 65535, found a list"},
		{"sqlite without database", "- name: local\n  type: sqlite\n" + pw, 1, "[0].database", "missing; a sqlite source needs the database file path"},
		{"sqlite with empty database", "- name: local\n  type: SQLite\n  database: \"\"\n", 3, "[0].database", "missing; a sqlite source needs the database file path"},
		{"schema_budget is a word", ok + "  schema_budget: big\n", 3, "[0].schema_budget", `want a number of bytes, such as 12288, found "big"`},
		{"schema_budget negative", ok + "  schema_budget: -5\n", 3, "[0].schema_budget", `want a number of bytes, such as 12288, found "-5"`},
		{"cost gate not a number", ok + "  max_estimated_rows: many\n", 3, "[0].max_estimated_rows", `want a whole number of rows above 0, found "many"`},
		{"cost gate zero", ok + "  max_estimated_rows: 0\n", 3, "[0].max_estimated_rows", `want a whole number of rows above 0, found "0"`},
		{"mask without table", ok + "  mask: [customers.email, email]\n", 3, "[0].mask[1]", `want table.column, such as customers.email, found "email"`},
		{"mask is a mapping", ok + "  mask: {a: b}\n", 3, "[0].mask", "want a text value, found a mapping"},
		{"mask_pattern bad glob", ok + "  mask_pattern:\n    - '*ssn*'\n    - '[ssn'\n", 5, "[0].mask_pattern[1]", `"[ssn" is not a pattern (syntax error in pattern); use * and ? as in *ssn*`},
		{"mask_pattern empty", ok + "  mask_pattern: ['']\n", 3, "[0].mask_pattern[0]", "want a pattern on column names, such as *ssn*, found an empty text"},
		{"access unknown", ok + "  access: readonly\n", 3, "[0].access", `"readonly" is not a policy; want read_only or confirm`},
		{"host is a mapping", ok + "  host: {a: b}\n", 3, "[0].host", "want a text value, found a mapping"},
		{"password is a list", ok + "  password: [" + secretTestValue + ", x]\n", 3, "[0].password", "want a text value, found a list"},
		{"password is a mapping", ok + "  password:\n    " + secretTestValue + ": 1\n", 4, "[0].password", "want a text value, found a mapping"},
		{"password twice", ok + pw + "  password: " + secretTestValue + "2\n", 4, "[0].password", "set twice, first on line 3"},
		{"merge of text", "- <<: " + secretTestValue + "\n  name: a\n  type: mysql\n", 1, "[0].<<", "want a mapping or a list of mappings to merge, found a single value"},
		{"merge of itself", "- &a {name: x, type: mysql, <<: *a}\n", 1, "[0].<<", "a mapping merges itself"},
		{"bad indentation", ok + " - name: b\n", 3, "", "invalid YAML: did not find expected '-' indicator"},
		{"unclosed list in password", ok + "  password: [" + secretTestValue + "\n", 3, "", "invalid YAML: did not find expected ',' or ']'"},
		{"colon in password", ok + "  password: " + secretTestValue + ": x\n", 3, "", "invalid YAML: mapping values are not allowed in this context"},
		{"password looks like an alias", ok + "  password: *" + secretTestValue + "\n", 3, "", "invalid YAML: unknown anchor '[redacted]' referenced"},
		{"password looks like a tag", ok + "- name: b\n  password: !x!" + secretTestValue + " y\n", 4, "", "invalid YAML: found undefined tag handle"},
		{"password starts with @", ok + "- name: b\n  password: @" + secretTestValue + "\n", 4, "", "invalid YAML: found character that cannot start any token"},
		{"flow item closed twice", "- {name: a, type: mysql, password: " + secretTestValue + "}}\n", 1, "", "invalid YAML: did not find expected '-' indicator"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := configTestHome(t, map[string]string{"sources.yaml": tt.text})
			got, err := h.LoadSources()
			assert.Nil(t, got)
			assertConfigError(t, err, h.SourcesPath(), tt)
		})
	}
}

func TestConfigRedactSecrets(t *testing.T) {
	tests := []struct {
		name string
		line string
		msg  string
		want string
	}{
		{"plain", "  password: abc-123", "bad 'abc-123' here", "bad '[redacted]' here"},
		{"alias", "  password: *abc-123", "unknown anchor 'abc-123' referenced", "unknown anchor '[redacted]' referenced"},
		{"quoted key, any case", `  "Password" : 'abc 123'`, "x 'abc 123' y", "x [redacted] y"},
		{"word of a value", "  api_key: one two three # note", "found two", "found [redacted]"},
		{"flow mapping", "- {name: a, password: abc-123, host: h}", "at abc-123", "at [redacted]"},
		{"too short to redact", "  password: ab", "ab c", "ab c"},
		{"other keys untouched", "  host: abc-123", "at abc-123", "at abc-123"},
		{"no colon", "  password abc-123", "at abc-123", "at abc-123"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, redactSecrets(tt.msg, []byte("a: b\n"+tt.line+"\n")))
		})
	}
}

// configTestText returns a pointer to s, for a file that exists.
func configTestText(s string) *string { return &s }
