package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/aiq/aiq-rpc/tools/engine"
	"github.com/aiq/aiq-rpc/tools/sqltext"
)

// maxPlanText bounds the plan text the model reads; largeTable is the
// row estimate above which a full scan is called out.
const (
	maxPlanText = 3000
	largeTable  = 100_000
)

// Plan is explain_sql's result: the engine's plan of a statement that did
// not run, summarised.
type Plan struct {
	SQL string `json:"sql"`
	// Refused says why the statement was not explained; the rest is then
	// empty.
	Refused string `json:"refused,omitempty"`
	Error   string `json:"error,omitempty"`
	// EstimatedRows and Cost are the top of the plan, where the engine
	// gives them.
	EstimatedRows *float64   `json:"estimated_rows,omitempty"`
	Cost          *float64   `json:"cost,omitempty"`
	FullScans     []FullScan `json:"full_scans,omitempty"`
	Text          string     `json:"plan,omitempty"`
	summary       string
}

// FullScan is a table the plan reads whole.
type FullScan struct {
	Table string `json:"table"`
	// Rows is the planner's estimate, or else the catalog's; -1 unknown.
	Rows  int64 `json:"rows"`
	Large bool  `json:"large,omitempty"`
}

// Summary says what the plan does, in one line for the editor.
func (p *Plan) Summary() string { return p.summary }

// explainable reports whether explain_sql plans a statement of this
// kind: queries and data changes, which EXPLAIN plans without running.
func explainable(kind string) bool {
	switch strings.ToUpper(kind) {
	case "SELECT", "WITH", "VALUES", "TABLE", "INSERT", "UPDATE", "DELETE", "REPLACE", "MERGE":
		return true
	}
	return false
}

// explainSQL returns the plan of a statement without running it: EXPLAIN
// (EXPLAIN QUERY PLAN on SQLite), never ANALYZE, inside the read-only
// transaction and under the statement timeout as any read.
func (s *Set) explainSQL(ctx context.Context, args json.RawMessage) (any, error) {
	var a struct {
		SQL string `json:"sql"`
	}
	if err := decodeArgs(ToolExplainSQL, args, &a); err != nil {
		return nil, err
	}
	sql := strings.TrimSpace(a.SQL)
	if sql == "" {
		return nil, errors.New("explain_sql needs the sql argument: one SQL statement to plan")
	}
	d := s.db.Dialect()
	p := &Plan{SQL: sql}
	refuse := func(why string) (any, error) {
		p.Refused = "not explained: " + why
		p.summary = p.Refused
		return p, nil
	}
	v, err := sqltext.Classify(sql, d)
	if err != nil {
		return refuse(err.Error())
	}
	first, _, _ := strings.Cut(v.Kind, " ")
	if !explainable(first) {
		return refuse("explain_sql plans one query or data change (SELECT, INSERT, UPDATE, DELETE, ...), and this is " + v.Kind + "; pass the statement itself, without EXPLAIN")
	}
	if v.Outside {
		return refuse(strings.TrimSpace(v.Reason) + " Even planning it is left to the user.")
	}
	prefix := "EXPLAIN "
	if d == sqltext.DialectSQLite {
		prefix = "EXPLAIN QUERY PLAN "
	}
	full := prefix + sql
	// The whole must read as a plain EXPLAIN: never one that runs the
	// statement, whatever the model's text holds.
	if fv, err := sqltext.Classify(full, d); err != nil || fv.Class != sqltext.ReadOnly || strings.Contains(fv.Kind, "ANALYZE") {
		why := "the statement could not be planned without running it"
		if err == nil && fv.Reason != "" {
			why = fv.Reason
		}
		return refuse(why)
	}
	res := s.db.Run(ctx, full, false)
	if res.ReadOnlyRefused && v.Class == sqltext.Write && s.db.ExplainsRolledBack() {
		res = s.db.ExplainRolledBack(ctx, full)
	}
	if res.Status != engine.StatusSuccess {
		p.Error = res.Error
		p.summary = "plan failed: " + engine.CutText(res.Error, 160)
		return p, nil
	}
	schema, _ := s.db.Schema(ctx) // for the row estimates of full scans; may be nil
	switch d {
	case sqltext.DialectPostgres:
		pgPlan(p, res)
	case sqltext.DialectMySQL:
		mysqlPlan(p, res)
	default:
		sqlitePlan(p, res)
	}
	for i := range p.FullScans {
		fs := &p.FullScans[i]
		if fs.Rows < 0 && schema != nil {
			if t, ok := schema.Lookup(fs.Table); ok {
				fs.Rows = t.Rows
			}
		}
		fs.Large = fs.Rows >= largeTable
	}
	if p.Text == "" {
		p.Text = "(the engine gives no plan steps: the statement reads no table)"
	}
	p.Text = cutPlan(p.Text)
	p.summary = planSummary(p)
	return p, nil
}

