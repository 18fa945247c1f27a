package engine

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// find runs findShards on names whose columns are given by sig (the same for
// all when nil).
func find(names []string, sig map[string]string) []ShardSet {
	return findShards(names, func(i int) string { return sig[names[i]] })
}

func TestFindShards(t *testing.T) {
	var names []string
	for d := 1; d <= 30; d++ {
		names = append(names, fmt.Sprintf("events_202011%02d", d))
	}
	names = append(names, "gsod2014", "gsod2015", "gsod2016", "zcta5_2018_5yr", "zcta5_2019_5yr", "zcta5_2020_5yr",
		"part_1", "part_2", "part_10", "customers")
	sets := find(names, nil)
	require.Len(t, sets, 4)
	assert.Equal(t, "events_YYYYMMDD", sets[0].Pattern)
	assert.Len(t, sets[0].Members, 30)
	assert.Equal(t, "20201101 .. 20201130", sets[0].Range())
	assert.Equal(t, "gsodYYYY", sets[1].Pattern)
	assert.Equal(t, "zcta5_YYYY_5yr", sets[2].Pattern, "the run that varies makes the set, not the 5 of zcta5")
	assert.Equal(t, "part_N", sets[3].Pattern)
	assert.Equal(t, []string{"1", "2", "10"}, sets[3].Keys, "numbers in order, not as text")
	assert.False(t, sets[3].Dated())
}

func TestNotShards(t *testing.T) {
	// Different columns: a table and its copy, not shards.
	assert.Empty(t, find([]string{"order_items", "order_items_2", "order_items_3"},
		map[string]string{"order_items": "a", "order_items_2": "b", "order_items_3": "c"}))
	// Two alike are a copy more often than a series.
	assert.Empty(t, find([]string{"orders_2020", "orders_2021"}, nil))
	// Names that differ in letters are not shards.
	assert.Empty(t, find([]string{"a1", "b1", "c1"}, nil))
	// Three numbered tables of which one has other columns: two alike
	// are left, too few for a set.
	assert.Empty(t, find([]string{"t_1", "t_2", "t_3"}, map[string]string{"t_2": "other"}))
	// Some alike, one apart: the set is the alike ones.
	sets := find([]string{"s_2001", "s_2002", "s_2003", "s_2004"}, map[string]string{"s_2004": "other"})
	require.Len(t, sets, 1)
	assert.Equal(t, []string{"2001", "2002", "2003"}, sets[0].Keys)
}

func TestPick(t *testing.T) {
	daily := ShardSet{Pattern: "events_YYYYMMDD"}
	for _, k := range []string{"20201130", "20201201", "20201215", "20201231", "20210101"} {
		daily.Keys = append(daily.Keys, k)
		daily.Members = append(daily.Members, len(daily.Members))
	}
	keys := func(s ShardSet, q string) []string {
		var out []string
		for _, p := range s.Pick(q) {
			out = append(out, s.Keys[p])
		}
		return out
	}
	assert.Equal(t, []string{"20201201", "20201215", "20201231"}, keys(daily, "events in December 2020"))
	assert.Equal(t, []string{"20201201", "20201215", "20201231"}, keys(daily, "events in Dec 2020"))
	assert.Equal(t, []string{"20210101"}, keys(daily, "events on 2021-01-01"))
	assert.Equal(t, []string{"20210101"}, keys(daily, "events in 2021"))
	assert.Empty(t, keys(daily, "events per platform"))
	assert.Empty(t, keys(daily, "what may happen"), "may is a word, not a month, without a year")

	yearly := ShardSet{Pattern: "storms_YYYY"}
	for y := 1950; y <= 2024; y++ {
		yearly.Keys = append(yearly.Keys, fmt.Sprint(y))
		yearly.Members = append(yearly.Members, len(yearly.Members))
	}
	past := keys(yearly, "storms in the past 10 years")
	assert.Equal(t, []string{"2015", "2024"}, []string{past[0], past[len(past)-1]})
	assert.Len(t, past, 10)
	assert.Equal(t, []string{"2014"}, keys(yearly, "storms of 2014"))
	assert.Empty(t, keys(yearly, "storms in December"), "a month picks no yearly shard")
	assert.Empty(t, (&ShardSet{Pattern: "part_N", Keys: []string{"1", "2", "3"}}).Pick("in 2020"))
}

