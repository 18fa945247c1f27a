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

// Decision is the user's answer to a ConfirmRequest.
type Decision string

// The decisions.
const (
	AllowOnce   Decision = "allow_once"   // run this statement
	AllowAlways Decision = "allow_always" // run it, and later statements of its shape (ConfirmRequest.Scope) without asking
	Reject      Decision = "reject"       // do not run it
)

// ConfirmRequest asks the user whether a statement that can change the
// database may run.
type ConfirmRequest struct {
	Tool string `json:"tool"`
	SQL  string `json:"sql"`
	// Risk is "ddl" for a statement that changes the schema or the
	// privileges, "outside" for one that reaches outside the database
	// (a server file, another database file) without changing data,
	// "write" for one that changes data, "cost" for a read the engine
	// estimates above the source's max_estimated_rows.
	Risk string `json:"risk"`
	// Reason says why the statement is a write, from Classify or from the
	// database that refused it in read-only mode.
	Reason string `json:"reason"`
	// Scope says what allow_always would cover ("Allow UPDATE on orders,
	// up to 10 rows at a time, for this conversation": the rows the dry
	// run counted, or AllowanceFloor if more); empty when the statement
	// asks every time, and allow_always then only allows it once.
	Scope string `json:"scope,omitempty"`
	// Beyond says why an allowance of the statement's shape does not
	// cover it ("Its trial run counts 40 rows, more than the 10 that ...");
	// empty when there is none.
	Beyond string `json:"beyond,omitempty"`
	// DryRun says whether the rows the statement changes were counted
	// beforehand (DryRunOK, the count in AffectedRows), or why not
	// (DryRunFailed, DryRunSkipped, with DryRunReason).
	DryRun       string `json:"dryRun,omitempty"`
	AffectedRows *int64 `json:"affectedRows,omitempty"`
	// Cascade is what the dry run found the statement does to other
	// tables through their foreign keys, a table each.
	Cascade      []TableChange `json:"cascade,omitempty"`
	DryRunReason string        `json:"dryRunReason,omitempty"`
	// Label is the source's label from sources.yaml ("production"), for
	// the dialog to show; on a production source Scope is always empty.
	Label string `json:"label,omitempty"`
	// Masked says what each masked token of SQL stands for, so that the
	// user sees which rows the statement touches. It is for the user
	// only: the model never reads it.
	Masked []MaskedValue `json:"masked,omitempty"`
}

// MaskedValue is a masked token of a statement and the value bound to it.
type MaskedValue struct {
	Token string `json:"token"`
	Value string `json:"value"` // as text, as the result rows show it
}

// what says, for the user, why the statement asks first.
func (req ConfirmRequest) what() string {
	switch req.Risk {
	case "outside":
		return "This statement reaches outside the database"
	case "cost":
		return "This query is estimated to go through more rows than this source allows"
	}
	return "This statement writes to the database"
}

// Confirmer asks the user to confirm a write and returns the decision. An
// error means that no answer came; the write does not run.
type Confirmer func(ctx context.Context, req ConfirmRequest) (Decision, error)

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
	db      *DB
	confirm Confirmer

	mu      sync.Mutex
	allowed allowances       // the user's allow_always answers
	mask    *Masker          // the source's masked columns, or nil
	last    *StatementResult // the last successful execute_sql result
}

// NewSet returns the tools of db. confirm asks the user about each write;
// when it is nil, every write is rejected.
func NewSet(db *DB, confirm Confirmer) *Set {
	return &Set{db: db, confirm: confirm, mask: NewMasker(db.Source())}
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
				s.db.Dialect(), s.db.opts.ModelBytes),
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
				"Give table for one, or tables for up to 20 at once.",
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
				"or a part of a name): up to 20 tables, each with its one-line card. Use it when the schema in the prompt " +
				"says tables are not shown.",
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
	var res *StatementResult
	v, err := Classify(a.SQL, s.db.Dialect())
	if HasToken(a.SQL) {
		if ctx, res = s.bindTokens(ctx, a.SQL, err); res != nil {
			return res, nil
		}
	}
	switch {
	case err == nil && v.Class == Write:
		res = s.confirmAndRun(ctx, ConfirmRequest{Tool: ToolExecuteSQL, SQL: a.SQL, Risk: riskOf(v), Reason: v.Reason})
	case err == nil:
		// Only what the classifier read as one read reaches the engine's
		// EXPLAIN: SQLite's driver runs every statement of a string, so
		// "SELECT 1; PRAGMA query_only = 0; DELETE ..." must never get
		// there. Run refuses what the classifier refused.
		res = s.costGate(ctx, a.SQL)
	}
	if res == nil {
		res = s.db.Run(ctx, a.SQL, false)
		if res.readOnlyRefused {
			// The classifier missed a write that the database caught:
			// the user decides, as for any write.
			res = s.confirmAndRun(ctx, ConfirmRequest{Tool: ToolExecuteSQL, SQL: a.SQL, Risk: "write",
				Reason: "the database refused it as a write in read-only mode"})
		}
	}
	if res.Status == StatusSuccess {
		s.mu.Lock()
		s.last = res
		s.mu.Unlock()
	}
	return res, nil
}

