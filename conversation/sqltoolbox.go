package conversation

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/aiq/aiq-rpc/sessionio"
	"github.com/aiq/aiq-rpc/tools"
	"github.com/aiq/aiq-rpc/tools/engine"
	"github.com/aiq/aiq-rpc/tools/guard"
	"github.com/aiq/aiq-rpc/tools/sqltext"
)

// DemoSourceName is the embedded demo database, the source when none is
// configured.
const DemoSourceName = tools.DemoName

// ConfiguredSources returns the sources of home's sources.yaml, or the
// demo database when it names none.
func ConfiguredSources(home sessionio.Home) ([]sessionio.Source, error) {
	sources, err := home.LoadSources()
	if err != nil {
		return nil, err
	}
	if len(sources) == 0 {
		return []sessionio.Source{tools.DemoSource(home.Dir)}, nil
	}
	return sources, nil
}

// singleStatement reports whether text is exactly one SQL statement that
// the classifier knows.
func singleStatement(text, dialect string) bool {
	return sqltext.IsStatement(text, sqltext.Dialect(dialect))
}

func dialectOf(sourceType string) string { return string(engine.DialectOf(sourceType)) }

// SQLToolboxes opens the toolboxes of real databases. The sessions on one
// source share its connection pool.
type SQLToolboxes struct {
	Options engine.Options

	mu  sync.Mutex
	dbs map[string]*engine.DB
	// ixs holds the ranking index of each DB's schema, which its sessions
	// share: built once per schema read, not once per session.
	ixs map[*engine.DB]*indexCache
	// users counts the sessions on each DB, whose idle connections close
	// when the last one ends.
	users map[*engine.DB]int
}

// Open returns the SQL tools of src for one session. The demo database is
// created on first use.
func (t *SQLToolboxes) Open(ctx context.Context, src sessionio.Source, confirm Confirmer) (Toolbox, error) {
	db, err := t.db(ctx, src)
	if err != nil {
		return nil, err
	}
	set := tools.NewSet(db, func(ctx context.Context, req guard.ConfirmRequest) (guard.Decision, error) {
		d, err := confirm(ctx, req)
		return guard.Decision(d), err
	})
	t.mu.Lock()
	if t.users == nil {
		t.users = map[*engine.DB]int{}
	}
	t.users[db]++
	t.mu.Unlock()
	return &sqlToolbox{set: set, db: db, ix: t.indexCache(db), owner: t}, nil
}

// release is a session's end on db: the last one closes its idle
// connections, so that a source no session uses holds none of its
// server's connection slots.
func (t *SQLToolboxes) release(db *engine.DB) {
	t.mu.Lock()
	t.users[db]--
	last := t.users[db] <= 0
	if last {
		delete(t.users, db)
	}
	t.mu.Unlock()
	if last {
		db.CloseIdle()
	}
}

// indexCache returns the index cache that the sessions on db share.
func (t *SQLToolboxes) indexCache(db *engine.DB) *indexCache {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.ixs == nil {
		t.ixs = map[*engine.DB]*indexCache{}
	}
	c, ok := t.ixs[db]
	if !ok {
		c = &indexCache{}
		t.ixs[db] = c
	}
	return c
}

func (t *SQLToolboxes) db(ctx context.Context, src sessionio.Source) (*engine.DB, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if db, ok := t.dbs[src.Name]; ok && db.Source().Equal(src) {
		return db, nil
	}
	if src.Name == tools.DemoName && src.Type == sessionio.TypeSQLite {
		if err := tools.CreateDemo(ctx, src.Database); err != nil {
			return nil, err
		}
	}
	db, err := tools.Open(ctx, src, t.Options)
	if err != nil {
		return nil, err
	}
	if old, ok := t.dbs[src.Name]; ok {
		old.Close() // sources.yaml changed; sessions still on it finish their turn
		delete(t.ixs, old)
	}
	if t.dbs == nil {
		t.dbs = map[string]*engine.DB{}
	}
	t.dbs[src.Name] = db
	return db, nil
}

// Close closes every connection pool.
func (t *SQLToolboxes) Close() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	var errs []error
	for name, db := range t.dbs {
		if err := db.Close(); err != nil {
			errs = append(errs, fmt.Errorf("close source %s: %w", name, err))
		}
	}
	t.dbs, t.ixs = nil, nil
	return errors.Join(errs...)
}

// sqlToolbox is the Toolbox of one session on a database.
type sqlToolbox struct {
	set   *tools.Set
	db    *engine.DB
	ix    *indexCache
	owner *SQLToolboxes
	ended sync.Once
}

// end is the end of the toolbox's session.
func (b *sqlToolbox) end() { b.ended.Do(func() { b.owner.release(b.db) }) }

