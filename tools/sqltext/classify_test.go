package sqltext_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aiq/aiq-rpc/tools/sqltext"
	"github.com/aiq/aiq-rpc/tools/sqltext/sqltexttest"
)

var classifyDialects = []sqltext.Dialect{sqltext.DialectPostgres, sqltext.DialectMySQL, sqltext.DialectSQLite}

func classString(c sqltext.Class) string {
	switch c {
	case sqltext.ReadOnly:
		return "ReadOnly"
	case sqltext.Write:
		return "Write"
	}
	return fmt.Sprintf("Class(%d)", int(c))
}

func TestClassifyCases(t *testing.T) {
	names := map[string]bool{}
	runs := 0
	for _, c := range sqltexttest.ClassifyCases {
		require.False(t, names[c.Name], "duplicate case name %q", c.Name)
		names[c.Name] = true
		for _, d := range classifyDialects {
			if !c.In(d) {
				continue
			}
			runs++
			t.Run(string(d)+"/"+c.Name, func(t *testing.T) {
				v, err := sqltext.Classify(c.SQL, d)
				if c.WantErr {
					require.Error(t, err, "verdict %s %q", classString(v.Class), v.Kind)
					assert.Equal(t, sqltext.Verdict{}, v)
					return
				}
				require.NoError(t, err)
				assert.Equal(t, classString(c.Want), classString(v.Class), "kind %q, reason %q", v.Kind, v.Reason)
				assert.NotEmpty(t, v.Kind)
				assert.Equal(t, strings.ToUpper(v.Kind), v.Kind, "kind not upper case")
				if v.Class == sqltext.Write {
					assert.True(t, strings.HasSuffix(v.Reason, "."), "reason %q is not a sentence", v.Reason)
				} else {
					assert.Empty(t, v.Reason)
				}
			})
		}
	}
	assert.GreaterOrEqual(t, len(sqltexttest.ClassifyCases), 60)
	t.Logf("%d cases, %d runs", len(sqltexttest.ClassifyCases), runs)
}

