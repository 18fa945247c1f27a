package tools

import (
	"strings"
	"testing"

	"github.com/aiq/aiq-rpc/tools/engine"
)

// testSchema has a table in the default schema and two of the same name in
// others.
var testSchema = &engine.Schema{Tables: []engine.Table{
	{Name: "orders", Columns: []engine.Column{{Name: "id", Type: "integer"}, {Name: "total", Type: "numeric", Nullable: true}}},
	{Schema: "sales", Name: "Orders", Columns: []engine.Column{{Name: "x", Type: "text"}}},
	{Schema: "audit", Name: "log", Columns: []engine.Column{{Name: "at", Type: "timestamp"}}},
}}

func TestSchemaTable(t *testing.T) {
	for name, want := range map[string]string{
		"orders":       "orders",
		"sales.Orders": "sales.Orders",
		"AUDIT.LOG":    "audit.log",
		"log":          "audit.log",
	} {
		got, ok := testSchema.Table(name)
		if !ok || got.QualifiedName() != want {
			t.Errorf("Table(%q) = %q, %v; want %q", name, got.QualifiedName(), ok, want)
		}
	}
	// "ORDERS" matches two tables regardless of case: ambiguous.
	if got, ok := testSchema.Table("ORDERS"); ok {
		t.Errorf("Table(ORDERS) = %q, want no match", got.QualifiedName())
	}
	if _, ok := testSchema.Table("nope"); ok {
		t.Error("Table(nope) found a table")
	}
	if got := strings.Join(testSchema.Names(), ","); got != "orders,sales.Orders,audit.log" {
		t.Errorf("Names = %s", got)
	}
}
