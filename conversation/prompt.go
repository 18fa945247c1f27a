package conversation

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/aiq/aiq-rpc/sessionio"
)

// maxSkills bounds the skills added to one prompt.
const maxSkills = 3

const promptIntro = `You are AIQ, an assistant in the user's code editor. You answer questions about a SQL database by running SQL with your tools, and you explain SQL the user selects.`

const promptRules = `Rules:
- Run one statement per execute_sql call. Never put several statements in one call.
- Statements run read-only. A statement that changes data or schema runs only after the user confirms it in the editor; if the user rejects it, do not try it again, and say what you would have done.
- Write SQL in the dialect of the database above.
- The editor shows the result rows of every statement, so do not repeat whole tables: answer in a few sentences and point to the numbers that matter.
- Join tables along the foreign keys the schema shows (->); do not guess join columns.
- Before you filter on a text value you have not seen in a result, call profile_column to learn how the column writes it (case, spelling, codes).
- When the schema says that tables are not shown, call search_schema to find them; describe_table gives a table's full card (indexes, what references it).`

const promptNoDatabase = `This session has no database: answer from what you know, and say that the user can pick a data source to run SQL.`

// systemPrompt builds a turn's system prompt: who we are, the database,
// the rules, and the skills that match the question.
func (w *Workspace) systemPrompt(ctx context.Context, box *sessionToolbox, question string) string {
	var sb strings.Builder
	sb.WriteString(promptIntro)
	sb.WriteString("\n\n")
	if box == nil {
		sb.WriteString(promptNoDatabase)
	} else {
		describe := box.Describe(ctx)
		if d, ok := toolsAs[questionDescriber](box.Toolbox); ok {
			describe = d.DescribeFor(ctx, question)
		}
		sb.WriteString(strings.TrimSpace(describe))
		sb.WriteString("\n\n")
		sb.WriteString(promptRules)
	}
	skills, _ := w.cfg.Home.LoadSkills() // a broken skill must not stop a turn
	for _, s := range matchSkills(skills, question, maxSkills) {
		fmt.Fprintf(&sb, "\n\nSkill %q (%s):\n%s", s.Name, s.Description, s.Body)
	}
	return sb.String()
}

// matchSkills picks the skills whose name or description shares a word with
// the question, the most shared words first.
func matchSkills(skills []sessionio.Skill, question string, n int) []sessionio.Skill {
	asked := words(question)
	type scored struct {
		skill sessionio.Skill
		score int
	}
	var found []scored
	for _, s := range skills {
		score := 0
		for w := range words(s.Name + " " + s.Description) {
			if asked[w] {
				score++
			}
		}
		if score > 0 {
			found = append(found, scored{s, score})
		}
	}
	slices.SortStableFunc(found, func(a, b scored) int { return b.score - a.score })
	var out []sessionio.Skill
	for i := 0; i < len(found) && i < n; i++ {
		out = append(out, found[i].skill)
	}
	return out
}

// words are the lower-case words of text of three letters or more, so that
// "a" and "of" match nothing.
func words(text string) map[string]bool {
	set := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}) {
		if len(w) >= 3 && !isStopWord(w) {
			set[w] = true
		}
	}
	return set
}

// isStopWord reports whether w is so common that it would make every
// skill match.
func isStopWord(w string) bool {
	switch w {
	case "the", "and", "for", "with", "what", "how", "are", "from", "this", "that", "when", "which", "who", "use":
		return true
	}
	return false
}
