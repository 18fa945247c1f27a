package postgres

import (
	"encoding/json"
	"testing"

	"github.com/jackc/pgx/v5/pgtype"
)

// TestValue: a numeric, alone or in an array, is an exact JSON number, or
// text for NaN; other values are engine.JSONValue's.
func TestValue(t *testing.T) {
	var numeric pgtype.Numeric
	if err := numeric.Scan("12345678901234567890.123"); err != nil {
		t.Fatal(err)
	}
	var nan pgtype.Numeric
	if err := nan.Scan("NaN"); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		in   any
		want string
	}{
		{numeric, `12345678901234567890.123`},
		{nan, `"NaN"`},
		{pgtype.Numeric{}, `null`},
		{[]any{numeric, nan}, `[12345678901234567890.123,"NaN"]`},
		{[]byte("x"), `"x"`},
	} {
		got, err := json.Marshal(Value(c.in))
		if err != nil || string(got) != c.want {
			t.Errorf("Value(%#v) = %s, %v; want %s", c.in, got, err, c.want)
		}
	}
}
