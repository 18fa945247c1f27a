package conversation

import (
	"net/url"
	"path"
	"strings"
)

// blocks are the question's selection and attached texts that hold some
// text, in order.
func (q Question) blocks() []Selection {
	var blocks []Selection
	if q.Selection != nil {
		blocks = append(blocks, *q.Selection)
	}
	blocks = append(blocks, q.Attached...)
	kept := blocks[:0]
	for _, b := range blocks {
		if strings.TrimSpace(b.Text) != "" {
			kept = append(kept, b)
		}
	}
	return kept
}

func (s Selection) fenced() string { return Fenced(s.Text, s.language()) }

// Fenced puts text in a Markdown code block tagged with lang, the fence
// longer than any run of backticks inside.
func Fenced(text, lang string) string {
	text = strings.TrimRight(text, "\n")
	fence := "```"
	for strings.Contains(text, fence) {
		fence += "`"
	}
	return fence + lang + "\n" + text + "\n" + fence
}

// language is the selection's language id, or else the one its URI's file
// extension suggests, or "" when neither says.
func (s Selection) language() string {
	if s.LanguageID != "" {
		return s.LanguageID
	}
	name := s.URI
	if u, err := url.Parse(s.URI); err == nil && u.Path != "" {
		name = u.Path
	}
	return languageOfExt(strings.ToLower(path.Ext(name)))
}

// languageOfExt maps a file extension to the language id editors use (the
// LSP one), for the files a database user is likely to attach.
func languageOfExt(ext string) string {
	switch ext {
	case ".sql", ".psql", ".pgsql", ".mysql", ".ddl":
		return "sql"
	case ".py":
		return "python"
	case ".go", ".java", ".php", ".lua", ".r", ".json", ".yaml", ".toml", ".xml", ".csv", ".html", ".c":
		return ext[1:]
	case ".js", ".mjs":
		return "javascript"
	case ".ts":
		return "typescript"
	case ".rb":
		return "ruby"
	case ".rs":
		return "rust"
	case ".cs":
		return "csharp"
	case ".cpp", ".cc", ".h":
		return "cpp"
	case ".sh", ".bash":
		return "shellscript"
	case ".yml":
		return "yaml"
	case ".md":
		return "markdown"
	}
	return ""
}
