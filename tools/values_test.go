package tools

import (
	"context"
	"testing"

	"github.com/aiq/aiq-rpc/tools/dbtest"
	"github.com/aiq/aiq-rpc/tools/engine"
)

// TestValues reads values of each engine's common types and checks the
// JSON the editor and the model get.
func TestValues(t *testing.T) {
	cases := map[string]struct{ sql, want string }{
		"postgres": {
			`SELECT 1::int2, 2::int8, 1.50::numeric, 'NaN'::numeric, 1.5::float4, 'Infinity'::float8, true,
				'2024-01-02'::date, '2024-01-02 03:04:05.5+00'::timestamptz, '\x00ff'::bytea, 'héllo'::bytea,
				'{"a": [1, 2]}'::jsonb, 'b1a5e8d0-0000-4000-8000-000000000001'::uuid, ARRAY[1, 2],
				interval '1 day', '10.0.0.1'::inet, NULL::text`,
			`[[1,2,1.50,"NaN",1.5,"+Inf",true,"2024-01-02T00:00:00Z","2024-01-02T03:04:05.5Z","AP8=","héllo",` +
				`{"a":[1,2]},"b1a5e8d0-0000-4000-8000-000000000001",[1,2],"1 day 00:00:00","10.0.0.1",null]]`,
		},
		"mariadb": {
			`SELECT 1, CAST(2 AS UNSIGNED), 1.50, 1.5e0, TIMESTAMP '2024-01-02 03:04:05', DATE '2024-01-02',
				X'00FF', 'héllo', b, j, NULL FROM v`,
			`[[1,2,1.50,1.5,"2024-01-02T03:04:05Z","2024-01-02T00:00:00Z","AP8=","héllo",5,"{\"a\": 1}",null]]`,
		},
		"sqlite": {
			`SELECT 1, 1.5, 'héllo', X'00FF', X'68C3A96C6C6F', NULL, 1e999`,
			`[[1,1.5,"héllo","AP8=","héllo",null,"+Inf"]]`,
		},
	}
	forEachEngine(t, func(t *testing.T, e testEngine) {
		c := cases[e.name]
		src := e.source(t)
		if e.name == "mariadb" {
			dbtest.Exec(t, src, "CREATE TABLE v (b BIT(3), j JSON)", `INSERT INTO v VALUES (b'101', '{"a": 1}')`)
		}
		db := openDB(t, src, engine.Options{})
		res := db.Run(context.Background(), c.sql, false)
		wantStatus(t, res, engine.StatusSuccess)
		if got := rowsJSON(t, res); got != c.want {
			t.Errorf("values\n got %s\nwant %s", got, c.want)
		}
	})
}