func TestClassifyKind(t *testing.T) {
	tests := []struct {
		d      sqltext.Dialect
		sql    string
		kind   string
		reason string // a part of the reason, if not empty
	}{
		{sqltext.DialectPostgres, "SELECT 1", "SELECT", ""},
		{sqltext.DialectPostgres, "(select 1)", "SELECT", ""},
		{sqltext.DialectPostgres, "WITH x AS (DELETE FROM t RETURNING *) SELECT * FROM x", "WITH ... DELETE", "DELETE removes rows"},
		{sqltext.DialectPostgres, "SELECT * INTO t2 FROM t", "SELECT ... INTO", "into a table"},
		{sqltext.DialectPostgres, "EXPLAIN ANALYZE DELETE FROM t", "EXPLAIN ANALYZE", "runs the statement it explains: DELETE removes rows"},
		{sqltext.DialectPostgres, "explain analyze select 1", "EXPLAIN ANALYZE", ""},
		{sqltext.DialectPostgres, "SELECT nextval('s')", "SELECT ... NEXTVAL", "nextval advances a sequence."},
		{sqltext.DialectPostgres, "drop table if exists t", "DROP TABLE", "DROP TABLE deletes"},
		{sqltext.DialectPostgres, "CREATE OR REPLACE MATERIALIZED VIEW v AS SELECT 1", "CREATE MATERIALIZED VIEW", ""},
		{sqltext.DialectPostgres, "frobnicate", "FROBNICATE", "not a statement known to be read-only"},
		{sqltext.DialectPostgres, "SELECT delete FROM t", "SELECT ... DELETE", "quote a column"},
		{sqltext.DialectMySQL, "SELECT * FROM t FOR UPDATE", "SELECT ... FOR UPDATE", "locks the rows"},
		{sqltext.DialectMySQL, "SELECT * FROM t LOCK IN SHARE MODE", "SELECT ... LOCK IN SHARE MODE", ""},
		{sqltext.DialectMySQL, "start transaction", "START TRANSACTION", "aiq-rpc manages itself"},
		{sqltext.DialectMySQL, "LOAD DATA INFILE 'x' INTO TABLE t", "LOAD DATA", ""},
		{sqltext.DialectMySQL, "SELECT @a := 1", "SELECT ... :=", ""},
		{sqltext.DialectMySQL, `SELECT 'x\', GET_LOCK(0, 0) AS y -- '`, "SELECT ... GET_LOCK", "NO_BACKSLASH_ESCAPES"},
		{sqltext.DialectMySQL, "/*!99999 EXPLAIN */ /*!99998 DELETE FROM t WHERE id IN ( */ SELECT 1 /*!99998 ) */", "DELETE", "skips some executable comments"},
		{sqltext.DialectSQLite, "PRAGMA table_info(t)", "PRAGMA", ""},
		{sqltext.DialectSQLite, "PRAGMA journal_mode = WAL", "PRAGMA", "PRAGMA journal_mode with a value"},
		{sqltext.DialectSQLite, "INSERT INTO t VALUES (1, 'a')", "INSERT", "INSERT adds rows to a table."},
		{sqltext.DialectPostgres, "SELECT pg_read_file('/etc/hostname')", "SELECT ... PG_READ_FILE", "pg_read_file reads a file on the database server, outside the database."},
		{sqltext.DialectPostgres, "SELECT * FROM pg_ls_logicalsnapdir()", "SELECT ... PG_LS_LOGICALSNAPDIR", "lists a folder on the database server"},
		{sqltext.DialectPostgres, "SELECT dblink_connect('x')", "SELECT ... DBLINK_CONNECT", "over the network"},
		// What an attacker found: functions that run SQL given as text hide
		// a write, a file read or a session's end inside a string.
		{sqltext.DialectPostgres, "SELECT * FROM ts_stat('SELECT to_tsvector(x::text) FROM dblink_exec(''host=h'', ''DELETE FROM t'') x')", "SELECT ... TS_STAT", "runs SQL given as text"},
		{sqltext.DialectPostgres, "SELECT ts_rewrite('a'::tsquery, 'SELECT ''a''::tsquery, to_tsquery(pg_advisory_lock(42)::text)')", "SELECT ... TS_REWRITE", "runs SQL given as text"},
		{sqltext.DialectPostgres, "SELECT * FROM crosstab('SELECT pg_terminate_backend(1), 1, 1')", "SELECT ... CROSSTAB", "runs SQL given as text"},
		{sqltext.DialectPostgres, "SELECT table_to_xml('customers', true, false, '')", "SELECT ... TABLE_TO_XML", "reads tables named in text"},
		{sqltext.DialectPostgres, "SELECT txid_current()", "SELECT ... TXID_CURRENT", "uses one up"},
		{sqltext.DialectPostgres, "SELECT pg_replication_origin_create('x')", "SELECT ... PG_REPLICATION_ORIGIN_CREATE", "replication state"},
		{sqltext.DialectPostgres, "COPY t TO PROGRAM 'gzip > /tmp/t.gz'", "COPY ... PROGRAM", "runs a command on the database server"},
		{sqltext.DialectPostgres, "COPY t FROM '/tmp/t.csv'", "COPY", "reads or writes a file on the database server"},
		{sqltext.DialectPostgres, "EXPLAIN ANALYZE EXPLAIN ANALYZE DELETE FROM t", "EXPLAIN ANALYZE", "runs the statement it explains: DELETE removes rows"},
		{sqltext.DialectMySQL, "SELECT LOAD_FILE('/etc/hostname')", "SELECT ... LOAD_FILE", "load_file reads a file on the database server"},
		{sqltext.DialectMySQL, "SELECT * FROM t INTO OUTFILE '/tmp/t'", "SELECT ... INTO OUTFILE", "writes the result to a file on the database server"},
		{sqltext.DialectMySQL, "LOAD DATA LOCAL INFILE 'x' INTO TABLE t", "LOAD DATA LOCAL", "on the machine aiq-rpc runs on"},
		{sqltext.DialectMySQL, "CREATE DEFINER=`root`@`%` PROCEDURE p() BEGIN SELECT 1; END", "CREATE PROCEDURE", ""},
		{sqltext.DialectMySQL, "CREATE AGGREGATE FUNCTION f(x INT) RETURNS INT BEGIN RETURN 1; END", "CREATE AGGREGATE FUNCTION", ""},
		{sqltext.DialectMySQL, "BEGIN NOT ATOMIC SELECT 1; END", "BEGIN NOT ATOMIC", "compound statement"},
		{sqltext.DialectSQLite, "CREATE TEMP TRIGGER trg AFTER INSERT ON log BEGIN DELETE FROM t; END", "CREATE TRIGGER", "creates a new object"},
		{sqltext.DialectSQLite, "VACUUM INTO '/tmp/copy.db'", "VACUUM INTO", "writes a copy of the database to a file"},
		{sqltext.DialectSQLite, "SELECT readfile('/etc/hostname')", "SELECT ... READFILE", "on the machine aiq-rpc runs on"},
	}
	for _, tt := range tests {
		v, err := sqltext.Classify(tt.sql, tt.d)
		require.NoError(t, err, tt.sql)
		assert.Equal(t, tt.kind, v.Kind, tt.sql)
		if tt.reason != "" {
			assert.Contains(t, v.Reason, tt.reason, tt.sql)
		}
	}
}

