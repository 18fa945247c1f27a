package conversation

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aiq/aiq-rpc/sessionio"
	"github.com/aiq/aiq-rpc/tools/dbtest"
)

// whTable is a table of the generated warehouse: its schema ("" for the
// default one), name, columns ("name type", the first the key) and
// foreign keys ("column table").
type whTable struct {
	schema, name string
	columns      []string
	fks          [][2]string
}

// warehouse generates a warehouse of about 300 tables: a shop, tables of
// 400 columns wider than the card, two months of daily event shards and
// fifteen years of yearly storm shards, schemas with tables of the same
// names, a compound name, names that need quotes, and filler tables named
// like a real warehouse's with the columns they all share. On SQLite,
// which has no schemas, a schema is a prefix of the name.
func warehouse() []whTable {
	common := []string{"created_at timestamp", "updated_at timestamp", "status text", "note text"}
	t := func(schema, name string, cols []string, fks ...[2]string) whTable {
		return whTable{schema, name, append(cols, common...), fks}
	}
	fk := func(col, table string) [2]string { return [2]string{col, table} }
	tables := []whTable{
		t("", "customers", []string{"id int", "name text", "email text", "country text"}),
		t("", "suppliers", []string{"id int", "company_name text", "country text"}),
		t("", "categories", []string{"id int", "title text"}),
		t("", "products", []string{"id int", "title text", "category_id int", "supplier_id int", "price numeric"},
			fk("category_id", "categories"), fk("supplier_id", "suppliers")),
		t("", "orders", []string{"id int", "customer_id int", "ordered_at timestamp", "ship_country text"}, fk("customer_id", "customers")),
		t("", "order_items", []string{"id int", "order_id int", "product_id int", "quantity int", "unit_price numeric"},
			fk("order_id", "orders"), fk("product_id", "products")),
		t("", "order_items_2", []string{"id int", "order_ref text", "sku text"}),
		t("", "invoices", []string{"id int", "supplier_id int", "amount_cents bigint", "issued_on date"}, fk("supplier_id", "suppliers")),
		t("", "payments", []string{"id int", "order_id int", "failed bool", "paid_at timestamp"}, fk("order_id", "orders")),
		t("", "shipments", []string{"id int", "order_id int", "carrier text", "shipped_at timestamp"}, fk("order_id", "orders")),
		t("", "campaigns", []string{"id int", "title text", "channel text"}),
		t("", "pushnotification", []string{"id int", "campaign_id int", "opened bool", "sent_at timestamp"}, fk("campaign_id", "campaigns")),
		t("", "devices", []string{"id int", "platform text", "model text"}),
		t("", "user_sessions", []string{"id int", "device_id int", "duration_seconds int", "started_at timestamp"}, fk("device_id", "devices")),
		t("", "Order Details", []string{"id int", "order_id int", "discount numeric"}, fk("order_id", "orders")),
		t("", "select", []string{"id int", "\"from\" text"}),
		t("", "Café Ventes", []string{"id int", "montant numeric"}),
		t("", `we"ird`, []string{"id int", "x text"}),
	}
	for _, s := range []string{"crypto_ethereum_classic", "crypto_bitcoin"} {
		tables = append(tables,
			t(s, "blocks", []string{"id int", "block_size bigint", "mined_at timestamp"}),
			t(s, "transactions", []string{"id int", "block_id int", "fee numeric"}, fk("block_id", "blocks")),
			t(s, "token_transfers", []string{"id int", "transaction_id int", "value numeric"}, fk("transaction_id", "transactions")))
	}
	tables = append(tables,
		t("archive", "orders", []string{"id int", "archived_on date"}),
		t("archive", "customers", []string{"id int", "archived_on date"}))
	// Tables of 400 columns, each line wider than the default budget.
	for _, wide := range []struct{ name, stem string }{
		{"dicom_all", "dicom_attribute_sequence_item"}, {"clinical_records", "clinical_observation_measurement"},
		{"acs_census_tract", "acs_estimate_population_group"}, {"acs_census_county", "acs_estimate_household_group"},
	} {
		cols := []string{"id int"}
		switch wide.name {
		case "dicom_all":
			cols = append(cols, "modality text", "body_part_examined text")
		case "acs_census_tract":
			cols = append(cols, "median_household_income numeric")
		}
		for len(cols) < 400 {
			cols = append(cols, fmt.Sprintf("%s_%03d text", wide.stem, len(cols)))
		}
		tables = append(tables, whTable{"", wide.name, cols, nil})
	}
	for d := time.Date(2020, 11, 15, 0, 0, 0, 0, time.UTC); d.Before(time.Date(2021, 1, 16, 0, 0, 0, 0, time.UTC)); d = d.AddDate(0, 0, 1) {
		// Forty columns, as an analytics export has: a line of 1.5 KB.
		cols := []string{"event_date date", "event_name text", "user_pseudo_id text", "platform text"}
		for len(cols) < 40 {
			cols = append(cols, fmt.Sprintf("event_params_value_string_%02d text", len(cols)))
		}
		tables = append(tables, whTable{"", "events_" + d.Format("20060102"), cols, nil})
	}
	for y := 2010; y <= 2024; y++ {
		tables = append(tables, whTable{"", fmt.Sprintf("storms_%d", y),
			[]string{"storm_id text", "state text", "event_type text", "begin_date date", "deaths int"}, nil})
	}
	areas := []string{"account", "ledger", "warehouse", "inventory", "marketing", "support", "hr", "finance", "logistics", "billing",
		"product", "analytics", "compliance", "vendor", "partner", "content", "search", "fraud", "pricing", "loyalty"}
	things := []string{"entries", "snapshots", "audit_log", "daily_summary", "settings", "members", "requests", "history", "metrics", "forecasts"}
	for i := 0; len(tables) < 300; i++ {
		name := areas[i%len(areas)] + "_" + things[(i/len(areas))%len(things)]
		cols := []string{"id int", "customer_id int", "amount numeric", "name text", "country text", "title text"}
		for c := 0; c < 10+i%25; c++ {
			cols = append(cols, fmt.Sprintf("%s_%s_%d text", areas[(i+c)%len(areas)], things[c%len(things)], c))
		}
		tables = append(tables, t("", name, cols, fk("customer_id", "customers")))
	}
	return tables
}

