package engine

import (
	"strconv"
	"strings"
)

// Shards returns the sets of tables that are one table cut by a date or
// a number: names that differ only in a run of digits, in one schema,
// with the same columns (names and types) and foreign keys.
func (s *Schema) Shards() []ShardSet {
	names := make([]string, len(s.Tables))
	for i := range s.Tables {
		names[i] = s.Tables[i].Name
	}
	return findShards(names, func(i int) string { return shardSignature(&s.Tables[i]) })
}

// shardSignature is what the shards of a set share.
func shardSignature(t *Table) string {
	var b strings.Builder
	b.WriteString(t.Schema)
	for _, c := range t.Columns {
		b.WriteString("\x00" + c.Name + "\x01" + c.Type)
	}
	for _, fk := range t.ForeignKeys {
		b.WriteString("\x02" + fk.RefSchema + "." + fk.RefTable)
	}
	return b.String()
}

// SetName is a set's pattern after its schema: "events_YYYYMMDD".
func (s *Schema) SetName(set *ShardSet) string {
	if sc := s.Tables[set.Members[0]].Schema; sc != "" {
		return sc + "." + set.Pattern
	}
	return set.Pattern
}

// SetLine writes a set of shards in one line, "events_YYYYMMDD: 92
// tables, 20201101 .. 20210131", then its first shard's columns as its
// line writes them, without the row estimate of that one shard.
func (s *Schema) SetLine(set *ShardSet) (head, body string) {
	first := s.Tables[set.Members[0]]
	head = s.SetName(set) + ": " + strconv.Itoa(len(set.Members)) + " tables, " + set.Range()
	first.Rows = -1
	line := s.Line(&first)
	prefix := s.TableName(&first)
	if first.View {
		prefix = "view " + prefix
	}
	return head, " " + line[len(prefix):]
}

// CutLine writes the table's line cut to at most room bytes: head (its
// name, "" for the name as SQL writes it), the columns keep chooses and
// those of its primary and foreign keys, in the table's order, then "and
// N more columns (describe_table)". It is "" when not even the head and
// that fit.
func (s *Schema) CutLine(t *Table, head string, keep func(i int) bool, room int) string {
	if head == "" {
		head = s.TableName(t)
	}
	if len(head)+len("()")+len(moreColumns(len(t.Columns))) > room {
		return ""
	}
	var b strings.Builder
	b.WriteString(head + "(")
	written := 0
	var col strings.Builder
	for i := range t.Columns {
		c := &t.Columns[i]
		if !t.isKeyColumn(c.Name) && !keep(i) {
			continue
		}
		col.Reset()
		if written > 0 {
			col.WriteString(", ")
		}
		s.writeColumn(&col, t, c, maxLineComment, maxValuesText)
		if b.Len()+col.Len()+len(moreColumns(len(t.Columns)-written-1))+1 > room {
			break
		}
		b.WriteString(col.String())
		written++
	}
	more := moreColumns(len(t.Columns) - written)
	if written == 0 {
		more = strings.TrimPrefix(more, ", ")
	}
	return b.String() + more + ")"
}

// moreColumns is the end of a cut line.
func moreColumns(n int) string {
	if n <= 0 {
		return ""
	}
	return ", and " + strconv.Itoa(n) + " more columns (describe_table)"
}

// isKeyColumn reports whether the column is in the primary key or a
// foreign key.
func (t *Table) isKeyColumn(name string) bool {
	for _, k := range t.PrimaryKey {
		if k == name {
			return true
		}
	}
	for _, fk := range t.ForeignKeys {
		for _, c := range fk.Columns {
			if c == name {
				return true
			}
		}
	}
	return false
}

// maxShardNames bounds the shards a set's card names.
const maxShardNames = 200

// FindSet finds the set of shards whose pattern is name ("events_YYYYMMDD",
// any case, after its schema or not).
func (s *Schema) FindSet(name string) *ShardSet {
	name = unquoteQualified(strings.TrimSpace(name))
	if !strings.ContainsAny(name, "YN") && !strings.ContainsAny(name, "yn") {
		return nil
	}
	for _, set := range s.Shards() {
		if strings.EqualFold(s.SetName(&set), name) || strings.EqualFold(set.Pattern, name) {
			return &set
		}
	}
	return nil
}

// SetCard is the full card of a set of shards, for describe_table: which
// shards there are, then the card of the first, whose columns they all
// have.
func (s *Schema) SetCard(set *ShardSet) string {
	var b strings.Builder
	b.WriteString("shards " + s.SetName(set) + ": " + strconv.Itoa(len(set.Members)) + " tables of the same columns, " + set.Range() + ": ")
	b.WriteString(s.ShardNames(set, maxShardNames))
	b.WriteString("\nthe first of them:\n")
	b.WriteString(s.Card(&s.Tables[set.Members[0]]))
	return b.String()
}

// ShardNames lists up to n of a set's shards by name, the first and the
// last ones when there are more.
func (s *Schema) ShardNames(set *ShardSet, n int) string {
	var names []string
	for i, m := range set.Members {
		if len(set.Members) > n && i == n/2 {
			names = append(names, "…")
		}
		if len(set.Members) <= n || i < n/2 || i >= len(set.Members)-n/2 {
			names = append(names, s.TableName(&s.Tables[m]))
		}
	}
	return strings.Join(names, ", ")
}