// FuzzPick: any question and any keys give picks within the set, in key
// order, without a panic.
func FuzzPick(f *testing.F) {
	f.Add("events in December 2020", "20201130 20201201 20210101")
	f.Add("the past 10 years", "1950 2024")
	f.Add("last 3 months", "202001 202012")
	f.Fuzz(func(t *testing.T, question, keys string) {
		var names []string
		for _, k := range strings.Fields(keys) {
			names = append(names, "t_"+k)
		}
		for _, set := range find(names, nil) {
			last := -1
			for _, p := range set.Pick(question) {
				if p <= last || p >= len(set.Keys) {
					t.Fatalf("pick %d after %d of %d keys", p, last, len(set.Keys))
				}
				last = p
			}
		}
	})
}

// schemaOf is tables of the given names, each with the columns given
// for it ("name type" joined by commas).
func schemaOf(tables ...[2]string) *Schema {
	s := &Schema{}
	for _, tc := range tables {
		t := Table{Name: tc[0]}
		for _, c := range strings.Split(tc[1], ",") {
			name, typ, _ := strings.Cut(strings.TrimSpace(c), " ")
			t.Columns = append(t.Columns, Column{Name: name, Type: typ})
		}
		s.Tables = append(s.Tables, t)
	}
	return s
}

// TestShardsByColumns: what makes a set is the names and the columns
// read from the catalog, not the names alone.
func TestShardsByColumns(t *testing.T) {
	const items = "id int, order_id int, sku text"
	patterns := func(s *Schema) []string {
		var out []string
		for _, set := range s.Shards() {
			var members []string
			for _, m := range set.Members {
				members = append(members, s.Tables[m].Name)
			}
			out = append(out, set.Pattern+": "+strings.Join(members, " "))
		}
		return out
	}

	// The same columns: a set, in key order.
	assert.Equal(t, []string{"order_items_N: order_items_1 order_items_2 order_items_3"}, patterns(schemaOf(
		[2]string{"order_items_3", items}, [2]string{"order_items_1", items}, [2]string{"order_items_2", items})))

	// Each of other columns: a table and its copies, no set.
	assert.Empty(t, patterns(schemaOf([2]string{"order_items_1", items},
		[2]string{"order_items_2", "id int, order_ref text"}, [2]string{"order_items_3", "id int, sku text, qty int"})))
	assert.Empty(t, patterns(schemaOf([2]string{"order_items", items},
		[2]string{"order_items_2", "id int, order_ref text"}, [2]string{"order_items_3", "id int, sku text, qty int"})))
	// A column of another type is another column.
	assert.Empty(t, patterns(schemaOf([2]string{"order_items_1", items},
		[2]string{"order_items_2", "id bigint, order_id int, sku text"}, [2]string{"order_items_3", "id int, order_id int, sku varchar"})))
	// The unnumbered table beside two numbered ones of its columns: two
	// numbered tables are too few for a set.
	assert.Empty(t, patterns(schemaOf([2]string{"order_items", items}, [2]string{"order_items_2", items}, [2]string{"order_items_3", items})))

	// Four numbered tables of which one has other columns: the other three
	// are the set, without it.
	assert.Equal(t, []string{"storms_YYYY: storms_2001 storms_2002 storms_2004"}, patterns(schemaOf(
		[2]string{"storms_2001", "storm_id text, deaths int"}, [2]string{"storms_2002", "storm_id text, deaths int"},
		[2]string{"storms_2003", "storm_id text, deaths int, state text"}, [2]string{"storms_2004", "storm_id text, deaths int"})))

	// Shards in two schemas are two tables each, not a set of four.
	s := schemaOf([2]string{"log_1", items}, [2]string{"log_2", items}, [2]string{"log_3", items}, [2]string{"log_4", items})
	s.Tables[2].Schema, s.Tables[3].Schema = "other", "other"
	assert.Empty(t, patterns(s))
}