// cutPlan bounds the plan text on a line boundary.
func cutPlan(text string) string {
	if len(text) <= maxPlanText {
		return text
	}
	cut := strings.LastIndexByte(text[:maxPlanText], '\n')
	if cut < 0 {
		cut = maxPlanText
	}
	return text[:cut] + "\n… (plan cut)"
}

// pgPlanLine reads a node of PostgreSQL's text plan: its name, total cost
// and rows.
var pgPlanLine = regexp.MustCompile(`^\s*(?:->\s*)?(.+?)\s+\(cost=[\d.]+\.\.([\d.]+) rows=(\d+) width=\d+\)`)

// pgSeqScan finds the table of a sequential scan.
var pgSeqScan = regexp.MustCompile(`(?:Parallel )?Seq Scan on (\S+)`)

func pgPlan(p *Plan, res *engine.StatementResult) {
	var lines []string
	for _, r := range res.Rows {
		if len(r) > 0 {
			lines = append(lines, fmt.Sprint(r[0]))
		}
	}
	p.Text = strings.Join(lines, "\n")
	for i, line := range lines {
		m := pgPlanLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		rows, _ := strconv.ParseFloat(m[3], 64)
		if i == 0 {
			cost, _ := strconv.ParseFloat(m[2], 64)
			p.Cost, p.EstimatedRows = &cost, &rows
		}
		if scan := pgSeqScan.FindStringSubmatch(m[1]); scan != nil {
			p.FullScans = append(p.FullScans, FullScan{Table: scan[1], Rows: int64(rows)})
		}
	}
}

func mysqlPlan(p *Plan, res *engine.StatementResult) {
	col := map[string]int{}
	for i, c := range res.Columns {
		col[strings.ToLower(c)] = i
	}
	get := func(r []any, name string) string {
		i, ok := col[name]
		if !ok || i >= len(r) || r[i] == nil {
			return ""
		}
		return fmt.Sprint(r[i])
	}
	var lines []string
	var top float64 = -1
	for _, r := range res.Rows {
		table, access, key, rows, extra := get(r, "table"), get(r, "type"), get(r, "key"), get(r, "rows"), get(r, "extra")
		line := fmt.Sprintf("%s %s on %s", get(r, "select_type"), access, table)
		if key != "" {
			line += " using " + key
		}
		if rows != "" {
			line += " rows=" + rows
		}
		if extra != "" {
			line += " (" + extra + ")"
		}
		lines = append(lines, line)
		n, err := strconv.ParseFloat(rows, 64)
		if err == nil && n > top {
			top = n
		}
		if strings.EqualFold(access, "ALL") && table != "" {
			est := int64(-1)
			if err == nil {
				est = int64(n)
			}
			p.FullScans = append(p.FullScans, FullScan{Table: table, Rows: est})
		}
	}
	if top >= 0 {
		p.EstimatedRows = &top
	}
	p.Text = strings.Join(lines, "\n")
}

func sqlitePlan(p *Plan, res *engine.StatementResult) {
	// Rows are id, parent, notused, detail; a node's depth is its
	// parent's plus one.
	depth := map[int64]int{}
	var lines []string
	for _, r := range res.Rows {
		if len(r) < 4 {
			continue
		}
		id, parent := count(r[0]), count(r[1])
		depth[id] = depth[parent] + 1
		detail := fmt.Sprint(r[3])
		lines = append(lines, strings.Repeat("  ", depth[id]-1)+detail)
		if rest, ok := strings.CutPrefix(detail, "SCAN "); ok {
			rest = strings.TrimPrefix(rest, "TABLE ")
			table, _, _ := strings.Cut(rest, " ")
			p.FullScans = append(p.FullScans, FullScan{Table: engine.UnquoteIdent(table), Rows: -1})
		}
	}
	p.Text = strings.Join(lines, "\n")
}

// planSummary is the plan in one line: "plan: seq scan on orders, ~1.2M
// rows".
func planSummary(p *Plan) string {
	first, _, _ := strings.Cut(p.Text, "\n")
	if m := pgPlanLine.FindStringSubmatch(first); m != nil {
		first = m[1]
	}
	first = strings.ToLower(strings.TrimSpace(first))
	var parts []string
	if first != "" {
		parts = append(parts, engine.CutText(first, 80))
	}
	if p.EstimatedRows != nil {
		parts = append(parts, engine.FormatRows(int64(*p.EstimatedRows), false))
	}
	for _, fs := range p.FullScans {
		if fs.Large {
			parts = append(parts, "full scan of "+fs.Table+" ("+engine.FormatRows(fs.Rows, false)+")")
		}
	}
	return "plan: " + strings.Join(parts, ", ")
}
