package tools

import (
	"github.com/aiq/aiq-rpc/tools/engine"
	"github.com/aiq/aiq-rpc/tools/guard"
)

// refuseStatistics returns the refusal of a statement that reads a
// statistics catalog on a source with masks, or nil.
func (s *Set) refuseStatistics(sql string) *engine.StatementResult {
	name := s.mask.ReadsStatistics(sql)
	if name == "" {
		return nil
	}
	samples := " keeps samples of column values (most common values, histograms, minimum and maximum), and this source masks columns"
	if guard.ReadsStorage(name) {
		samples = " reads the tables' storage as it lies on disk, every column of every row, and this source masks columns"
	}
	return s.refused(sql, engine.StatusRejected, "This statement reads "+name+", which"+samples+", so it did not run.",
		"not run: "+name+samples+". Use profile_column for a column's distinct count, nulls and common values (masked ones as tokens), or count and group with SQL")
}
