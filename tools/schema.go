package tools

import (
	"context"
	"database/sql"
	"strconv"
	"strings"
)

// Schema is the tables and views of a database that the model may query.
type Schema struct {
	Tables []Table `json:"tables"`
}

// Table is one table or view.
type Table struct {
	// Schema is the table's schema (PostgreSQL) when it is not the default
	// one, where the table's name alone finds it; "" otherwise.
	Schema  string   `json:"schema,omitempty"`
	Name    string   `json:"name"`
	Columns []Column `json:"columns"`
}

// Column is one column of a table.
type Column struct {
	Name     string `json:"name"`
	Type     string `json:"type"`
	Nullable bool   `json:"nullable"`
}

// QualifiedName returns the name by which SQL finds the table: the name,
// after the schema when there is one.
func (t Table) QualifiedName() string {
	if t.Schema == "" {
		return t.Name
	}
	return t.Schema + "." + t.Name
}

// Summary describes the tables for the model's system prompt, one line
// each: "t(id integer, name text)". When that would take more than budget
// bytes, it lists only the table names, comma separated, so that the model
// knows them all and asks describe_table for the columns; when even the
// names do not fit, as many as fit, followed by how many were left out.
func (s *Schema) Summary(budget int) string {
	var b strings.Builder
	for _, t := range s.Tables {
		b.WriteString(t.QualifiedName())
		b.WriteByte('(')
		for i, c := range t.Columns {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(c.Name)
			b.WriteByte(' ')
			b.WriteString(c.Type)
		}
		b.WriteString(")\n")
		if b.Len() > budget {
			return s.names(budget)
		}
	}
	return b.String()
}

// names lists the table names within budget bytes: all of them, or those
// that fit and how many more there are.
func (s *Schema) names(budget int) string {
	names := s.Names()
	if all := strings.Join(names, ", "); len(all) <= budget {
		return all
	}
	var b strings.Builder
	for i, name := range names {
		piece := name
		if i > 0 {
			piece = ", " + name
		}
		if b.Len()+len(piece)+len(moreTables(len(names)-i-1)) > budget {
			b.WriteString(moreTables(len(names) - i))
			break
		}
		b.WriteString(piece)
	}
	return strings.TrimPrefix(b.String(), " ")
}

// moreTables notes that n more table names were left out; "" for none.
func moreTables(n int) string {
	switch n {
	case 0:
		return ""
	case 1:
		return " and 1 more table"
	}
	return " and " + strconv.Itoa(n) + " more tables"
}

// Table finds a table by its name or its qualified name (schema.name).
// An exact match wins; else the match must be unique regardless of case,
// as unquoted names are case-insensitive in SQL.
func (s *Schema) Table(name string) (Table, bool) {
	for _, t := range s.Tables {
		if t.Name == name || t.QualifiedName() == name {
			return t, true
		}
	}
	var found []Table
	for _, t := range s.Tables {
		if strings.EqualFold(t.Name, name) || strings.EqualFold(t.QualifiedName(), name) {
			found = append(found, t)
		}
	}
	if len(found) == 1 {
		return found[0], true
	}
	return Table{}, false
}

// Names returns the qualified names of the tables, in order.
func (s *Schema) Names() []string {
	names := make([]string, 0, len(s.Tables))
	for _, t := range s.Tables {
		names = append(names, t.QualifiedName())
	}
	return names
}

// schemaRow is one column as the introspection queries return it, in
// table order.
type schemaRow struct {
	schema, table string
	column        Column
}

// buildSchema groups the rows, which come sorted by table, into tables.
func buildSchema(rows []schemaRow) *Schema {
	s := &Schema{Tables: []Table{}}
	for _, r := range rows {
		n := len(s.Tables)
		if n == 0 || s.Tables[n-1].Name != r.table || s.Tables[n-1].Schema != r.schema {
			s.Tables = append(s.Tables, Table{Schema: r.schema, Name: r.table})
			n++
		}
		s.Tables[n-1].Columns = append(s.Tables[n-1].Columns, r.column)
	}
	return s
}

// querySchema runs a schema query whose rows are table, column, type and
// nullable, on a database/sql connection.
func querySchema(ctx context.Context, c *sql.Conn, query string) (*Schema, error) {
	rows, err := c.QueryContext(ctx, query)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var list []schemaRow
	for rows.Next() {
		var r schemaRow
		if err := rows.Scan(&r.table, &r.column.Name, &r.column.Type, &r.column.Nullable); err != nil {
			return nil, err
		}
		list = append(list, r)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return buildSchema(list), nil
}
