package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/aiq/aiq-rpc/tools/engine"
	"github.com/aiq/aiq-rpc/tools/guard"
	"github.com/aiq/aiq-rpc/tools/sqltext"
)

// The names of the tools of a Set.
const (
	ToolExecuteSQL    = "execute_sql"
	ToolListTables    = "list_tables"
	ToolDescribeTable = "describe_table"
	ToolRenderChart   = "render_chart"
	ToolSearchSchema  = "search_schema"
	ToolProfileColumn = "profile_column"
	ToolExplainSQL    = "explain_sql"
)

// The decisions.
const (
	AllowOnce   guard.Decision = "allow_once"   // run this statement
	AllowAlways guard.Decision = "allow_always" // run it, and later statements of its shape (ConfirmRequest.Scope) without asking
	Reject      guard.Decision = "reject"       // do not run it
)

// Spec describes a tool to the model.
type Spec struct {
	Name        string
	Description string
	Parameters  json.RawMessage // a JSON Schema object
}

// Set is the tools the model may call on one DB during one chat session:
// execute_sql, list_tables, describe_table, render_chart, and the schema
// tools search_schema, profile_column and explain_sql (schematools.go,
// profile.go, explain.go). It remembers
// an allow_always answer and the last successful result (for
// render_chart) for its whole life, so make one Set per chat session.
//
// A Set serves one turn at a time: its methods are safe to call from any
// goroutine, and its state is guarded, but when calls overlap, which of
// their results render_chart draws is whichever finished last.
type Set struct {
	db      *engine.DB
	confirm guard.Confirmer

	mu      sync.Mutex
	allowed guard.Allowances        // the user's allow_always answers
	mask    *guard.Masker           // the source's masked columns, or nil
	last    *engine.StatementResult // the last successful execute_sql result
}

// NewSet returns the tools of db. confirm asks the user about each write;
// when it is nil, every write is rejected.
func NewSet(db *engine.DB, confirm guard.Confirmer) *Set {
	return &Set{db: db, confirm: confirm, mask: guard.NewMasker(db.Source())}
}

// Specs returns the descriptions of the tools, for the model.
func (s *Set) Specs() []Spec {
	return []Spec{
		{
			Name: ToolExecuteSQL,
			Description: fmt.Sprintf("Run one SQL statement (%s dialect) on the user's database and return its rows. "+
				"Statements that only read run at once. A statement that changes data or schema runs only if the user "+
				"confirms it in the editor; if the user declines, do not retry it. Only the first rows that fit in "+
				"about %d bytes are returned (row_count counts them all), so aggregate and use LIMIT.",
				s.db.Dialect(), s.db.Opts.ModelBytes),
			Parameters: json.RawMessage(`{"type":"object","properties":{"sql":{"type":"string","description":"One SQL statement."}},"required":["sql"]}`),
		},
		{
			Name:        ToolListTables,
			Description: "List the names of the tables and views of the database.",
			Parameters:  json.RawMessage(`{"type":"object","properties":{}}`),
		},
		{
			Name: ToolDescribeTable,
			Description: "Describe tables or views in full: columns and types, primary and unique keys, foreign keys both ways " +
				"(what it references and what references it), indexes, allowed values, comments and a row estimate. " +
				"Give table for one, or tables for up to 20 at once; a pattern of shards (events_YYYYMMDD) lists its tables.",
			Parameters: json.RawMessage(`{"type":"object","properties":{` +
				`"table":{"type":"string","description":"A table's name, or schema.name."},` +
				`"tables":{"type":"array","items":{"type":"string"},"maxItems":20,"description":"Several tables' names."}}}`),
		},
		{
			Name: ToolRenderChart,
			Description: "Show the user a chart of the last successful execute_sql result: x names the column of labels " +
				"(of x values for scatter), y the column of numbers.",
			Parameters: json.RawMessage(`{"type":"object","properties":{` +
				`"chart_type":{"type":"string","enum":["bar","line","pie","scatter"]},` +
				`"x":{"type":"string","description":"A column of the last result."},` +
				`"y":{"type":"string","description":"A numeric column of the last result."},` +
				`"title":{"type":"string"}},"required":["chart_type","x","y"]}`),
		},
		{
			Name: ToolSearchSchema,
			Description: "Find the tables and columns whose names or comments match words (any case, plurals folded, " +
				"or a part of a name): up to 20 tables within 8 KiB, a name that is the query or starts with it first, " +
				"then those matching more and rarer words, a set of shards as one; wide cards are cut. Use it when the " +
				"schema in the prompt says tables are not shown.",
			Parameters: json.RawMessage(`{"type":"object","properties":{"query":{"type":"string","description":"Words to find, such as \"invoice supplier\"."}},"required":["query"]}`),
		},
		{
			Name: ToolProfileColumn,
			Description: "Profile a column's values before filtering on them: distinct count, null fraction, min, max and the " +
				"10 most common values with their counts, so that a WHERE clause uses a value as the data writes it. " +
				"On a table of over a million rows it reads a sample, and says so.",
			Parameters: json.RawMessage(`{"type":"object","properties":{"table":{"type":"string"},"column":{"type":"string"}},"required":["table","column"]}`),
		},
		{
			Name: ToolExplainSQL,
			Description: "Show the engine's plan of one statement without running it (EXPLAIN, never ANALYZE): estimated " +
				"rows and cost where the engine gives them, full scans of large tables, and the plan text. Safe for a write, " +
				"which is only planned.",
			Parameters: json.RawMessage(`{"type":"object","properties":{"sql":{"type":"string","description":"One SQL statement, without EXPLAIN."}},"required":["sql"]}`),
		},
	}
}

