package conversation

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aiq/aiq-rpc/tools/engine"
	"github.com/aiq/aiq-rpc/tools/sqltext"
)

// wideSchema is n tables of 20 columns named like a real warehouse's,
// each referencing the one before, with the invoice and supplier tables
// planted among them, invoice referencing supplier.
func wideSchema(n int) *engine.Schema {
	words := []string{"account", "ledger", "shipment", "carrier", "region", "warehouse", "campaign", "device", "session", "ticket"}
	s := &engine.Schema{Dialect: sqltext.DialectPostgres}
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("%s_%04d", words[i%len(words)], i)
		t := engine.Table{Name: name, Rows: int64(i * 1000), PrimaryKey: []string{"id"}}
		t.Columns = append(t.Columns, engine.Column{Name: "id", Type: "integer"})
		for c := 1; c < 20; c++ {
			t.Columns = append(t.Columns, engine.Column{Name: fmt.Sprintf("%s_attr_%02d", words[(i+c)%len(words)], c), Type: "text", Nullable: true})
		}
		if i > 0 {
			prev := s.Tables[i-1].Name
			t.Columns[1].Name = "parent_id"
			t.ForeignKeys = []engine.ForeignKey{{Columns: []string{"parent_id"}, RefTable: prev, RefColumns: []string{"id"}}}
		}
		s.Tables = append(s.Tables, t)
	}
	s.Tables[n/3] = engine.Table{Name: "supplier", Rows: 300, PrimaryKey: []string{"id"}, Columns: []engine.Column{
		{Name: "id", Type: "integer"}, {Name: "name", Type: "text"}, {Name: "country", Type: "text", Nullable: true}}}
	s.Tables[2*n/3] = engine.Table{Name: "invoice", Rows: 120000, PrimaryKey: []string{"id"}, Columns: []engine.Column{
		{Name: "id", Type: "integer"}, {Name: "supplier_id", Type: "integer"}, {Name: "amount_cents", Type: "bigint"}, {Name: "issued_on", Type: "date"}},
		ForeignKeys: []engine.ForeignKey{{Columns: []string{"supplier_id"}, RefTable: "supplier", RefColumns: []string{"id"}}}}
	return s
}

func TestSchemaCardFitsAndRanks(t *testing.T) {
	s := wideSchema(2000)
	card := newSchemaIndex(s).card("total invoice amount per supplier", DefaultSchemaBudget)
	assert.LessOrEqual(t, len(card), DefaultSchemaBudget)
	lines := strings.Split(strings.TrimSuffix(card, "\n"), "\n")
	assert.Contains(t, lines, "invoice(id int PK, supplier_id int NOT NULL -> supplier.id, amount_cents bigint NOT NULL, issued_on date NOT NULL) ~120k rows")
	assert.Contains(t, lines, "supplier(id int PK, name text NOT NULL, country text) ~300 rows")
	last := lines[len(lines)-1]
	shown := len(lines) - 1
	assert.Equal(t, fmt.Sprintf("(%d more tables are not shown here: call search_schema to find tables by name, column or comment, and describe_table for a table's full card.)", 2000-shown), last)
	assert.Greater(t, shown, 10, "the budget holds more than the two tables asked about")
}

func TestSchemaCardWhole(t *testing.T) {
	s := wideSchema(30)
	card := newSchemaIndex(s).card("anything", 1<<20)
	assert.Equal(t, 30, strings.Count(card, "\n"))
	assert.NotContains(t, card, "not shown")
	assert.Equal(t, "(no tables)\n", newSchemaIndex(&engine.Schema{}).card("q", 100))
}

func TestSchemaCardStemsAndNeighbours(t *testing.T) {
	s := wideSchema(300)
	s.Tables[10] = engine.Table{Name: "Singer", Rows: -1, Columns: []engine.Column{{Name: "SingerId", Type: "INTEGER"}}, PrimaryKey: []string{"SingerId"}}
	s.Tables[250] = engine.Table{Name: "Concert", Rows: -1, Columns: []engine.Column{{Name: "concert_ID", Type: "INTEGER"}, {Name: "Singer_ID", Type: "INTEGER"}},
		ForeignKeys: []engine.ForeignKey{{Columns: []string{"Singer_ID"}, RefTable: "Singer", RefColumns: []string{"SingerId"}}}}
	card := newSchemaIndex(s).card("which singers played most?", 2000)
	require.LessOrEqual(t, len(card), 2000)
	lines := strings.Split(card, "\n")
	assert.True(t, strings.HasPrefix(lines[0], `"Singer"(`), "the table named in the question comes first: %s", lines[0])
	assert.Contains(t, card, `"Concert"(`, "and the table that references it follows")
}

// BenchmarkSchemaCard2000 ranks a 2,000-table schema of 20 columns for a
// question and builds the card, as each turn does on the cached schema;
// the issue asks for under 5 ms. The yardstick, in the same run, joins
// every table's line, which is what a card of the whole schema costs.
// The index is built once per schema read (BenchmarkSchemaIndex2000).
func BenchmarkSchemaCard2000(b *testing.B) {
	ix := newSchemaIndex(wideSchema(2000))
	b.Run("ranked", func(b *testing.B) {
		var card string
		for i := 0; i < b.N; i++ {
			if card = ix.card("total invoice amount per supplier", DefaultSchemaBudget); len(card) > DefaultSchemaBudget {
				b.Fatalf("card of %d bytes", len(card))
			}
		}
		b.ReportMetric(float64(len(card)), "card-bytes")
		b.ReportMetric(float64(strings.Count(card, "\n")-1), "tables-shown")
	})
	b.Run("yardstick", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if all := strings.Join(ix.lines, "\n"); len(all) < DefaultSchemaBudget {
				b.Fatalf("all lines in %d bytes", len(all))
			}
		}
	})
}

func BenchmarkSchemaIndex2000(b *testing.B) {
	s := wideSchema(2000)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		newSchemaIndex(s)
	}
}
