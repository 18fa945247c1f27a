package conversation

import (
	"context"
	"strings"

	"github.com/aiq/aiq-rpc/tools/engine"
	"github.com/aiq/aiq-rpc/tools/sqltext"
)

// Info describes the open session id.
func (w *Workspace) Info(ctx context.Context, id string) (Info, error) {
	o, err := w.get(id)
	if err != nil {
		return Info{}, err
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.info(), nil
}

// The risks of a statement, as StatementRisk reads them.
const (
	RiskRead  = "read"
	RiskWrite = "write" // changes data
	RiskDDL   = "ddl"   // changes the schema or the privileges
)

// StatementRisk says what running sql on a database of databaseType may
// do, by the same classifier that decides whether to ask the user first:
// RiskRead only for a statement that cannot change anything. A text that is
// not one statement, or an unknown engine, is a RiskWrite.
func StatementRisk(sql, databaseType string) string {
	v, err := sqltext.Classify(sql, engine.DialectOf(databaseType))
	switch {
	case err != nil:
		return RiskWrite
	case v.Class == sqltext.ReadOnly:
		return RiskRead
	}
	first, _, _ := strings.Cut(strings.TrimSpace(v.Kind), " ")
	switch strings.ToUpper(first) {
	case "CREATE", "ALTER", "DROP", "TRUNCATE", "RENAME", "COMMENT", "GRANT", "REVOKE":
		return RiskDDL
	}
	return RiskWrite
}