// Run runs the tool name with the model's arguments, a JSON object. A
// statement that fails is a result (execute_sql returns a
// *StatementResult whose Status says so); an error is for arguments the
// tool cannot use, an unknown tool, or a schema that cannot be read.
func (s *Set) Run(ctx context.Context, name string, args json.RawMessage) (any, error) {
	switch name {
	case ToolExecuteSQL:
		return s.executeSQL(ctx, args)
	case ToolListTables:
		return s.listTables(ctx)
	case ToolDescribeTable:
		return s.describeTables(ctx, args)
	case ToolRenderChart:
		return s.renderChart(args)
	case ToolSearchSchema:
		return s.searchSchema(ctx, args)
	case ToolProfileColumn:
		return s.profileColumn(ctx, args)
	case ToolExplainSQL:
		return s.explainSQL(ctx, args)
	}
	return nil, fmt.Errorf("unknown tool %q; the tools are %s, %s, %s, %s, %s, %s and %s",
		name, ToolExecuteSQL, ToolListTables, ToolDescribeTable, ToolRenderChart, ToolSearchSchema, ToolProfileColumn, ToolExplainSQL)
}

// decodeArgs reads the model's arguments into v. Missing or null
// arguments are an empty object; unknown keys are ignored.
func decodeArgs(tool string, args json.RawMessage, v any) error {
	if len(bytes.TrimSpace(args)) == 0 {
		return nil
	}
	if err := json.Unmarshal(args, v); err != nil {
		return fmt.Errorf("%s: the arguments are not the JSON object the tool takes: %w", tool, err)
	}
	return nil
}