// whQuestion is a question written against the warehouse and the tables
// (or shards) its SQL needs, by name as the card writes it on PostgreSQL.
type whQuestion struct {
	question string
	needs    []string
	// notPicked are shards the card must not name for it.
	notPicked []string
}

var whQuestions = []whQuestion{
	{"Which customers placed the most orders?", []string{"customers", "orders"}, nil},
	{"Total invoice amount per supplier", []string{"invoices", "suppliers"}, nil},
	{"How many push notifications were opened per campaign?", []string{"pushnotification", "campaigns"}, nil},
	{"List the modality and body part of each study from dicom_all table", []string{"dicom_all"}, nil},
	{"Median household income per census tract", []string{"acs_census_tract"}, nil},
	{"How many events per event name in December 2020?", []string{"events_20201201", "events_20201215", "events_20201231"},
		[]string{"events_20201130", "events_20210101"}},
	{"How many storms hit Florida in the past 10 years?", []string{"storms_2015", "storms_2024"}, []string{"storms_2014"}},
	{"Average block size on ethereum classic", []string{"crypto_ethereum_classic.blocks"}, nil},
	{"Bitcoin transaction fees per block", []string{"crypto_bitcoin.transactions", "crypto_bitcoin.blocks"}, nil},
	{"Revenue per product category from order items", []string{"order_items", "products", "categories"}, nil},
	{"Payments that failed for orders shipped by each carrier", []string{"payments", "orders", "shipments"}, nil},
	{"Which user sessions lasted longest, by device platform?", []string{"user_sessions", "devices"}, nil},
	{`What discount does "Order Details" give per order?`, []string{`"Order Details"`, "orders"}, nil},
	{"Orders archived per day", []string{"archive.orders"}, nil},
	{"How many push notifications went out?", []string{"pushnotification"}, nil},
	{"Show clinical_records rows of patients over 60", []string{"clinical_records"}, nil},
	{"Which platform had the most events on 2021-01-03?", []string{"events_20210103"}, []string{"events_20210102"}},
}