// indexCache keeps the ranking index of the schema last described.
type indexCache struct {
	mu sync.Mutex
	ix *schemaIndex
}

func (b *sqlToolbox) Specs() []ToolSpec {
	var specs []ToolSpec
	for _, s := range b.set.Specs() {
		specs = append(specs, ToolSpec{Name: s.Name, Description: s.Description, Parameters: s.Parameters})
	}
	return specs
}

func (b *sqlToolbox) Run(ctx context.Context, name string, args json.RawMessage) (any, error) {
	page := engine.WithFirstPage(ctx, func(r *engine.StatementResult) { ReportRows(ctx, statementOf(r)) })
	res, err := b.set.Run(page, name, args)
	if err != nil {
		return nil, err
	}
	switch r := res.(type) {
	case *engine.StatementResult:
		return SQLResult{Statement: statementOf(r), ForModel: b.set.ModelView(r)}, nil
	case *tools.Chart:
		return ChartResult{Chart: r}, nil
	}
	return res, nil
}

func statementOf(r *engine.StatementResult) Statement {
	return Statement{
		SQL: r.SQL, Status: r.Status, RowCount: r.RowCount, Columns: nonNil(r.Columns), ColumnTypes: r.ColumnTypes,
		Rows: engine.EditorRows(nonNil(r.Rows)), Truncated: r.Truncated, Error: r.Error, AllowedBy: r.AllowedBy,
		Warnings: r.Warnings,
	}
}

// maskSharer is a toolbox whose masker a TokenScope can share with the
// other toolboxes of its source.
type maskSharer interface {
	masker() *guard.Masker
	useMasker(m *guard.Masker)
}

func (b *sqlToolbox) scrubForModel(ctx context.Context, text string, isJSON bool) string {
	return b.set.Scrub(ctx, text, isJSON)
}

func (b *sqlToolbox) masksForModel() bool { return b.set.Masker().Active() }

func (b *sqlToolbox) masker() *guard.Masker     { return b.set.Masker() }
func (b *sqlToolbox) useMasker(m *guard.Masker) { b.set.UseMasker(m) }

// Allowances lists the session's "Allow always" answers.
func (b *sqlToolbox) Allowances() []Allowance { return b.set.Allowances() }

// Revoke forgets an allowance, or all of them for "all".
func (b *sqlToolbox) Revoke(id string) bool { return b.set.Revoke(id) }

// RefreshSchema forgets the cached schema, so the next turn reads it anew.
func (b *sqlToolbox) RefreshSchema() { b.db.RefreshSchema() }

// describeTimeout bounds reading the version and schema for the prompt:
// an unreachable server must not hold up the turn, whose SQL would fail
// anyway and tell the model why.
const describeTimeout = 5 * time.Second

func (b *sqlToolbox) Describe(ctx context.Context) string { return b.DescribeFor(ctx, "") }

// DescribeFor is the part of the system prompt about the database, with
// the schema card ranked for the question when the whole schema does not
// fit the source's budget.
func (b *sqlToolbox) DescribeFor(ctx context.Context, question string) string {
	// The known values of masked columns are read under the turn's
	// context: their bound is their own.
	return b.set.Scrub(ctx, b.describe(ctx, question), false)
}

func (b *sqlToolbox) describe(ctx context.Context, question string) string {
	ctx, cancel := context.WithTimeout(ctx, describeTimeout)
	defer cancel()
	var sb strings.Builder
	src := b.db.Source()
	version, err := b.db.Version(ctx)
	if err != nil {
		version = "version unknown: " + err.Error()
	}
	fmt.Fprintf(&sb, "The database is the source %q: %s (%s dialect).\n", src.Name, version, b.db.Dialect())
	schema, err := b.db.Schema(ctx)
	if err != nil {
		fmt.Fprintf(&sb, "Its schema could not be read (%v); use search_schema, list_tables and describe_table.\n", err)
		return sb.String()
	}
	budget := src.SchemaBudget
	if budget == 0 {
		budget = DefaultSchemaBudget
	}
	budget = min(max(budget, minSchemaBudget), maxSchemaBudget)
	sb.WriteString("Its tables, one a line: each column with its type; PK is the primary key; -> a foreign key and what it references; " +
		"in {...} the allowed values; \"...\" a comment; ~N rows an estimate:\n")
	// Names and comments are the database's text, not instructions.
	sb.WriteString(guard.Fence(b.index(schema).card(question, budget), "the database's schema"))
	return sb.String()
}

// index returns the ranking index of schema, built once per schema read.
func (b *sqlToolbox) index(schema *engine.Schema) *schemaIndex {
	c := b.ix
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ix == nil || c.ix.schema != schema {
		c.ix = newSchemaIndex(schema)
	}
	return c.ix
}