// Errors say what is wrong, where, and what to do.
func TestClassifyErrors(t *testing.T) {
	tests := []struct {
		d     sqltext.Dialect
		sql   string
		parts []string
	}{
		{sqltext.DialectPostgres, "SELECT 1; DROP TABLE t", []string{"more than one statement", "line 1, column 11", `"DROP TABLE t"`, "run one statement per call"}},
		{sqltext.DialectSQLite, "SELECT 1;\n  DROP TABLE t", []string{"line 2, column 3"}},
		{sqltext.DialectMySQL, "SELECT 'é', 'abc", []string{"string", "line 1, column 13", "not closed"}},
		{sqltext.DialectPostgres, `SELECT "abc`, []string{"quoted identifier", "not closed"}},
		{sqltext.DialectPostgres, "SELECT $x$abc", []string{"dollar-quoted", "$x$"}},
		{sqltext.DialectPostgres, "SELECT 1 /* /* */", []string{"comment", "not closed", "*/"}},
		{sqltext.DialectMySQL, "SELECT 1 /*! 2", []string{"executable comment", "not closed"}},
		{sqltext.DialectSQLite, " -- only a comment", []string{"no statement", "send one SQL statement"}},
		{sqltext.DialectPostgres, `SELECT 'a\''; DROP TABLE t; --'`, []string{"more than one statement if the server runs with standard_conforming_strings off", "run one statement per call"}},
		{sqltext.DialectMySQL, "SELECT 1 /*! # x */", []string{"comment starts at line 1, column 14", "remove the inner comment"}},
		{sqltext.DialectMySQL, "SELECT 1 --\u00a0x", []string{"put a space after it"}},
		{sqltext.DialectSQLite, "SELECT 1\x00", []string{"NUL byte", "line 1, column 9"}},
		{sqltext.Dialect("oracle"), "SELECT 1", []string{`unknown SQL dialect "oracle"`}},
		{sqltext.DialectSQLite, "CREATE TRIGGER trg AFTER INSERT ON t BEGIN DELETE FROM t;", []string{"the BEGIN at line 1, column 38 is never closed with END"}},
		{sqltext.DialectMySQL, "CREATE PROCEDURE p()\nBEGIN\n  WHILE 1 DO SELECT 1; END IF;\nEND", []string{"the END IF at line 3, column 24 does not close the WHILE at line 3, column 3; end the WHILE with END WHILE"}},
		{sqltext.DialectMySQL, "CREATE PROCEDURE p() BEGIN WHILE 1 DO SELECT 1; END; END", []string{"does not close the WHILE", "with END WHILE"}},
		{sqltext.DialectMySQL, "CREATE PROCEDURE p() BEGIN IF 1 THEN SELECT 1; END IF; END IF", []string{"the END IF at line 1, column 56 does not close the BEGIN at line 1, column 22; end the BEGIN with END"}},
		{sqltext.DialectMySQL, "CREATE PROCEDURE p() BEGIN SELECT 1; END; DROP TABLE t", []string{"more than one statement", `"DROP TABLE t"`}},
	}
	for _, tt := range tests {
		v, err := sqltext.Classify(tt.sql, tt.d)
		require.Error(t, err, tt.sql)
		assert.Equal(t, sqltext.Verdict{}, v)
		for _, p := range tt.parts {
			assert.Contains(t, err.Error(), p, tt.sql)
		}
	}
}

