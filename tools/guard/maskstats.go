package guard

import (
	"regexp"
	"strings"

	"github.com/aiq/aiq-rpc/tools/sqltext"
)

// statisticsCatalogs are the catalogs that keep samples of column values
// for the planner: most common values, histogram bounds, minimum and
// maximum. On a source with masks they are masked sources too.
var statisticsCatalogs = map[string]bool{
	"pg_stats": true, "pg_statistic": true, "pg_stats_ext": true, "pg_stats_ext_exprs": true,
	"pg_statistic_ext": true, "pg_statistic_ext_data": true, "pg_mcv_list_items": true,
	"column_stats": true, "column_statistics": true,
}

// sqliteStat is SQLite's statistics tables: sqlite_stat1, sqlite_stat3,
// sqlite_stat4 and any later one.
var sqliteStat = regexp.MustCompile(`^sqlite_stat[0-9]+$`)

// ReadsStatistics returns the statistics catalog that sql names, in any
// way a server may read it, when m masks a column; "" when it names none.
// A statement that cannot be read is left to MaskedColumns, which masks
// its every column.
func (m *Masker) ReadsStatistics(sql string) string {
	if !m.active() {
		return ""
	}
	scans, ok := m.readings(sql)
	if !ok {
		return ""
	}
	for _, s := range scans {
		for _, t := range s.toks {
			if t.Kind != sqltext.TokWord && t.Kind != sqltext.TokQuoted {
				continue
			}
			name := strings.ToLower(t.Text)
			if statisticsCatalogs[name] || sqliteStat.MatchString(name) {
				return name
			}
		}
	}
	return ""
}