// executeSQL runs a statement: a read at once, a write once confirmed. The
// Set classifies the statement itself: the model's opinion of its risk
// counts for nothing.
func (s *Set) executeSQL(ctx context.Context, args json.RawMessage) (any, error) {
	var a struct {
		SQL string `json:"sql"`
	}
	if err := decodeArgs(ToolExecuteSQL, args, &a); err != nil {
		return nil, err
	}
	if strings.TrimSpace(a.SQL) == "" {
		return nil, errors.New("execute_sql needs the sql argument: one SQL statement")
	}
	if res := s.refuseStatistics(a.SQL); res != nil {
		return res, nil
	}
	var res *engine.StatementResult
	v, err := sqltext.Classify(a.SQL, s.db.Dialect())
	if guard.HasToken(a.SQL) {
		if ctx, res = s.bindTokens(ctx, a.SQL, err); res != nil {
			return res, nil
		}
	}
	switch {
	case err == nil && v.Class == sqltext.Write:
		res = s.confirmAndRun(ctx, guard.ConfirmRequest{Tool: ToolExecuteSQL, SQL: a.SQL, Risk: riskOf(v), Reason: v.Reason})
	case err == nil:
		// Only what the classifier read as one read reaches the engine's
		// EXPLAIN: SQLite's driver runs every statement of a string, so
		// "SELECT 1; PRAGMA query_only = 0; DELETE ..." must never get
		// there. Run refuses what the classifier refused.
		res = s.costGate(ctx, a.SQL)
	}
	if res == nil {
		res = s.db.Run(ctx, a.SQL, false)
		if res.ReadOnlyRefused {
			// The classifier missed a write that the database caught:
			// the user decides, as for any write.
			res = s.confirmAndRun(ctx, guard.ConfirmRequest{Tool: ToolExecuteSQL, SQL: a.SQL, Risk: "write",
				Reason: "the database refused it as a write in read-only mode"})
		}
	}
	if res.Status == engine.StatusSuccess {
		s.mu.Lock()
		s.last = res
		s.mu.Unlock()
	}
	return res, nil
}

// riskOf returns "ddl" for a statement that changes the schema or the
// privileges, "outside" for one that only reaches outside the database,
// else "write".
func riskOf(v sqltext.Verdict) string {
	if v.Outside {
		return "outside"
	}
	first, _, _ := strings.Cut(strings.TrimSpace(v.Kind), " ")
	switch strings.ToUpper(first) {
	case "CREATE", "ALTER", "DROP", "TRUNCATE", "RENAME", "COMMENT", "GRANT", "REVOKE":
		return "ddl"
	}
	return "write"
}

// confirmAndRun asks the user about a write, unless an allowance covers
// its shape and its dry run counts no more rows than the allowance's bound,
// and runs it when allowed.
func (s *Set) confirmAndRun(ctx context.Context, req guard.ConfirmRequest) *engine.StatementResult {
	if res := s.readOnly(req); res != nil {
		return res
	}
	req.Label = s.db.Source().Label
	shape, scoped := sqltext.StatementShape(req.SQL, s.db.Dialect())
	scoped = scoped && !s.db.Source().IsProduction() // production asks every time
	var al guard.Allowance
	covered := false
	if scoped {
		s.mu.Lock()
		al, covered = s.allowed.Covering(shape)
		s.mu.Unlock()
	}
	if s.confirm != nil || covered {
		s.dryRun(ctx, &req)
	}
	allowed := covered && guard.WithinAllowance(req, al)
	if !allowed {
		if covered {
			req.Beyond = guard.BeyondAllowance(req, al)
		}
		if scoped {
			req.Scope = guard.ScopeOf(shape, guard.AllowanceBound(req))
		}
		if res := s.ask(ctx, req, shape); res != nil {
			return res
		}
	}
	res := s.runWrite(ctx, req, allowed, al)
	if allowed && res.OverLimit > 0 {
		// Its trial run was within the allowance, its run was not: the
		// rows it changes depend on when or where it runs. Rolled back,
		// it asks, with the rows it changed.
		n := res.OverLimit
		req.AffectedRows, req.Cascade = &n, nil
		req.Beyond = fmt.Sprintf("It changed %s rows when it ran, more than the %s that \"%s\" covers, so its changes were rolled back.",
			guard.GroupThousands(n), guard.GroupThousands(al.MaxRows), strings.TrimSuffix(al.Scope, ", for this conversation"))
		req.Scope = ""
		if r := s.ask(ctx, req, shape); r != nil {
			return r
		}
		allowed = false
		res = s.runWrite(ctx, req, false, al)
	}
	if res.Status == engine.StatusSuccess {
		// DDL changes the schema; so may a write through a function. The
		// cache is read again only when next needed.
		s.db.RefreshSchema()
	}
	return res
}