// riskOf returns "ddl" for a statement that changes the schema or the
// privileges, "outside" for one that only reaches outside the database,
// else "write".
func riskOf(v Verdict) string {
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
func (s *Set) confirmAndRun(ctx context.Context, req ConfirmRequest) *StatementResult {
	if res := s.readOnly(req); res != nil {
		return res
	}
	req.Label = s.db.Source().Label
	shape, scoped := StatementShape(req.SQL, s.db.Dialect())
	scoped = scoped && !s.db.Source().IsProduction() // production asks every time
	var al Allowance
	covered := false
	if scoped {
		s.mu.Lock()
		al, covered = s.allowed.covering(shape)
		s.mu.Unlock()
	}
	if s.confirm != nil || covered {
		s.dryRun(ctx, &req)
	}
	allowed := covered && withinAllowance(req, al)
	if !allowed {
		if covered {
			req.Beyond = beyondAllowance(req, al)
		}
		if scoped {
			req.Scope = shape.Scope(allowanceBound(req))
		}
		if res := s.ask(ctx, req, shape); res != nil {
			return res
		}
	}
	res := s.db.Run(ctx, req.SQL, true)
	if allowed {
		res.AllowedBy = al.Scope
	}
	if res.Status == StatusSuccess {
		// DDL changes the schema; so may a write through a function. The
		// cache is read again only when next needed.
		s.db.RefreshSchema()
	}
	return res
}

// withinAllowance reports whether al covers the request's statement: its
// dry run counted no more rows than al's bound. A statement whose rows
// were not counted asks.
func withinAllowance(req ConfirmRequest, al Allowance) bool {
	return req.DryRun == DryRunOK && req.AffectedRows != nil && req.countedRows() <= al.MaxRows
}

// countedRows is the rows the dry run found the statement changes, in its
// table and in cascade.
func (req ConfirmRequest) countedRows() int64 {
	var n int64
	if req.AffectedRows != nil {
		n = *req.AffectedRows
	}
	for _, c := range req.Cascade {
		n += c.Total()
	}
	return n
}

// beyondAllowance says why al, of the request's shape, does not cover it.
func beyondAllowance(req ConfirmRequest, al Allowance) string {
	if req.DryRun == DryRunOK && req.AffectedRows != nil {
		return fmt.Sprintf("Its trial run counts %s rows, more than the %s that \"%s\" covers.",
			groupThousands(req.countedRows()), groupThousands(al.MaxRows), strings.TrimSuffix(al.Scope, ", for this conversation"))
	}
	return fmt.Sprintf("Its rows could not be counted beforehand, so \"%s\" does not cover it.", strings.TrimSuffix(al.Scope, ", for this conversation"))
}

// allowanceBound is the bound of an allowance given to the request's
// statement: the rows its dry run counted, or AllowanceFloor if more.
func allowanceBound(req ConfirmRequest) int64 {
	if n := req.countedRows(); req.DryRun == DryRunOK && n > AllowanceFloor {
		return n
	}
	return AllowanceFloor
}

// ask gets the user's decision. It returns nil when the write may run,
// else the result that says why it did not: one sentence for the user,
// and for the model what to do next.
func (s *Set) ask(ctx context.Context, req ConfirmRequest, shape Shape) *StatementResult {
	if s.confirm == nil {
		if req.Risk == "outside" {
			return s.refused(req.SQL, StatusRejected,
				"This statement reaches outside the database, which no one can confirm here, so it did not run.",
				"not run: it needs the user's confirmation ("+strings.TrimSuffix(req.Reason, ".")+"), and no one can confirm it here; do not retry it")
		}
		return s.refused(req.SQL, StatusRejected,
			"This statement writes to the database, and writes are turned off here, so it did not run.",
			"not run: this statement can change the database, and writes are turned off here because no one can confirm them; do not retry it")
	}
	req.Masked = boundValues(ctx, req.SQL)
	d, err := s.confirm(ctx, req)
	switch {
	case ctx.Err() != nil:
		return s.refused(req.SQL, StatusCancelled,
			"Cancelled before it was confirmed; the statement did not run.",
			"cancelled while waiting for the user's confirmation; the statement did not run")
	case err != nil:
		return s.refused(req.SQL, StatusRejected,
			req.what()+", and it could not be confirmed here, so it did not run.",
			"not run: the user's confirmation could not be asked ("+err.Error()+")")
	case d == AllowOnce:
		return nil
	case d == AllowAlways:
		if req.Scope != "" { // else it was never offered: once it is
			s.mu.Lock()
			s.allowed.add(shape, allowanceBound(req))
			s.mu.Unlock()
		}
		return nil
	}
	// Reject, or an answer that is not a decision: either way, no.
	return s.refused(req.SQL, StatusRejected, "You declined this statement, so it did not run.",
		"not run: the user declined this statement. Do not retry it or the same change in another form; ask the user what they want instead")
}

// refused returns a statement that did not run: user is the sentence the
// editor shows, model what the model reads.
func (s *Set) refused(sql, status, user, model string) *StatementResult {
	res := s.db.failed(sql, status, user)
	res.forModel = model
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
	masked := s.mask.maskedColumns(last.SQL, last.Columns)
	return s.mask.maskChart(c, masked[xi], masked[yi])
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
