package conversation

import (
	"fmt"
	"slices"
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

func TestIdentWords(t *testing.T) {
	assert.Equal(t, []string{"invoice", "line"}, identWords("InvoiceLines"))
	assert.Equal(t, []string{"html", "parser"}, identWords("HTMLParser"))
	assert.Equal(t, []string{"gsod", "2014"}, identWords("GSOD2014"))
	assert.Equal(t, []string{"cyto", "band", "hg", "38"}, identWords("CytoBands_hg38"))
	assert.Equal(t, []string{"café", "vente"}, identWords("Café Ventes"))
	vocab := map[string]bool{"push": true, "notification": true, "user": true}
	assert.Equal(t, []string{"push", "notification"}, splitCompound("pushnotification", vocab))
	assert.Nil(t, splitCompound("pushover", vocab))
}

// rankSchema is tables of the given names and columns (id and the
// others), in order.
func rankSchema(tables ...[]string) *engine.Schema {
	s := &engine.Schema{Dialect: sqltext.DialectPostgres}
	for _, t := range tables {
		name, schema := t[0], ""
		if i := strings.IndexByte(name, '.'); i >= 0 {
			schema, name = name[:i], name[i+1:]
		}
		tb := engine.Table{Schema: schema, Name: name, Rows: -1, Columns: []engine.Column{{Name: "id", Type: "int"}}}
		for _, c := range t[1:] {
			tb.Columns = append(tb.Columns, engine.Column{Name: c, Type: "text", Nullable: true})
		}
		s.Tables = append(s.Tables, tb)
	}
	return s
}

// first is the name of the table the question ranks first.
func first(s *engine.Schema, question string) string {
	ix := newSchemaIndex(s)
	return s.Tables[ix.entries[ix.rank(question).order[0]].tables[0]].QualifiedName()
}

func TestRankingSignals(t *testing.T) {
	var common [][]string
	for i := range 40 {
		common = append(common, []string{fmt.Sprintf("sales_region_%c%c", 'a'+i%26, 'a'+i/26), "amount"})
	}
	// Rarity: "sales" is in every name and counts for little; "refund",
	// in one column, decides.
	s := rankSchema(append(common, []string{"payments", "refund_reason"})...)
	assert.Equal(t, "payments", first(s, "sales refunds by reason"))

	// More of the question's words beat one word found twice as often.
	s = rankSchema([]string{"order_order", "x"}, []string{"order_lines", "shipped_on"})
	assert.Equal(t, "order_lines", first(s, "order lines shipped"))

	// A table the question names comes first, whatever else matches.
	s = rankSchema([]string{"customer_orders", "customer", "order_total"}, []string{"CytoBands_hg38", "x"})
	assert.Equal(t, "CytoBands_hg38", first(s, "customer order totals from cytobands_hg38"))

	// A compound name meets the words written apart.
	s = rankSchema([]string{"notes", "body"}, []string{"pushnotification", "opened"}, []string{"push_devices", "token"})
	assert.Equal(t, "pushnotification", first(s, "how many push notifications?"))

	// Schema names are words.
	s = rankSchema([]string{"crypto_bitcoin.blocks", "size"}, []string{"crypto_ethereum_classic.blocks", "size"})
	assert.Equal(t, "crypto_ethereum_classic.blocks", first(s, "block size on ethereum classic"))
}

// TestRankingSignalsDecide: cases where each signal alone decides the
// first table, so that ranking without it puts another first (each was
// checked by removing the signal from rank.go and seeing the test fail).
func TestRankingSignalsDecide(t *testing.T) {
	// Rarity: "sales" in 40 table names, at the table's weight, would beat
	// "refund" in one column at the column's weight; rare, it does not.
	var common [][]string
	for i := range 40 {
		common = append(common, []string{fmt.Sprintf("sales_region_%c%c", 'a'+i%26, 'a'+i/26), "amount"})
	}
	s := rankSchema(append(common, []string{"payments", "refund_reason"})...)
	assert.Equal(t, "payments", first(s, "sales refunds"))
	assert.Equal(t, "payments", first(s, "refunds in sales"))

	// Matched words: refunds has "refund" in its name (4 × rarity),
	// payments has "refund" and "reason" in columns (2 × rarity each),
	// the two words as rare as each other: the same sum, and payments,
	// matching both words, comes first although its line is longer.
	s = rankSchema([]string{"refunds", "x"}, []string{"payments", "refund_amount", "reason_code"}, []string{"tickets", "reason"})
	assert.Equal(t, "payments", first(s, "refund reason"))

	// Compound names split by the schema's own words: "notification",
	// a word of notification_settings, and "push", of push_devices, split
	// pushnotification, so that "notifications" alone finds it; without
	// the split notification_settings, naming it, would come first.
	s = rankSchema([]string{"notes", "body"}, []string{"emails", "opened"}, []string{"notification_settings", "channel"},
		[]string{"pushnotification", "opened"}, []string{"push_devices", "token"})
	assert.Equal(t, "pushnotification", first(s, "which notifications were opened?"))
}

// TestNamedTableWiderThanBudget: a table the question names is on the card
// even when its line alone is wider than the budget, cut to its keys, its
// foreign keys and the columns the question matches.
func TestNamedTableWiderThanBudget(t *testing.T) {
	s := wideSchema(300)
	wide := engine.Table{Name: "dicom_all", Rows: -1, PrimaryKey: []string{"id"}, Columns: []engine.Column{{Name: "id", Type: "int"}},
		ForeignKeys: []engine.ForeignKey{{Columns: []string{"series_id"}, RefTable: "supplier", RefColumns: []string{"id"}}}}
	for i := range 400 {
		wide.Columns = append(wide.Columns, engine.Column{Name: fmt.Sprintf("dicom_attribute_%03d", i), Type: "text", Nullable: true})
	}
	wide.Columns = append(wide.Columns, engine.Column{Name: "series_id", Type: "int"}, engine.Column{Name: "modality", Type: "text", Nullable: true})
	s.Tables[200] = wide
	ix := newSchemaIndex(s)
	require.Greater(t, len(ix.lines[200]), 4096)
	card := ix.card("which modality is most common in dicom_all?", 4096)
	assert.LessOrEqual(t, len(card), 4096)
	lines := strings.Split(card, "\n")
	assert.Equal(t, "dicom_all(id int PK, series_id int NOT NULL -> supplier.id, modality text, and 400 more columns (describe_table))", lines[0])
	assert.Contains(t, card, "\nsupplier(", "its foreign-key neighbour follows")
}

// BenchmarkSchemaCardWide ranks 300 tables of 200 columns for a question
// and builds the card; the yardstick, in the same run, joins every
// table's line.
func BenchmarkSchemaCardWide(b *testing.B) {
	s := wideSchema(300)
	for i := range s.Tables {
		t := &s.Tables[i]
		for c := len(t.Columns); c < 200; c++ {
			t.Columns = append(t.Columns, engine.Column{Name: fmt.Sprintf("measure_%s_%03d", t.Name, c), Type: "numeric", Nullable: true})
		}
	}
	ix := newSchemaIndex(s)
	b.Run("ranked", func(b *testing.B) {
		for b.Loop() {
			if card := ix.card("total invoice amount per supplier", DefaultSchemaBudget); len(card) > DefaultSchemaBudget {
				b.Fatalf("card of %d bytes", len(card))
			}
		}
	})
	b.Run("yardstick", func(b *testing.B) {
		for b.Loop() {
			if all := strings.Join(ix.lines, "\n"); len(all) < DefaultSchemaBudget {
				b.Fatalf("all lines in %d bytes", len(all))
			}
		}
	})
}

// FuzzSchemaCard: whatever the question and the budget, the card keeps
// within the budget, names a table the question names, and does not panic.
func FuzzSchemaCard(f *testing.F) {
	s := wideSchema(120)
	wide := engine.Table{Name: "dicom_all", Rows: -1, PrimaryKey: []string{"id"}, Columns: []engine.Column{{Name: "id", Type: "int"}}}
	for i := range 300 {
		wide.Columns = append(wide.Columns, engine.Column{Name: fmt.Sprintf("dicom_attribute_%03d", i), Type: "text", Nullable: true})
	}
	s.Tables = append(s.Tables, wide)
	for d := 1; d <= 31; d++ {
		s.Tables = append(s.Tables, engine.Table{Name: fmt.Sprintf("events_202012%02d", d), Rows: -1,
			Columns: []engine.Column{{Name: "event_name", Type: "text"}, {Name: "Café au lait", Type: "text"}}})
	}
	ix := newSchemaIndex(s)
	for _, q := range []string{"total invoice amount per supplier", "from dicom_all", "events in December 2020 past 3 days",
		"pushnotification \"Café au lait\" ☃ 2020-12-05", ""} {
		f.Add(q, 2048)
	}
	f.Fuzz(func(t *testing.T, question string, budget int) {
		budget = min(max(budget, minSchemaBudget), maxSchemaBudget)
		card := ix.card(question, budget)
		if len(card) > budget {
			t.Fatalf("card of %d bytes for a budget of %d", len(card), budget)
		}
		if slices.Contains(nameTokens(question), "dicom_all") && !strings.Contains(card, "dicom_all(") {
			t.Fatalf("dicom_all is named but not on the card:\n%s", card)
		}
	})
}