// runWrite runs the write of req; under the allowance al, it commits only
// when it changed no more rows than al covers.
func (s *Set) runWrite(ctx context.Context, req guard.ConfirmRequest, allowed bool, al guard.Allowance) *engine.StatementResult {
	if !allowed {
		return s.db.Run(ctx, req.SQL, true)
	}
	res := s.db.Run(engine.WithRowLimit(ctx, al.MaxRows), req.SQL, true)
	res.AllowedBy = al.Scope
	return res
}

// ask gets the user's decision. It returns nil when the write may run,
// else the result that says why it did not: one sentence for the user,
// and for the model what to do next.
func (s *Set) ask(ctx context.Context, req guard.ConfirmRequest, shape sqltext.Shape) *engine.StatementResult {
	if s.confirm == nil {
		if req.Risk == "outside" {
			return s.refused(req.SQL, engine.StatusRejected,
				"This statement reaches outside the database, which no one can confirm here, so it did not run.",
				"not run: it needs the user's confirmation ("+strings.TrimSuffix(req.Reason, ".")+"), and no one can confirm it here; do not retry it")
		}
		return s.refused(req.SQL, engine.StatusRejected,
			"This statement writes to the database, and writes are turned off here, so it did not run.",
			"not run: this statement can change the database, and writes are turned off here because no one can confirm them; do not retry it")
	}
	req.Masked = guard.BoundValues(ctx, req.SQL)
	d, err := s.confirm(ctx, req)
	switch {
	case ctx.Err() != nil:
		return s.refused(req.SQL, engine.StatusCancelled,
			"Cancelled before it was confirmed; the statement did not run.",
			"cancelled while waiting for the user's confirmation; the statement did not run")
	case err != nil:
		return s.refused(req.SQL, engine.StatusRejected,
			req.What()+", and it could not be confirmed here, so it did not run.",
			"not run: the user's confirmation could not be asked ("+err.Error()+")")
	case d == AllowOnce:
		return nil
	case d == AllowAlways:
		if req.Scope != "" { // else it was never offered: once it is
			s.mu.Lock()
			s.allowed.Add(shape, guard.AllowanceBound(req))
			s.mu.Unlock()
		}
		return nil
	}
	// Reject, or an answer that is not a decision: either way, no.
	return s.refused(req.SQL, engine.StatusRejected, "You declined this statement, so it did not run.",
		"not run: the user declined this statement. Do not retry it or the same change in another form; ask the user what they want instead")
}

// refused returns a statement that did not run: user is the sentence the
// editor shows, model what the model reads.
func (s *Set) refused(sql, status, user, model string) *engine.StatementResult {
	res := s.db.Failed(sql, status, user)
	res.ForModel = model
	return res
}

// listTables returns {"tables": [names]}.
func (s *Set) listTables(ctx context.Context) (any, error) {
	schema, err := s.db.Schema(ctx)
	if err != nil {
		return nil, err
	}
	return &TableList{Tables: schema.Names()}, nil
}

// Chart is a chart for the editor to draw, made by render_chart from the
// last successful execute_sql result.
type Chart struct {
	ChartType string `json:"chartType"` // bar, line, pie or scatter
	X         string `json:"x"`
	Y         string `json:"y"`
	Title     string `json:"title,omitempty"`
	// Labels and Values are the x and y columns, for bar, line and pie.
	Labels []string  `json:"labels,omitempty"`
	Values []float64 `json:"values,omitempty"`
	// Points are the (x, y) pairs, for scatter.
	Points []Point `json:"points,omitempty"`
	// Skipped counts the rows left out because y (or x, for scatter) was
	// null.
	Skipped int `json:"skipped,omitempty"`
	// Truncated says that the result had more rows than the editor keeps,
	// so the chart shows the first ones only.
	Truncated bool `json:"truncated,omitempty"`
}

// Point is one point of a scatter chart.
type Point struct {
	X float64 `json:"x"`
	Y float64 `json:"y"`
}

