package tools

import (
	"context"

	"github.com/aiq/aiq-rpc/sessionio"
	"github.com/aiq/aiq-rpc/tools/engine"
	"github.com/aiq/aiq-rpc/tools/engine/mysql"
	"github.com/aiq/aiq-rpc/tools/engine/postgres"
	"github.com/aiq/aiq-rpc/tools/engine/sqlite"
)

// Drivers returns the engines a source may be opened on, one a dialect.
// Adding an engine is its folder under tools/engine and one line here.
func Drivers() []engine.Driver {
	return []engine.Driver{postgres.Driver, mysql.Driver, sqlite.Driver}
}

// Open returns the DB of src on the engine of its type. It validates the
// configuration but does not connect: a server that is down fails the
// statements, not Open.
func Open(ctx context.Context, src sessionio.Source, opts engine.Options) (*engine.DB, error) {
	return engine.Open(ctx, src, opts, Drivers())
}