// With more executable comments than can be read every way, a read-only
// looking statement is a write.
func TestClassifyManyExecComments(t *testing.T) {
	sql := "SELECT 1" + strings.Repeat(" /*!, 1 */", sqltext.MaxExecComments+1)
	v, err := sqltext.Classify(sql, sqltext.DialectMySQL)
	require.NoError(t, err)
	assert.Equal(t, sqltext.Write, v.Class)
	assert.Contains(t, v.Reason, "too many")

	sql = "SELECT 1" + strings.Repeat(" /*!, 1 */", sqltext.MaxExecComments)
	v, err = sqltext.Classify(sql, sqltext.DialectMySQL)
	require.NoError(t, err)
	assert.Equal(t, sqltext.ReadOnly, v.Class)

	// A long statement affords fewer: its work stays linear.
	long := strings.Repeat(`, 'a\'b', "c"`, sqltext.MaxReadingTokens/16)
	v, err = sqltext.Classify("SELECT 1 /*!, 2 */"+long, sqltext.DialectMySQL)
	require.NoError(t, err)
	assert.Equal(t, sqltext.Write, v.Class)
	assert.Contains(t, v.Reason, "too many for a statement of this length")
	v, err = sqltext.Classify("SELECT 1, 2"+long, sqltext.DialectMySQL)
	require.NoError(t, err)
	assert.Equal(t, sqltext.ReadOnly, v.Class, "without executable comments, length alone is no reason")
}

// classifyASCIICase changes the case of ASCII letters only, byte by byte,
// so that invalid UTF-8 stays as it is.
func classifyASCIICase(s string, upper bool) string {
	b := []byte(s)
	for i, c := range b {
		switch {
		case upper && 'a' <= c && c <= 'z':
			b[i] = c - 'a' + 'A'
		case !upper && 'A' <= c && c <= 'Z':
			b[i] = c - 'A' + 'a'
		}
	}
	return string(b)
}

// FuzzClassify checks, besides that Classify never panics:
//   - ASCII letter case does not change a verdict (except around $, since
//     PostgreSQL's dollar-quote tags are case-sensitive);
//   - nothing can follow a read-only statement: appending a second
//     statement is always refused, and none holds a semicolon but a
//     trailing one;
//   - a read-only statement has no word outside strings, comments and
//     quoted identifiers that makes a query write (INSERT, INTO, ...), and
//     names no function known to write or to read outside the database,
//     in any executable comment either.
func FuzzClassify(f *testing.F) {
	for _, c := range sqltexttest.ClassifyCases {
		for i, d := range classifyDialects {
			if c.In(d) {
				f.Add(c.SQL, uint8(i))
			}
		}
	}
	queryWrites := []string{"INSERT", "UPDATE", "DELETE", "MERGE", "INTO", "DROP", "CREATE", "ALTER", "TRUNCATE", "GRANT", "REVOKE"}
	functions := map[sqltext.Dialect][]string{
		sqltext.DialectPostgres: {"NEXTVAL", "SETVAL", "PG_TERMINATE_BACKEND", "PG_CANCEL_BACKEND", "LO_IMPORT", "LO_EXPORT",
			"SET_CONFIG", "PG_ADVISORY_LOCK", "DBLINK_EXEC", "PG_RELOAD_CONF", "PG_ROTATE_LOGFILE",
			"PG_READ_FILE", "PG_READ_BINARY_FILE", "PG_LS_DIR", "PG_LS_WALDIR", "PG_STAT_FILE", "DBLINK_CONNECT"},
		sqltext.DialectMySQL:  {"GET_LOCK", "RELEASE_LOCK", "LOAD_FILE"},
		sqltext.DialectSQLite: {"LOAD_EXTENSION", "READFILE", "WRITEFILE", "FSDIR"},
	}

	f.Fuzz(func(t *testing.T, sql string, di uint8) {
		d := classifyDialects[int(di)%len(classifyDialects)]
		v, err := sqltext.Classify(sql, d)
		if err != nil {
			require.Equal(t, sqltext.Verdict{}, v)
			require.NotEmpty(t, err.Error())
		} else {
			require.NotEmpty(t, v.Kind)
			require.Equal(t, v.Class == sqltext.Write, v.Reason != "", "reason %q for class %s", v.Reason, classString(v.Class))
		}

		if !strings.Contains(sql, "$") {
			for _, upper := range []bool{true, false} {
				v2, err2 := sqltext.Classify(classifyASCIICase(sql, upper), d)
				require.Equal(t, err != nil, err2 != nil, "upper %v: %v / %v", upper, err, err2)
				require.Equal(t, classString(v.Class), classString(v2.Class), "upper %v", upper)
			}
		}

		if err != nil || v.Class != sqltext.ReadOnly {
			return
		}
		_, err = sqltext.Classify(sql+"\n;DELETE FROM t", d)
		require.Error(t, err, "a statement followed a read-only one")

		toks, _, err := sqltext.Lex(sql, d, sqltext.Readings(sql, d)[0])
		require.NoError(t, err)
		lead := ""
		for _, tok := range toks {
			if tok.Kind == sqltext.TokWord {
				lead = tok.Text
				break
			}
		}
		exempt := lead == "SHOW" || lead == "EXPLAIN" || lead == "DESCRIBE" || lead == "DESC" || lead == "PRAGMA"
		for k, tok := range toks {
			// Only a statement with a body holds a semicolon, and it is a write.
			require.False(t, tok.IsPunct(";") && k != len(toks)-1, "read-only, with a semicolon inside")
			if tok.Kind != sqltext.TokWord && tok.Kind != sqltext.TokQuoted {
				continue
			}
			require.NotContains(t, functions[d], tok.Text, "read-only, but calls a function that writes")
			if tok.Kind == sqltext.TokWord && !exempt {
				require.NotContains(t, queryWrites, tok.Text, "read-only %s with a word that makes it write", lead)
			}
		}
	})
}