// renderChart makes a Chart of the last successful result.
func (s *Set) renderChart(args json.RawMessage) (any, error) {
	var a struct {
		ChartType string `json:"chart_type"`
		X         string `json:"x"`
		Y         string `json:"y"`
		Title     string `json:"title"`
	}
	if err := decodeArgs(ToolRenderChart, args, &a); err != nil {
		return nil, err
	}
	if !slices.Contains([]string{"bar", "line", "pie", "scatter"}, a.ChartType) {
		return nil, fmt.Errorf("render_chart: chart_type %q is not one of bar, line, pie or scatter", a.ChartType)
	}
	s.mu.Lock()
	last := s.last
	s.mu.Unlock()
	if last == nil || len(last.Columns) == 0 {
		return nil, errors.New("render_chart draws the last successful execute_sql result that has columns, and there is none yet; run a query first")
	}
	xi, err := columnIndex(last.Columns, "x", a.X)
	if err != nil {
		return nil, err
	}
	yi, err := columnIndex(last.Columns, "y", a.Y)
	if err != nil {
		return nil, err
	}
	c := &Chart{ChartType: a.ChartType, X: last.Columns[xi], Y: last.Columns[yi], Title: a.Title, Truncated: last.Truncated}
	if err := c.fill(last.Rows, xi, yi); err != nil {
		return nil, err
	}
	masked := s.mask.MaskedColumns(last.SQL, last.Columns)
	return maskChart(s.mask, c, masked[xi], masked[yi])
}

// columnIndex finds the column of that name: exactly, else regardless of
// case when that is unique.
func columnIndex(columns []string, arg, name string) (int, error) {
	if i := slices.Index(columns, name); i >= 0 {
		return i, nil
	}
	found := -1
	for i, c := range columns {
		if strings.EqualFold(c, name) {
			if found >= 0 {
				found = -2
				break
			}
			found = i
		}
	}
	if found >= 0 {
		return found, nil
	}
	return 0, fmt.Errorf("render_chart: %s %q is not a column of the last result; its columns are %s", arg, name, strings.Join(columns, ", "))
}

// fill sets the chart's data from the rows.
func (c *Chart) fill(rows [][]any, xi, yi int) error {
	for n, row := range rows {
		if row[yi] == nil || (c.ChartType == "scatter" && row[xi] == nil) {
			c.Skipped++
			continue
		}
		y, err := chartNumber(row[yi], c.Y, n)
		if err != nil {
			return err
		}
		if c.ChartType != "scatter" {
			c.Labels = append(c.Labels, chartLabel(row[xi]))
			c.Values = append(c.Values, y)
			continue
		}
		x, err := chartNumber(row[xi], c.X, n)
		if err != nil {
			return err
		}
		c.Points = append(c.Points, Point{X: x, Y: y})
	}
	if len(c.Values) == 0 && len(c.Points) == 0 {
		return errors.New("render_chart: the last result has no rows with values to chart")
	}
	return nil
}

// chartNumber reads a value of the result as a finite number.
func chartNumber(v any, column string, row int) (float64, error) {
	f, ok := toFloat(v)
	if !ok || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, fmt.Errorf("render_chart: column %q holds %v in row %d, which is not a number; chart a numeric column, or convert it in SQL", column, v, row+1)
	}
	return f, nil
}

// toFloat converts a number, or the text of one, to a float64.
func toFloat(v any) (float64, bool) {
	switch v := v.(type) {
	case json.Number:
		f, err := v.Float64()
		return f, err == nil
	case string:
		f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		return f, err == nil
	}
	rv := reflect.ValueOf(v)
	switch {
	case rv.CanInt():
		return float64(rv.Int()), true
	case rv.CanUint():
		return float64(rv.Uint()), true
	case rv.CanFloat():
		return rv.Float(), true
	}
	return 0, false
}

// chartLabel returns a value of the result as a label.
func chartLabel(v any) string {
	switch v := v.(type) {
	case nil:
		return "NULL"
	case string:
		return v
	case float64:
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	return fmt.Sprint(v)
}
