package engine

import "github.com/aiq/aiq-rpc/tools/sqltext"

// Schema is the tables and views of a database that the model may query,
// as the catalog states them.
type Schema struct {
	Tables []Table `json:"tables"`
	// Dialect decides how names that need quoting are quoted.
	Dialect sqltext.Dialect `json:"-"`
}

// Table is one table or view.
type Table struct {
	// Schema is the table's schema (PostgreSQL) when it is not the default
	// one, where the table's name alone finds it; "" otherwise.
	Schema  string   `json:"schema,omitempty"`
	Name    string   `json:"name"`
	Columns []Column `json:"columns"`
	// View marks a view (or a materialized view).
	View    bool   `json:"view,omitempty"`
	Comment string `json:"comment,omitempty"`
	// Rows estimates the number of rows from the catalog; -1 when unknown.
	// RowsAtLeast says that Rows is a bound that a count stopped at.
	Rows        int64 `json:"rows"`
	RowsAtLeast bool  `json:"rowsAtLeast,omitempty"`
	// PrimaryKey names the primary key's columns in key order.
	PrimaryKey  []string     `json:"primaryKey,omitempty"`
	Unique      [][]string   `json:"unique,omitempty"`
	ForeignKeys []ForeignKey `json:"foreignKeys,omitempty"`
	Indexes     []Index      `json:"indexes,omitempty"`
}

// Column is one column of a table.
type Column struct {
	Name     string `json:"name"`
	Type     string `json:"type"`
	Nullable bool   `json:"nullable"`
	Comment  string `json:"comment,omitempty"`
	// Values are the allowed values the catalog states: an enum type, an
	// ENUM column or a CHECK (x IN (...)) constraint.
	Values []string `json:"values,omitempty"`
}

// ForeignKey is a foreign key of a table: Columns reference RefColumns of
// the table RefTable, in RefSchema as Table.Schema names it.
type ForeignKey struct {
	Columns    []string `json:"columns"`
	RefSchema  string   `json:"refSchema,omitempty"`
	RefTable   string   `json:"refTable"`
	RefColumns []string `json:"refColumns"`
}

// Index is an index of a table; Columns are its columns in order, "" for
// an expression.
type Index struct {
	Name    string   `json:"name"`
	Columns []string `json:"columns"`
	Unique  bool     `json:"unique,omitempty"`
}

// QualifiedName returns the name by which SQL finds the table: the name,
// after the schema when there is one.
func (t Table) QualifiedName() string {
	if t.Schema == "" {
		return t.Name
	}
	return t.Schema + "." + t.Name
}

// Table finds a table by its name or its qualified name (schema.name),
// as Lookup does.
func (s *Schema) Table(name string) (Table, bool) {
	if t, ok := s.Lookup(name); ok {
		return *t, true
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