// TestIsStatement: every statement of the shared cases that the classifier
// knows by its first keyword is a statement, whatever comes before it;
// text it cannot read as one statement, or whose first word it does not
// know, is not.
func TestIsStatement(t *testing.T) {
	unknownLead := map[string]bool{"unknown statement": true, "no keyword": true, "pragma elsewhere": true}
	for _, c := range sqltexttest.ClassifyCases {
		for _, d := range classifyDialects {
			if !c.In(d) {
				continue
			}
			want := !c.WantErr && !unknownLead[c.Name]
			assert.Equal(t, want, sqltext.IsStatement(c.SQL, d), "%s: %s %q", c.Name, d, c.SQL)
		}
	}
	tests := []struct {
		d    sqltext.Dialect
		text string
		want bool
	}{
		{sqltext.DialectSQLite, "/* note */ DELETE FROM t WHERE id = 1", true},
		{sqltext.DialectPostgres, "-- x\nSELECT 1", true},
		{sqltext.DialectSQLite, "ATTACH DATABASE '/tmp/other.db' AS other", true},
		{sqltext.DialectSQLite, "VACUUM INTO '/tmp/copy.db'", true},
		{sqltext.DialectSQLite, "PRAGMA table_info(t)", true},
		{sqltext.DialectMySQL, "SHOW TABLES", true},
		{sqltext.DialectPostgres, "EXPLAIN (FORMAT JSON) SELECT 1", true},
		{sqltext.DialectPostgres, "WITH x AS (SELECT 1) SELECT * FROM x", true},
		{sqltext.DialectSQLite, "CREATE TEMP TRIGGER trg AFTER INSERT ON log BEGIN DELETE FROM t; END", true},
		{sqltext.DialectPostgres, "COPY t TO STDOUT", true},
		{sqltext.DialectMySQL, "BEGIN NOT ATOMIC SELECT 1; END", true},
		{sqltext.DialectPostgres, "how many rows are in t", false},
		{sqltext.DialectPostgres, "what's in t?", false},
		{sqltext.DialectSQLite, "SELECT 1; SELECT 2", false},
		{sqltext.DialectPostgres, "PRAGMA table_info(t)", false},
		{sqltext.DialectMySQL, "", false},
		{sqltext.DialectMySQL, "-- only a comment", false},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, sqltext.IsStatement(tt.text, tt.d), "%s %q", tt.d, tt.text)
	}
}
