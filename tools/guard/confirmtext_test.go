package guard

import "testing"

func TestDryRunText(t *testing.T) {
	n := func(v int64) *int64 { return &v }
	for _, c := range []struct {
		req  ConfirmRequest
		want string
	}{
		{ConfirmRequest{SQL: "DELETE FROM order_items", DryRun: "ok", AffectedRows: n(5008)}, "This DELETE would remove 5,008 rows (counted in a transaction that was rolled back)."},
		{ConfirmRequest{SQL: "insert into t values (1)", DryRun: "ok", AffectedRows: n(1)}, "This INSERT would add 1 row (counted in a transaction that was rolled back)."},
		{ConfirmRequest{SQL: "UPDATE t SET a = 1", DryRun: "ok", AffectedRows: n(1234567)}, "This UPDATE would change 1,234,567 rows (counted in a transaction that was rolled back)."},
		{ConfirmRequest{SQL: "DELETE FROM trig", DryRun: "skipped", DryRunReason: "the table trig has triggers"}, "The rows it would change were not counted beforehand: the table trig has triggers."},
		{ConfirmRequest{SQL: "DELETE FROM t", DryRun: "failed", DryRunReason: "it took longer than the statement timeout (30s)"}, "A trial run in a transaction that was rolled back failed: it took longer than the statement timeout (30s)."},
		{ConfirmRequest{SQL: "DROP TABLE t"}, ""},
	} {
		if got := c.req.DryRunText(); got != c.want {
			t.Errorf("%+v: %q, want %q", c.req, got, c.want)
		}
	}
}
