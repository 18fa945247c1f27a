package postgres

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/jackc/pgx/v5"

	"github.com/aiq/aiq-rpc/tools/engine"
	"github.com/aiq/aiq-rpc/tools/sqltext"
)

// pgUserSchemas lists the schemas the user's objects live in: not the
// system's, and only those the user may use, with their place on the
// search path (0 when not on it). Computed once per schema, not per row.
const pgUserSchemas = `WITH n AS (
	SELECT oid, nspname, coalesce(array_position(current_schemas(false), nspname), 0) AS pos
	FROM pg_namespace
	WHERE nspname NOT IN ('pg_catalog', 'information_schema')
		AND nspname NOT LIKE 'pg\_toast%' AND nspname NOT LIKE 'pg\_temp\_%'
		AND has_schema_privilege(oid, 'USAGE'))
`

// pgColumnsQuery reads every column of the tables and views, with the
// table's kind, row estimate and comment, the column's type, NOT NULL,
// comment and enum labels. The schemas on the search path come first, in
// its order; the first is the default one. The rows come unordered: a
// sort of wide rows costs the server more than sorting the tables in Go.
const pgColumnsQuery = pgUserSchemas + `SELECT c.oid, n.nspname, c.relname, c.relkind IN ('v', 'm'), c.reltuples::float8,
	coalesce(td.description, ''),
	a.attnum::int, a.attname, format_type(a.atttypid, a.atttypmod), a.attnotnull, coalesce(cd.description, ''),
	CASE WHEN t.typtype = 'e' THEN
		(SELECT array_agg(e.enumlabel::text ORDER BY e.enumsortorder) FROM pg_enum AS e WHERE e.enumtypid = t.oid)
	END,
	n.pos
FROM pg_class AS c
JOIN n ON n.oid = c.relnamespace
JOIN pg_attribute AS a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
JOIN pg_type AS t ON t.oid = a.atttypid
LEFT JOIN pg_description AS td ON td.objoid = c.oid AND td.classoid = 'pg_class'::regclass AND td.objsubid = 0
LEFT JOIN pg_description AS cd ON cd.objoid = c.oid AND cd.classoid = 'pg_class'::regclass AND cd.objsubid = a.attnum
WHERE c.relkind IN ('r', 'p', 'v', 'm', 'f') AND NOT c.relispartition`

// pgConstraintsQuery reads the primary keys, unique constraints, foreign
// keys and CHECK constraints, their columns as attribute numbers.
const pgConstraintsQuery = pgUserSchemas + `SELECT con.conrelid, con.contype, con.conkey::int[], con.confrelid, coalesce(con.confkey::int[], '{}'),
	CASE WHEN con.contype = 'c' THEN pg_get_constraintdef(con.oid) ELSE '' END
FROM pg_constraint AS con
JOIN pg_class AS c ON c.oid = con.conrelid
JOIN n ON n.oid = c.relnamespace
WHERE con.contype IN ('p', 'u', 'f', 'c')
ORDER BY con.conrelid, con.contype, con.conname`

// pgIndexesQuery reads the indexes, their columns as attribute numbers (0
// for an expression).
const pgIndexesQuery = pgUserSchemas + `SELECT i.indrelid, ic.relname, i.indisunique, i.indpred IS NULL, i.indkey::int2[]::int[]
FROM pg_index AS i
JOIN pg_class AS ic ON ic.oid = i.indexrelid
JOIN pg_class AS c ON c.oid = i.indrelid
JOIN n ON n.oid = c.relnamespace
WHERE c.relkind IN ('r', 'p', 'm')
ORDER BY i.indrelid, ic.relname`

// pgCatalog is the schema being read: the tables by oid, and each table's
// column names by attribute number.
type pgCatalog struct {
	tables  *engine.TableSet[uint32]
	columns map[uint32]map[int32]string
	// place is each table's place on the search path (0 when not on it)
	// and its schema's name, attnums its columns' numbers in the order
	// read: both to sort once all is read.
	place   map[*engine.Table]pgPlace
	attnums map[*engine.Table][]int32
}

func newPGCatalog() *pgCatalog {
	return &pgCatalog{tables: engine.NewTableSet[uint32](), columns: map[uint32]map[int32]string{},
		place: map[*engine.Table]pgPlace{}, attnums: map[*engine.Table][]int32{}}
}

// pgPlace is where a table sorts: by its schema's place on the search
// path, then the schema's name, then its own.
type pgPlace struct {
	pos     int32
	nspname string
}

func (p *postgres) Schema(ctx context.Context) (*engine.Schema, error) {
	c, err := p.acquire(ctx)
	if err != nil {
		return nil, err
	}
	reuse := false
	defer func() { p.release(c, reuse) }()
	cat := newPGCatalog()
	if err := cat.readColumns(ctx, c); err != nil {
		return nil, fmt.Errorf("read the columns: %w", err)
	}
	cat.sort()
	if err := cat.readConstraints(ctx, c); err != nil {
		return nil, fmt.Errorf("read the constraints: %w", err)
	}
	if err := cat.readIndexes(ctx, c); err != nil {
		return nil, fmt.Errorf("read the indexes: %w", err)
	}
	reuse = true
	return cat.tables.Schema(sqltext.DialectPostgres), nil
}

