package acp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/aiq/aiq-rpc/conversation"
)

// cardID is the id the client is shown for a tool call: the call's own id
// the first time the session uses it, else the id with a suffix. Zed and
// others look a tool call up across the whole thread, so a model that
// reuses its ids (or gives none, and gets the same ones every turn) and a
// session file that holds the same id twice would overwrite earlier
// cards.
func (s *session) cardID(callID string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.usedIDs == nil {
		s.usedIDs = map[string]bool{}
	}
	id := callID
	for n := 2; s.usedIDs[id]; n++ {
		id = fmt.Sprintf("%s#%d", callID, n)
	}
	s.usedIDs[id] = true
	return id
}

// sqlTitle is a tool call's title for a statement: its kind and the tables
// it names, "SELECT from orders, customers", "DELETE from orders",
// "UPDATE orders"; the first line of the SQL when no table is found.
func sqlTitle(sql string) string {
	words := sqlWords(sql)
	if len(words) == 0 {
		return "Run SQL"
	}
	verb := strings.ToUpper(words[0])
	var tables []string
	seen := map[string]bool{}
	for i := 0; i+1 < len(words); i++ {
		switch strings.ToUpper(words[i]) {
		case "FROM", "JOIN", "INTO", "UPDATE", "TABLE":
			t := words[i+1]
			if t == "(" || isKeyword(t) || seen[strings.ToLower(t)] {
				continue
			}
			seen[strings.ToLower(t)] = true
			tables = append(tables, t)
		}
	}
	if len(tables) == 0 {
		return firstLine(sql, "Run SQL")
	}
	list := strings.Join(tables[:min(len(tables), 4)], ", ")
	if len(tables) > 4 {
		list += ", …"
	}
	switch verb {
	case "UPDATE":
		return "UPDATE " + list
	case "INSERT":
		return "INSERT into " + list
	case "SELECT", "WITH", "DELETE":
		return verb + " from " + list
	}
	return verb + " " + list
}

func isKeyword(w string) bool {
	switch strings.ToUpper(w) {
	case "SELECT", "LATERAL", "ONLY", "IF", "NOT", "EXISTS", "WHERE", "VALUES":
		return true
	}
	return false
}

// sqlWords splits SQL into its words (names with their dots and quotes)
// and "(", leaving out comments and string literals.
func sqlWords(sql string) []string {
	var words []string
	var cur strings.Builder
	flush := func() {
		if cur.Len() > 0 {
			words = append(words, cur.String())
			cur.Reset()
		}
	}
	for i := 0; i < len(sql); i++ {
		c := sql[i]
		switch {
		case c == '-' && i+1 < len(sql) && sql[i+1] == '-':
			flush()
			for i < len(sql) && sql[i] != '\n' {
				i++
			}
		case c == '/' && i+1 < len(sql) && sql[i+1] == '*':
			flush()
			end := strings.Index(sql[i+2:], "*/")
			if end < 0 {
				return words
			}
			i += end + 3
		case c == '\'':
			flush()
			for i++; i < len(sql) && sql[i] != '\''; i++ {
			}
		case c == '"' || c == '`':
			end := strings.IndexByte(sql[i+1:], c)
			if end < 0 {
				end = len(sql) - i - 1
			}
			cur.WriteString(sql[i : i+end+2])
			i += end + 1
		case c == '(':
			flush()
			words = append(words, "(")
		case c == '.' || c == '_' || c == '$' || c > unicode.MaxASCII || 'a' <= c|0x20 && c|0x20 <= 'z' || '0' <= c && c <= '9':
			cur.WriteByte(c)
		default:
			flush()
		}
	}
	flush()
	return words
}

// cardContent is what a finished tool call shows: for SQL, the statement
// in a fenced sql block, then its table, row count or error; for a chart,
// its data; for another tool, what it returned.
func (u *updates) cardContent(e conversation.Event) string {
	switch {
	case e.Statement != nil:
		return conversation.Fenced(e.Statement.SQL, "sql") + "\n\n" + statementMarkdown(*e.Statement)
	case u.charts[e.CallID] != "":
		content := u.charts[e.CallID]
		delete(u.charts, e.CallID)
		return content
	}
	return toolOutput(e.Summary, e.Output)
}

// maxOutput bounds the output of a tool shown in its card.
const maxOutput = 8 << 10

// toolOutput shows a tool's result (list_tables, describe_table, ...): its
// one-line summary, then what it returned as indented JSON.
func toolOutput(summary, output string) string {
	if strings.TrimSpace(output) == "" {
		return summary
	}
	var buf bytes.Buffer
	if json.Indent(&buf, []byte(output), "", "  ") != nil {
		buf.Reset()
		buf.WriteString(output)
	}
	text := buf.String()
	if len(text) > maxOutput {
		text = text[:maxOutput] + "\n…"
	}
	fenced := conversation.Fenced(text, "json")
	if summary == "" {
		return fenced
	}
	return summary + "\n\n" + fenced
}

// sayOutcome ends a turn that ran statements without saying anything (no
// model: the statement ran directly) with a line about the last one, so
// that a client that shows only messages shows the answer too.
func (u *updates) sayOutcome(ans conversation.Answer) {
	if u.said || strings.TrimSpace(ans.Answer) != "" || len(ans.Statements) == 0 {
		return
	}
	u.a.say(u.s.id, statementLine(ans.Statements[len(ans.Statements)-1]))
}

// statementLine is a statement's outcome in one line.
func statementLine(st conversation.Statement) string {
	switch {
	case st.Status != "success":
		return statusWord(st.Status) + ": " + withoutStatus(st.Error, st.Status)
	case len(st.Columns) == 0:
		return fmt.Sprintf("Done: %s affected.", plural(st.RowCount, "row"))
	}
	return fmt.Sprintf("The statement returned %s.", plural(st.RowCount, "row"))
}

func plural(n int64, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// maxTitle bounds a session's title, in characters.
const maxTitle = 60

// announceTitle names the session after its first question, for the
// clients that list sessions by title.
func (a *Agent) announceTitle(s *session, q conversation.Question) {
	title := firstLine(q.Query, "")
	if title == "" && len(q.Attached) > 0 {
		title = firstLine(q.Attached[0].Text, "")
	}
	if title == "" {
		return
	}
	if r := []rune(title); len(r) > maxTitle {
		title = strings.TrimSpace(string(r[:maxTitle-1])) + "…"
	}
	a.notify(s.id, sdk.SessionUpdate{SessionInfoUpdate: &sdk.SessionSessionInfoUpdate{SessionUpdate: "session_info_update", Title: &title}})
}
