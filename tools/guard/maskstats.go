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

// rawStorage are the functions and tables that read a table's storage as
// it lies on disk, every column of every row in its bytes (SQLite's
// sqlite_dbpage, PostgreSQL's pageinspect): no statement rule can see a
// masked column in them. An attacker read masked values in hex from
// sqlite_dbpage.
var rawStorage = map[string]bool{
	"sqlite_dbpage": true,
	"get_raw_page":  true, "heap_page_items": true, "heap_page_item_attrs": true, "tuple_data_split": true,
	"bt_page_items": true, "brin_page_items": true, "gin_leafpage_items": true, "gist_page_items": true,
	"hash_page_items": true, "bt_multi_page_stats": true,
}

// sqliteStat is SQLite's statistics tables: sqlite_stat1, sqlite_stat3,
// sqlite_stat4 and any later one.
var sqliteStat = regexp.MustCompile(`^sqlite_stat[0-9]+$`)

// ReadsStatistics returns the statistics catalog (or raw storage reader,
// see rawStorage) that sql names, in any way a server may read it, when m
// masks a column; "" when it names none.
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
			if statisticsCatalogs[name] || rawStorage[name] || sqliteStat.MatchString(name) {
				return name
			}
		}
	}
	return ""
}

// ReadsStorage reports whether name, as ReadsStatistics returns it, reads
// a table's storage rather than samples of its values.
func ReadsStorage(name string) bool { return rawStorage[name] }