func (cat *pgCatalog) readColumns(ctx context.Context, c *pgx.Conn) error {
	rows, err := c.Query(ctx, pgColumnsQuery)
	if err != nil {
		return err
	}
	var (
		oid               uint32
		nsp, rel, comment string
		view, notNull     bool
		tuples            float64
		attnum, searchPos int32
		col               engine.Column
		enum              []string
	)
	_, err = pgx.ForEachRow(rows, []any{&oid, &nsp, &rel, &view, &tuples, &comment,
		&attnum, &col.Name, &col.Type, &notNull, &col.Comment, &enum, &searchPos}, func() error {
		t := cat.tables.Table(oid, func() *engine.Table {
			schema := nsp
			if searchPos == 1 {
				schema = ""
			}
			rows := int64(-1) // never analyzed, or a view
			if tuples >= 0 && !view {
				rows = int64(tuples)
			}
			cat.columns[oid] = map[int32]string{}
			t := &engine.Table{Schema: schema, Name: rel, View: view, Rows: rows, Comment: comment}
			cat.place[t] = pgPlace{searchPos, nsp}
			return t
		})
		cat.attnums[t] = append(cat.attnums[t], attnum)
		col.Nullable = !notNull
		col.Values, enum = enum, nil // the next row scans into a slice of its own
		t.Columns = append(t.Columns, col)
		// Constraints and indexes name columns by number, which has gaps
		// where columns were dropped.
		cat.columns[oid][attnum] = col.Name
		return nil
	})
	return err
}

// sort puts the tables in the order of the search path, then by schema
// and name, and each table's columns in their order.
func (cat *pgCatalog) sort() {
	for _, t := range cat.tables.List {
		nums := cat.attnums[t]
		idx := make([]int, len(nums))
		for i := range idx {
			idx[i] = i
		}
		slices.SortFunc(idx, func(a, b int) int { return cmp.Compare(nums[a], nums[b]) })
		cols := make([]engine.Column, len(t.Columns))
		for i, j := range idx {
			cols[i] = t.Columns[j]
		}
		t.Columns = cols
	}
	slices.SortFunc(cat.tables.List, func(a, b *engine.Table) int {
		pa, pb := cat.place[a], cat.place[b]
		return cmp.Or(cmp.Compare(pa.rank(), pb.rank()), cmp.Compare(pa.nspname, pb.nspname), cmp.Compare(a.Name, b.Name))
	})
}

// rank is the place on the search path, with the schemas off it last.
func (p pgPlace) rank() int32 {
	if p.pos == 0 {
		return math.MaxInt32
	}
	return p.pos
}

// names returns the names of the columns numbered nums of table rel.
func (cat *pgCatalog) names(rel uint32, nums []int32) []string {
	names := make([]string, len(nums))
	for i, n := range nums {
		names[i] = cat.columns[rel][n] // "" for an expression (0)
	}
	return names
}

func (cat *pgCatalog) readConstraints(ctx context.Context, c *pgx.Conn) error {
	rows, err := c.Query(ctx, pgConstraintsQuery)
	if err != nil {
		return err
	}
	var (
		rel, refRel uint32
		kind        string
		keys, refs  []int32
		def         string
	)
	_, err = pgx.ForEachRow(rows, []any{&rel, &kind, &keys, &refRel, &refs, &def}, func() error {
		t, ok := cat.tables.ByKey[rel]
		if !ok {
			return nil
		}
		cols := cat.names(rel, keys)
		switch kind {
		case "p":
			t.PrimaryKey = cols
		case "u":
			t.AddUnique(cols)
		case "f":
			target, ok := cat.tables.ByKey[refRel]
			if !ok {
				return nil // a table the user may not read
			}
			t.ForeignKeys = append(t.ForeignKeys, engine.ForeignKey{Columns: cols,
				RefSchema: target.Schema, RefTable: target.Name, RefColumns: cat.names(refRel, refs)})
		case "c":
			if name, values, ok := engine.CheckValues(def); ok {
				if col := t.Column(name); col != nil && col.Values == nil {
					col.Values = values
				}
			}
		}
		return nil
	})
	return err
}

func (cat *pgCatalog) readIndexes(ctx context.Context, c *pgx.Conn) error {
	rows, err := c.Query(ctx, pgIndexesQuery)
	if err != nil {
		return err
	}
	var (
		rel           uint32
		name          string
		unique, whole bool
		keys          []int32
	)
	_, err = pgx.ForEachRow(rows, []any{&rel, &name, &unique, &whole, &keys}, func() error {
		t, ok := cat.tables.ByKey[rel]
		if !ok {
			return nil
		}
		cols := cat.names(rel, keys)
		t.Indexes = append(t.Indexes, engine.Index{Name: name, Columns: cols, Unique: unique})
		// CREATE UNIQUE INDEX makes columns unique as a constraint does,
		// unless it is partial (WHERE ...) or on an expression.
		if unique && whole && !slices.Contains(cols, "") {
			t.AddUnique(cols)
		}
		return nil
	})
	return err
}
