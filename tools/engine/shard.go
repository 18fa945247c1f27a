package engine

// This file finds the tables of a catalog that are one table cut in pieces
// by a date or a number (events_20201101 .. events_20210131, storms_1950 ..
// storms_2024, gsod2014, zcta5_2018_5yr), from the names and the columns
// alone, so that the model reads them as one table and a question's dates
// pick the pieces it needs.

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// minShards is the fewest tables that make a set: two tables of the same
// columns a number apart (orders, orders_2) are more often a copy than a
// series.
const minShards = 3

// ShardSet is tables whose names differ only in one run of digits and whose
// columns are the same.
type ShardSet struct {
	// Pattern is the name with the run written as what it holds:
	// YYYYMMDD, YYYYMM, YYYY or N (events_YYYYMMDD).
	Pattern string
	// Members index the tables given to findShards, in the order of their keys;
	// Keys are their runs of digits (20201101).
	Members []int
	Keys    []string
}

// findShards returns the sets among tables named names, where same(i, j)
// reports whether tables i and j have the same columns (and schema). A
// table belongs to one set at most: the largest its name allows.
func findShards(names []string, signature func(i int) string) []ShardSet {
	type candidate struct {
		members []int
		keys    []string
		prefix  string
		suffix  string
	}
	byKey := map[string]*candidate{}
	var order []string
	for i, name := range names {
		sig := signature(i)
		for _, run := range digitRuns(name) {
			prefix, digits, suffix := name[:run[0]], name[run[0]:run[1]], name[run[1]:]
			k := prefix + "\x00" + suffix + "\x00" + sig
			c := byKey[k]
			if c == nil {
				c = &candidate{prefix: prefix, suffix: suffix}
				byKey[k] = c
				order = append(order, k)
			}
			c.members = append(c.members, i)
			c.keys = append(c.keys, digits)
		}
	}
	var cands []*candidate
	for _, k := range order {
		if c := byKey[k]; len(c.members) >= minShards {
			cands = append(cands, c)
		}
	}
	// The largest sets first: a name of two runs (zcta5_2018_5yr) joins
	// the set its varying run makes.
	slices.SortStableFunc(cands, func(a, b *candidate) int { return len(b.members) - len(a.members) })
	taken := make([]bool, len(names))
	var sets []ShardSet
	for _, c := range cands {
		var s ShardSet
		for j, m := range c.members {
			if !taken[m] {
				s.Members = append(s.Members, m)
				s.Keys = append(s.Keys, c.keys[j])
			}
		}
		if len(s.Members) < minShards {
			continue
		}
		for _, m := range s.Members {
			taken[m] = true
		}
		sortByKey(&s)
		s.Pattern = c.prefix + kind(s.Keys) + c.suffix
		sets = append(sets, s)
	}
	slices.SortFunc(sets, func(a, b ShardSet) int { return a.Members[0] - b.Members[0] })
	return sets
}

// digitRuns returns the [start, end) of each run of ASCII digits in name.
func digitRuns(name string) [][2]int {
	var runs [][2]int
	for i := 0; i < len(name); {
		if !isDigit(name[i]) {
			i++
			continue
		}
		j := i
		for j < len(name) && isDigit(name[j]) {
			j++
		}
		runs = append(runs, [2]int{i, j})
		i = j
	}
	return runs
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// sortByKey orders the members by their keys as numbers.
func sortByKey(s *ShardSet) {
	idx := make([]int, len(s.Members))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		ka, kb := s.Keys[a], s.Keys[b]
		return cmp.Or(cmp.Compare(len(ka), len(kb)), strings.Compare(ka, kb))
	})
	members, keys := make([]int, len(idx)), make([]string, len(idx))
	for i, j := range idx {
		members[i], keys[i] = s.Members[j], s.Keys[j]
	}
	s.Members, s.Keys = members, keys
}

// kind names what every key holds: a date, a month, a year, or a number.
func kind(keys []string) string {
	all := func(layout string) bool {
		for _, k := range keys {
			if len(k) != len(layout) {
				return false
			}
			if _, err := time.Parse(layout, k); err != nil {
				return false
			}
			if y, _ := strconv.Atoi(k[:4]); y < 1800 || y > 2200 {
				return false
			}
		}
		return true
	}
	switch {
	case all("20060102"):
		return "YYYYMMDD"
	case all("200601"):
		return "YYYYMM"
	case all("2006"):
		return "YYYY"
	}
	return "N"
}

// Dated reports whether the set's keys are dates, months or years.
func (s *ShardSet) Dated() bool {
	return strings.Contains(s.Pattern, "YYYY")
}

// Range is "20201101 .. 20210131".
func (s *ShardSet) Range() string {
	return s.Keys[0] + " .. " + s.Keys[len(s.Keys)-1]
}
