package postgres

import (
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/aiq/aiq-rpc/tools/engine"
)

// textKinds returns the kind and the type name (PostgreSQL's, such as
// int4, numeric, date, timestamptz, _int4 for an array) of each column of
// a result; the name of a type pgx does not know (an enum, an extension's
// type) is "".
func textKinds(m *pgtype.Map, oids []uint32) ([]engine.TextKind, []string) {
	kinds := make([]engine.TextKind, len(oids))
	names := make([]string, len(oids))
	for i, oid := range oids {
		if t, ok := m.TypeForOID(oid); ok {
			names[i] = t.Name
		}
		switch oid {
		case pgtype.Int2OID, pgtype.Int4OID, pgtype.Int8OID, pgtype.OIDOID, pgtype.XIDOID, pgtype.CIDOID:
			kinds[i] = engine.KindInt
		case pgtype.Float8OID:
			kinds[i] = engine.KindFloat8
		case pgtype.Float4OID:
			kinds[i] = engine.KindFloat4
		case pgtype.NumericOID:
			kinds[i] = engine.KindDecimal
		case pgtype.BoolOID:
			kinds[i] = engine.KindBool
		case pgtype.JSONOID, pgtype.JSONBOID:
			kinds[i] = engine.KindJSON
		case pgtype.ByteaOID:
			kinds[i] = engine.KindBytea
		}
	}
	return kinds, names
}
