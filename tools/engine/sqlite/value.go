package sqlite

import (
	"database/sql"
	"time"

	"github.com/aiq/aiq-rpc/tools/engine"
)

// converter returns the converter of the values of a SQLite result:
// the values as stored, except that the driver reads a text of a column
// declared DATE, DATETIME or TIMESTAMP as a time.Time, which goes back to
// SQLite's own text form rather than to RFC 3339 (see timeText).
func converter(types []*sql.ColumnType) func(i int, v any) any {
	names := engine.SQLTypeNames(types)
	return func(i int, v any) any {
		if t, ok := v.(time.Time); ok {
			return timeText(names[i], t)
		}
		return engine.JSONValue(v)
	}
}

// timeText writes a time as SQLite's date and time functions do:
// 2024-01-02 for a DATE at midnight, else 2024-01-02 13:45:00 with the
// fraction of a second when there is one, and the offset when it is not
// UTC.
func timeText(typeName string, t time.Time) string {
	_, offset := t.Zone()
	if typeName == "date" && offset == 0 && t.Hour() == 0 && t.Minute() == 0 && t.Second() == 0 && t.Nanosecond() == 0 {
		return t.Format(time.DateOnly)
	}
	layout := "2006-01-02 15:04:05.999999999"
	if offset != 0 {
		layout += "-07:00"
	}
	return t.Format(layout)
}