// whDDL writes the warehouse's CREATE statements for PostgreSQL or SQLite.
func whDDL(tables []whTable, postgres bool) []string {
	var stmts []string
	if postgres {
		stmts = append(stmts, "CREATE SCHEMA crypto_ethereum_classic", "CREATE SCHEMA crypto_bitcoin", "CREATE SCHEMA archive")
	}
	for _, t := range tables {
		var defs []string
		for i, c := range t.columns {
			if i == 0 {
				c += " PRIMARY KEY"
			}
			defs = append(defs, c)
		}
		for _, f := range t.fks {
			defs = append(defs, fmt.Sprintf("FOREIGN KEY (%s) REFERENCES %s (id)", f[0], whName(t.schema, f[1], postgres)))
		}
		stmts = append(stmts, fmt.Sprintf("CREATE TABLE %s (%s)", whName(t.schema, t.name, postgres), strings.Join(defs, ", ")))
	}
	return stmts
}

// whName is a table's name in the DDL: quoted, after its schema on
// PostgreSQL, its schema a prefix on SQLite.
func whName(schema, name string, postgres bool) string {
	q := func(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }
	switch {
	case schema == "":
		return q(name)
	case postgres:
		return q(schema) + "." + q(name)
	}
	return q(schema + "_" + name)
}

// whNeed is how the card writes a needed table on the engine.
func whNeed(need string, postgres bool) string {
	if !postgres {
		return strings.Replace(need, ".", "_", 1)
	}
	return need
}

// onCard reports whether the card has the table's line, or names the
// shard among those it picks for the question.
func onCard(card, name string) bool {
	return regexp.MustCompile(`(?m)(^|[ ,:])` + regexp.QuoteMeta(name) + `([ (,]|$)`).MatchString(card)
}

// warehouseCards opens the generated warehouse on the engine and returns
// the card for each question, at the default budget.
func warehouseCards(t *testing.T, src sessionio.Source, postgres bool) []string {
	dbtest.Exec(t, src, whDDL(warehouse(), postgres)...)
	var boxes SQLToolboxes
	defer boxes.Close()
	box, err := boxes.Open(context.Background(), src, nil)
	require.NoError(t, err)
	// The schema is read once without the prompt's deadline, which a busy
	// machine under the race detector can pass on 6,000 columns.
	_, err = box.(*sqlToolbox).db.Schema(context.Background())
	require.NoError(t, err)
	var cards []string
	for _, q := range whQuestions {
		card := box.(*sqlToolbox).DescribeFor(context.Background(), q.question)
		_, card, _ = strings.Cut(card, ">\n")
		cards = append(cards, card)
	}
	return cards
}

// TestWarehouseCard: on a generated warehouse of 300 tables, the card
// holds every table each question needs, within the budget, and names
// the shards of the question's dates.
func TestWarehouseCard(t *testing.T) {
	for _, engine := range []struct {
		name     string
		source   func(testing.TB) sessionio.Source
		postgres bool
	}{{"sqlite", dbtest.SQLite, false}, {"postgres", dbtest.Postgres, true}} {
		t.Run(engine.name, func(t *testing.T) {
			cards := warehouseCards(t, engine.source(t), engine.postgres)
			found := 0
			for i, q := range whQuestions {
				card := cards[i]
				assert.LessOrEqual(t, len(card), DefaultSchemaBudget+len("\n</data-0123456789abcdef>"), q.question)
				all := true
				for _, need := range q.needs {
					if !onCard(card, whNeed(need, engine.postgres)) {
						all = false
						t.Errorf("%q: %s is not on the card:\n%s", q.question, need, card)
					}
				}
				for _, not := range q.notPicked {
					assert.False(t, onCard(card, not), "%q: the card names %s", q.question, not)
				}
				if all {
					found++
				}
			}
			t.Logf("%s: every needed table on the card for %d of %d questions", engine.name, found, len(whQuestions))
		})
	}
}
