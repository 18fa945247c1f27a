package sqltexttest

import "github.com/aiq/aiq-rpc/tools/sqltext"

// ClassifyCase is one statement and what Classify must say of it.
type ClassifyCase struct {
	Name     string
	dialects []sqltext.Dialect // nil: every dialect
	SQL      string
	Want     sqltext.Class
	WantErr  bool
}

// In reports whether the case applies to dialect d.
func (c ClassifyCase) In(d sqltext.Dialect) bool {
	if c.dialects == nil {
		return true
	}
	for _, x := range c.dialects {
		if x == d {
			return true
		}
	}
	return false
}

// The dialect lists of ClassifyCases.
var (
	casesPG     = []sqltext.Dialect{sqltext.DialectPostgres}
	casesMy     = []sqltext.Dialect{sqltext.DialectMySQL}
	casesLite   = []sqltext.Dialect{sqltext.DialectSQLite}
	casesPGMy   = []sqltext.Dialect{sqltext.DialectPostgres, sqltext.DialectMySQL}
	casesPGLite = []sqltext.Dialect{sqltext.DialectPostgres, sqltext.DialectSQLite}
	casesMyLite = []sqltext.Dialect{sqltext.DialectMySQL, sqltext.DialectSQLite}
)

// ClassifyCases is shared with the tests that run statements on real
// servers. Statements use a table t (id int, name text). The ReadOnly
// cases of a dialect are meant to run there; the few that are not valid
// SQL on every server of the dialect say so in their name. The Write cases
// and the errors must be refused. Run anyway in a read-only transaction,
// some still succeed without changing data (SET, locks, session
// variables); PRAGMA query_only = 0 would switch off SQLite's read-only
// mode for the connection. Locks are transaction-scoped where there is a
// choice.
var ClassifyCases = []ClassifyCase{
	// Plain reads.
	{Name: "select", SQL: "SELECT id, name FROM t", Want: sqltext.ReadOnly},
	{Name: "select trailing semicolon", SQL: "SELECT id FROM t;", Want: sqltext.ReadOnly},
	{Name: "semicolon then comment", SQL: "SELECT id FROM t; -- done\n/* really */\n", Want: sqltext.ReadOnly},
	{Name: "whitespace around", SQL: "  \n\tSELECT 1\n\n  ", Want: sqltext.ReadOnly},
	{Name: "mixed case", SQL: "sElEcT id FrOm t WhErE id = 1", Want: sqltext.ReadOnly},
	{Name: "union", SQL: "SELECT id FROM t UNION SELECT 2", Want: sqltext.ReadOnly},
	{Name: "leading parentheses", dialects: casesPGMy, SQL: "((SELECT id FROM t))", Want: sqltext.ReadOnly},
	{Name: "parenthesised union", dialects: casesPGMy, SQL: "(SELECT id FROM t) UNION (SELECT 2)", Want: sqltext.ReadOnly},
	{Name: "replace function", SQL: "SELECT replace(name, 'a', 'b') FROM t", Want: sqltext.ReadOnly},
	{Name: "values", dialects: casesPGLite, SQL: "VALUES (1, 'a'), (2, 'b')", Want: sqltext.ReadOnly},
	{Name: "values row, MySQL 8 only", dialects: casesMy, SQL: "VALUES ROW(1, 'a')", Want: sqltext.ReadOnly},
	{Name: "table statement", dialects: casesPG, SQL: "TABLE t", Want: sqltext.ReadOnly},
	{Name: "sleep is fine", dialects: casesMy, SQL: "SELECT SLEEP(0)", Want: sqltext.ReadOnly},
	{Name: "pg_sleep is fine", dialects: casesPG, SQL: "SELECT pg_sleep(0)", Want: sqltext.ReadOnly},

	// Keywords inside strings, comments and quoted identifiers.
	{Name: "keyword in string", SQL: "SELECT 'DROP TABLE t'", Want: sqltext.ReadOnly},
	{Name: "semicolon in string", SQL: "SELECT 'a; DROP TABLE t' FROM t", Want: sqltext.ReadOnly},
	{Name: "doubled quote", SQL: "SELECT 'it''s; DELETE FROM t'", Want: sqltext.ReadOnly},
	{Name: "double-quoted keyword", dialects: casesMyLite, SQL: `SELECT "delete" FROM t`, Want: sqltext.ReadOnly},
	{Name: "double-quoted alias", SQL: `SELECT id AS "delete" FROM t`, Want: sqltext.ReadOnly},
	{Name: "backtick alias", dialects: casesMyLite, SQL: "SELECT id AS `update` FROM t", Want: sqltext.ReadOnly},
	{Name: "bracket alias", dialects: casesLite, SQL: "SELECT id AS [insert] FROM t", Want: sqltext.ReadOnly},
	{Name: "line comment hides statement", SQL: "SELECT id FROM t -- ; DROP TABLE t", Want: sqltext.ReadOnly},
	{Name: "block comment hides statement", SQL: "SELECT id FROM t /* ; DROP TABLE t */", Want: sqltext.ReadOnly},
	{Name: "leading comments", SQL: "/* DELETE */ -- INSERT\nSELECT id FROM t", Want: sqltext.ReadOnly},
	{Name: "comments between words", SQL: "SELECT/**/id/**/FROM/**/t", Want: sqltext.ReadOnly},
	{Name: "comment hides a write keyword", SQL: "DELETE/**/FROM t", Want: sqltext.Write},
	{Name: "unicode", SQL: `SELECT 'ünïcödé ✓; DROP TABLE t' AS "名前", id AS naïve FROM t`, Want: sqltext.ReadOnly},
	{Name: "unicode write", SQL: "DELETE FROM t WHERE name = 'straße'", Want: sqltext.Write},

	// Nested comments: only PostgreSQL nests them.
	{Name: "nested comment", dialects: casesPG, SQL: "/* a /* b */ DROP TABLE t */ SELECT id FROM t", Want: sqltext.ReadOnly},
	{Name: "nested comment not nested", dialects: casesMyLite, SQL: "/* a /* b */ DROP TABLE t */ SELECT id FROM t", Want: sqltext.Write},
	{Name: "nested comment hides semicolon", dialects: casesPG, SQL: "SELECT 1 /* /* */ ; DROP TABLE t */", Want: sqltext.ReadOnly},
	{Name: "nested comment semicolon", dialects: casesMyLite, SQL: "SELECT 1 /* /* */ ; DROP TABLE t */", WantErr: true},

	// Line comment ends: PostgreSQL ends -- at \r too, the others only at \n.
	{Name: "carriage return ends pg comment", dialects: casesPG, SQL: "SELECT 1 --\r; DROP TABLE t", WantErr: true},
	{Name: "carriage return inside comment", dialects: casesMyLite, SQL: "SELECT 1 --\r; DROP TABLE t", Want: sqltext.ReadOnly},

	// MySQL comments.
	{Name: "hash comment", dialects: casesMy, SQL: "SELECT id FROM t # ; DROP TABLE t", Want: sqltext.ReadOnly},
	{Name: "hash is not a comment", dialects: casesPGLite, SQL: "SELECT id FROM t # ; DROP TABLE t", WantErr: true},
	{Name: "mysql double minus without space", dialects: casesMy, SQL: "SELECT 1 --GET_LOCK('aiq', 0)", Want: sqltext.Write},
	{Name: "double minus without space is a comment", dialects: casesPGLite, SQL: "SELECT 1 --GET_LOCK('aiq', 0)", Want: sqltext.ReadOnly},
	{Name: "mysql double minus before DEL", dialects: casesMy, SQL: "SELECT 1 --\x7f", WantErr: true},
	{Name: "executable comment read-only", dialects: casesMy, SQL: "SELECT /*!STRAIGHT_JOIN*/ id FROM t", Want: sqltext.ReadOnly},
	{Name: "executable comment is code", dialects: casesMy, SQL: "SELECT id /*!, GET_LOCK('aiq', 0) */ FROM t", Want: sqltext.Write},
	{Name: "versioned executable comment", dialects: casesMy, SQL: "SELECT 1 /*!99999 , GET_LOCK('aiq', 0) */", Want: sqltext.Write},
	{Name: "executable comment semicolon", dialects: casesMy, SQL: "SELECT 1 /*! ; DROP TABLE t */", WantErr: true},
	{Name: "executable comment elsewhere", dialects: casesPGLite, SQL: "SELECT 1 /*! ; DROP TABLE t */", Want: sqltext.ReadOnly},
	{Name: "executable comment only", dialects: casesMy, SQL: "/*! DELETE FROM t */", Want: sqltext.Write},
	{Name: "mariadb executable comment", dialects: casesMy, SQL: "SELECT 1 /*M!100000 , 2 */", Want: sqltext.ReadOnly},
	{Name: "optimizer hint", dialects: casesMy, SQL: "SELECT /*+ MAX_EXECUTION_TIME(1000) */ id FROM t", Want: sqltext.ReadOnly},
	{Name: "executable comments mixed", dialects: casesMy, SQL: "/*!99999 EXPLAIN */ /*!99998 DELETE FROM t WHERE id IN ( */ SELECT 1 /*!99998 ) */", Want: sqltext.Write},
	{Name: "comment inside executable comment", dialects: casesMy, SQL: "SELECT 1 /*!99999 /* x */ , 2 */", WantErr: true},
	{Name: "close inside executable comment string", dialects: casesMy, SQL: "SELECT 1 /*! , '*/' */", WantErr: true},

	// Backslashes.
	{Name: "mysql backslash escape", dialects: casesMy, SQL: `SELECT 'a\'; DROP TABLE t'`, Want: sqltext.ReadOnly},
	{Name: "standard string backslash", dialects: casesPGLite, SQL: `SELECT 'a\'; DROP TABLE t'`, WantErr: true},
	{Name: "pg escape string", dialects: casesPG, SQL: `SELECT E'a\'; DROP TABLE t'`, Want: sqltext.ReadOnly},
	{Name: "pg backslash without standard strings", dialects: casesPG, SQL: `SELECT 'x\'', nextval('aiq_seq') --'`, Want: sqltext.Write},
	{Name: "mysql no backslash escapes", dialects: casesMy, SQL: `SELECT 'x\', GET_LOCK(0, 0) AS y -- '`, Want: sqltext.Write},
	{Name: "mysql ansi quotes", dialects: casesMy, SQL: `SELECT "GET_LOCK"('aiq', 0)`, Want: sqltext.Write},

	// Dollar quotes.
	{Name: "dollar quote", dialects: casesPG, SQL: "SELECT $$; DROP TABLE t$$", Want: sqltext.ReadOnly},
	{Name: "dollar quote elsewhere", dialects: casesMyLite, SQL: "SELECT $$; DROP TABLE t$$", WantErr: true},
	{Name: "tagged dollar quote", dialects: casesPG, SQL: "SELECT $a$ it's $$ fine; DELETE $a$ AS x", Want: sqltext.ReadOnly},
	{Name: "dollar quote unterminated", dialects: casesPG, SQL: "SELECT $a$; DROP TABLE t", WantErr: true},
	{Name: "dollar in identifier", dialects: casesPG, SQL: "SELECT 1 AS a$$b", Want: sqltext.ReadOnly},

	// One statement only.
	{Name: "select then drop", SQL: "SELECT 1; DROP TABLE t", WantErr: true},
	{Name: "commit then drop", SQL: "COMMIT; DROP TABLE t", WantErr: true},
	{Name: "two selects", SQL: "SELECT 1; SELECT 2", WantErr: true},
	{Name: "transaction script", SQL: "BEGIN; DELETE FROM t; COMMIT;", WantErr: true},
	{Name: "two semicolons", SQL: "SELECT 1;;", WantErr: true},
	{Name: "semicolon first", SQL: "; SELECT 1", WantErr: true},
	{Name: "empty", SQL: "", WantErr: true},
	{Name: "blank", SQL: " \n\t ", WantErr: true},
	{Name: "only comments", SQL: "-- nothing\n/* here */", WantErr: true},
	{Name: "only a semicolon", SQL: " ; ", WantErr: true},
	{Name: "unterminated string", SQL: "SELECT 'abc", WantErr: true},
	{Name: "unterminated identifier", SQL: `SELECT "abc FROM t`, WantErr: true},
	{Name: "unterminated comment", SQL: "SELECT 1 /* abc", WantErr: true},
	{Name: "unterminated backtick", dialects: casesMyLite, SQL: "SELECT `abc FROM t", WantErr: true},
	{Name: "unterminated bracket", dialects: casesLite, SQL: "SELECT [abc FROM t", WantErr: true},
	{Name: "NUL byte", SQL: "SELECT 1\x00; DROP TABLE t", WantErr: true},
	{Name: "invalid UTF-8", SQL: "SELECT '\xff'", WantErr: true},

	// WITH.
	{Name: "cte", SQL: "WITH x AS (SELECT id FROM t) SELECT * FROM x", Want: sqltext.ReadOnly},
	{Name: "cte named like a keyword", SQL: "WITH deleted AS (SELECT id FROM t) SELECT * FROM deleted", Want: sqltext.ReadOnly},
	{Name: "quoted cte keyword", dialects: casesPGLite, SQL: `WITH "insert" AS (SELECT id FROM t) SELECT * FROM "insert"`, Want: sqltext.ReadOnly},
	{Name: "backtick cte keyword", dialects: casesMy, SQL: "WITH `insert` AS (SELECT id FROM t) SELECT * FROM `insert`", Want: sqltext.ReadOnly},
	{Name: "bare cte named update, conservative", dialects: casesPG, SQL: "WITH update AS (SELECT id FROM t) SELECT * FROM update", Want: sqltext.Write},
	{Name: "recursive cte", SQL: "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3) SELECT * FROM n", Want: sqltext.ReadOnly},
	{Name: "data-modifying cte", dialects: casesPG, SQL: "WITH x AS (DELETE FROM t RETURNING *) SELECT * FROM x", Want: sqltext.Write},
	{Name: "data-modifying cte update", dialects: casesPG, SQL: "with x as (update t set name = 'x' returning id) select * from x", Want: sqltext.Write},
	{Name: "cte then delete", SQL: "WITH x AS (SELECT id FROM t) DELETE FROM t WHERE id IN (SELECT id FROM x)", Want: sqltext.Write},
	{Name: "cte then insert", SQL: "WITH x AS (SELECT id FROM t) INSERT INTO t SELECT id + 100, 'n' FROM x", Want: sqltext.Write},

	// SELECT that writes or locks.
	{Name: "select into table", dialects: casesPG, SQL: "SELECT * INTO t2 FROM t", Want: sqltext.Write},
	{Name: "select into outfile", dialects: casesMy, SQL: "SELECT * FROM t INTO OUTFILE '/tmp/aiq-out'", Want: sqltext.Write},
	{Name: "select into dumpfile", dialects: casesMy, SQL: "SELECT name FROM t LIMIT 1 INTO DUMPFILE '/tmp/aiq-dump'", Want: sqltext.Write},
	{Name: "select into variable", dialects: casesMy, SQL: "SELECT id INTO @x FROM t LIMIT 1", Want: sqltext.Write},
	{Name: "assign variable", dialects: casesMy, SQL: "SELECT @x := 1", Want: sqltext.Write},
	{Name: "for update", dialects: casesPGMy, SQL: "SELECT * FROM t FOR UPDATE", Want: sqltext.Write},
	{Name: "for share", dialects: casesPGMy, SQL: "SELECT * FROM t FOR SHARE", Want: sqltext.Write},
	{Name: "for no key update", dialects: casesPG, SQL: "SELECT * FROM t FOR NO KEY UPDATE", Want: sqltext.Write},
	{Name: "for key share", dialects: casesPG, SQL: "SELECT * FROM t FOR KEY SHARE", Want: sqltext.Write},
	{Name: "lock in share mode", dialects: casesMy, SQL: "SELECT * FROM t LOCK IN SHARE MODE", Want: sqltext.Write},
	{Name: "column named share", SQL: "SELECT id AS share FROM t", Want: sqltext.ReadOnly},

	// Functions that write.
	{Name: "nextval", dialects: casesPG, SQL: "SELECT nextval('aiq_seq')", Want: sqltext.Write},
	{Name: "qualified nextval", dialects: casesPG, SQL: "SELECT PG_CATALOG.NEXTVAL('aiq_seq')", Want: sqltext.Write},
	{Name: "quoted nextval", dialects: casesPG, SQL: `SELECT "nextval"('aiq_seq')`, Want: sqltext.Write},
	{Name: "unicode escape identifier", dialects: casesPG, SQL: `SELECT U&"nextva\006C"('aiq_seq')`, Want: sqltext.Write},
	{Name: "nextval in where", dialects: casesPG, SQL: "SELECT * FROM t WHERE id = nextval('aiq_seq')", Want: sqltext.Write},
	{Name: "setval", dialects: casesPG, SQL: "SELECT setval('aiq_seq', 1)", Want: sqltext.Write},
	{Name: "pg_terminate_backend", dialects: casesPG, SQL: "SELECT pg_terminate_backend(0)", Want: sqltext.Write},
	{Name: "pg_cancel_backend", dialects: casesPG, SQL: "SELECT pg_cancel_backend(0)", Want: sqltext.Write},
	{Name: "lo_import", dialects: casesPG, SQL: "SELECT lo_import('/nonexistent/aiq')", Want: sqltext.Write},
	{Name: "lo_export", dialects: casesPG, SQL: "SELECT lo_export(0, '/tmp/aiq-lo')", Want: sqltext.Write},
	{Name: "set_config", dialects: casesPG, SQL: "SELECT set_config('aiq.x', '1', false)", Want: sqltext.Write},
	{Name: "advisory lock", dialects: casesPG, SQL: "SELECT pg_advisory_xact_lock(1)", Want: sqltext.Write},
	{Name: "dblink_exec", dialects: casesPG, SQL: "SELECT dblink_exec('dbname=aiq', 'DELETE FROM t')", Want: sqltext.Write},
	{Name: "pg_reload_conf", dialects: casesPG, SQL: "SELECT pg_reload_conf()", Want: sqltext.Write},
	{Name: "pg_rotate_logfile", dialects: casesPG, SQL: "SELECT pg_rotate_logfile()", Want: sqltext.Write},
	{Name: "get_lock", dialects: casesMy, SQL: "SELECT GET_LOCK('aiq', 0)", Want: sqltext.Write},
	{Name: "release_lock", dialects: casesMy, SQL: "select release_lock('aiq')", Want: sqltext.Write},
	{Name: "next value for", dialects: casesMy, SQL: "SELECT NEXT VALUE FOR aiq_seq", Want: sqltext.Write},
	{Name: "load_extension", dialects: casesLite, SQL: "SELECT load_extension('aiq')", Want: sqltext.Write},

	// Reads that leave the database: server files, folders, the network.
	{Name: "pg_read_file", dialects: casesPG, SQL: "SELECT pg_read_file('/etc/hostname')", Want: sqltext.Write},
	{Name: "pg_read_file qualified upper case", dialects: casesPG, SQL: "SELECT PG_CATALOG.PG_READ_FILE('/etc/hostname')", Want: sqltext.Write},
	{Name: "pg_read_file quoted", dialects: casesPG, SQL: `SELECT "pg_read_file"('/etc/hostname')`, Want: sqltext.Write},
	{Name: "pg_read_file in a cte", dialects: casesPG, SQL: "WITH f AS (SELECT pg_read_file('/etc/hostname') AS x) SELECT x FROM f", Want: sqltext.Write},
	{Name: "pg_read_file explained", dialects: casesPG, SQL: "EXPLAIN SELECT pg_read_file('/etc/hostname')", Want: sqltext.Write},
	{Name: "pg_read_binary_file", dialects: casesPG, SQL: "SELECT pg_read_binary_file('/etc/hostname')", Want: sqltext.Write},
	{Name: "pg_ls_dir", dialects: casesPG, SQL: "SELECT * FROM pg_ls_dir('.')", Want: sqltext.Write},
	{Name: "pg_ls_waldir", dialects: casesPG, SQL: "SELECT count(*) FROM pg_ls_waldir()", Want: sqltext.Write},
	{Name: "pg_ls_logdir", dialects: casesPG, SQL: "SELECT count(*) FROM pg_ls_logdir()", Want: sqltext.Write},
	{Name: "pg_ls_tmpdir", dialects: casesPG, SQL: "SELECT count(*) FROM pg_ls_tmpdir()", Want: sqltext.Write},
	{Name: "pg_stat_file", dialects: casesPG, SQL: "SELECT size FROM pg_stat_file('postgresql.conf')", Want: sqltext.Write},
	{Name: "pg_file_settings", dialects: casesPG, SQL: "SELECT * FROM pg_file_settings", Want: sqltext.Write},
	{Name: "pg_hba_file_rules", dialects: casesPG, SQL: "SELECT count(*) FROM pg_hba_file_rules", Want: sqltext.Write},
	{Name: "lo_import reads a file", dialects: casesPG, SQL: "SELECT lo_import('/etc/hostname')", Want: sqltext.Write},
	{Name: "dblink", dialects: casesPG, SQL: "SELECT * FROM dblink('dbname=postgres', 'SELECT 1') AS x(a int)", Want: sqltext.Write},
	{Name: "dblink_connect", dialects: casesPG, SQL: "SELECT dblink_connect('dbname=postgres')", Want: sqltext.Write},
	{Name: "http_get", dialects: casesPG, SQL: "SELECT content FROM http_get('http://127.0.0.1:9/')", Want: sqltext.Write},
	{Name: "copy to program", dialects: casesPG, SQL: "COPY t TO PROGRAM 'cat > /dev/null'", Want: sqltext.Write},
	{Name: "copy from file", dialects: casesPG, SQL: "COPY t FROM '/nonexistent/aiq'", Want: sqltext.Write},
	{Name: "load_file", dialects: casesMy, SQL: "SELECT LOAD_FILE('/etc/hostname')", Want: sqltext.Write},
	{Name: "load_file in where", dialects: casesMy, SQL: "SELECT id FROM t WHERE name = load_file('/etc/hostname')", Want: sqltext.Write},
	{Name: "load data local", dialects: casesMy, SQL: "LOAD DATA LOCAL INFILE '/nonexistent/aiq' INTO TABLE t", Want: sqltext.Write},
	{Name: "readfile", dialects: casesLite, SQL: "SELECT readfile('/etc/hostname')", Want: sqltext.Write},
	{Name: "writefile", dialects: casesLite, SQL: "SELECT writefile('/nonexistent/aiq', 'x')", Want: sqltext.Write},
	{Name: "fsdir", dialects: casesLite, SQL: "SELECT name FROM fsdir('/nonexistent')", Want: sqltext.Write},
	{Name: "vacuum into", dialects: casesLite, SQL: "VACUUM INTO '/nonexistent/aiq.db'", Want: sqltext.Write},
	{Name: "column named like a file function elsewhere", dialects: casesLite, SQL: "SELECT id AS pg_read_file FROM t", Want: sqltext.ReadOnly},

	// Trigger and routine bodies are one statement, and a write.
	{Name: "trigger body", dialects: casesLite, SQL: "CREATE TRIGGER trg AFTER INSERT ON t BEGIN DELETE FROM t WHERE id = 0; END", Want: sqltext.Write},
	{Name: "trigger body with case", dialects: casesLite, SQL: "CREATE TRIGGER trg BEFORE INSERT ON t BEGIN SELECT CASE WHEN new.id < 0 THEN RAISE(ABORT, 'negative') END; UPDATE t SET name = 'x' WHERE id = 0; END;", Want: sqltext.Write},
	{Name: "trigger body then a statement", dialects: casesLite, SQL: "CREATE TRIGGER trg AFTER INSERT ON t BEGIN DELETE FROM t; END; DROP TABLE t", WantErr: true},
	{Name: "trigger body not closed", dialects: casesLite, SQL: "CREATE TRIGGER trg AFTER INSERT ON t BEGIN DELETE FROM t;", WantErr: true},
	{Name: "case expression then a statement", SQL: "SELECT CASE WHEN id = 1 THEN 'a' END FROM t; DROP TABLE t", WantErr: true},
	{Name: "begin atomic function", dialects: casesPG, SQL: "CREATE FUNCTION f() RETURNS int LANGUAGE sql BEGIN ATOMIC SELECT 1; SELECT CASE WHEN true THEN 2 ELSE 3 END; END", Want: sqltext.Write},
	{Name: "begin atomic procedure", dialects: casesPG, SQL: "CREATE OR REPLACE PROCEDURE p() LANGUAGE sql BEGIN ATOMIC INSERT INTO t VALUES (5, 'five'); DELETE FROM t WHERE id = 5; END;", Want: sqltext.Write},
	{Name: "begin atomic then a statement", dialects: casesPG, SQL: "CREATE FUNCTION f() RETURNS int LANGUAGE sql BEGIN ATOMIC SELECT 1; END; DROP TABLE t", WantErr: true},
	{Name: "parameter named begin", dialects: casesPG, SQL: "CREATE FUNCTION f(begin int) RETURNS int LANGUAGE sql RETURN $1 + 1", Want: sqltext.Write},
	{Name: "rule with several actions", dialects: casesPG, SQL: "CREATE RULE r AS ON INSERT TO t DO ALSO (UPDATE t SET name = 'x' WHERE id = 0; DELETE FROM t WHERE id = 0)", Want: sqltext.Write},
	{Name: "plpgsql trigger function", dialects: casesPG, SQL: "CREATE FUNCTION trg() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN DELETE FROM t; RETURN NEW; END $$", Want: sqltext.Write},
	{Name: "mysql procedure with every block", dialects: casesMy, SQL: "CREATE PROCEDURE p() BEGIN DECLARE i INT DEFAULT 0; " +
		"lbl: LOOP SET i = i + 1; IF i > 3 THEN LEAVE lbl; ELSEIF (i = 2) THEN SET i = i + 1; END IF; END LOOP lbl; " +
		"CASE i WHEN 4 THEN UPDATE t SET name = 'x' WHERE id = 0; ELSE BEGIN END; END CASE; " +
		"WHILE (i > 0) DO SET i = i - 1; END WHILE; REPEAT SET i = i + 1; UNTIL i > 2 END REPEAT; " +
		"SELECT IF(i > 1, 'a', 'b'), REPEAT('x', 2), CASE WHEN i > 0 THEN IF(i > 1, 2, 1) ELSE REPEAT('y', 1) END; END", Want: sqltext.Write},
	{Name: "mysql trigger body", dialects: casesMy, SQL: "CREATE TRIGGER trg BEFORE INSERT ON t FOR EACH ROW BEGIN IF NEW.id < 0 THEN SET NEW.id = 0; END IF; END", Want: sqltext.Write},
	{Name: "mysql trigger if body", dialects: casesMy, SQL: "CREATE TRIGGER trg BEFORE INSERT ON t FOR EACH ROW IF NEW.id < 0 THEN SET NEW.id = 0; END IF", Want: sqltext.Write},
	{Name: "mysql definer procedure", dialects: casesMy, SQL: "CREATE DEFINER = CURRENT_USER PROCEDURE p() BEGIN UPDATE t SET name = 'x' WHERE id = 0; END", Want: sqltext.Write},
	{Name: "mysql definer at host", dialects: casesMy, SQL: "CREATE DEFINER=`root`@`localhost` FUNCTION f() RETURNS INT DETERMINISTIC BEGIN DECLARE r INT; SET r = 1; RETURN r; END", Want: sqltext.Write},
	{Name: "mysql event body", dialects: casesMy, SQL: "CREATE EVENT e ON SCHEDULE AT CURRENT_TIMESTAMP + INTERVAL 1 DAY DO BEGIN DELETE FROM t WHERE id = 0; END", Want: sqltext.Write},
	{Name: "mariadb begin not atomic", dialects: casesMy, SQL: "BEGIN NOT ATOMIC DECLARE i INT DEFAULT 0; SELECT i; END", Want: sqltext.Write},
	{Name: "mysql body then a statement", dialects: casesMy, SQL: "CREATE PROCEDURE p() BEGIN SELECT 1; END; DROP TABLE t", WantErr: true},
	{Name: "mysql if never closed", dialects: casesMy, SQL: "CREATE PROCEDURE p() BEGIN IF 1 THEN SELECT 1; END", WantErr: true},
	{Name: "begin is not a body elsewhere", dialects: casesMy, SQL: "BEGIN; DELETE FROM t; END", WantErr: true},

	// SHOW, DESCRIBE, EXPLAIN.
	{Name: "show tables", dialects: casesMy, SQL: "SHOW TABLES", Want: sqltext.ReadOnly},
	{Name: "show create table", dialects: casesMy, SQL: "SHOW CREATE TABLE t", Want: sqltext.ReadOnly},
	{Name: "show setting", dialects: casesPG, SQL: "SHOW server_version", Want: sqltext.ReadOnly},
	{Name: "describe", dialects: casesMy, SQL: "DESCRIBE t", Want: sqltext.ReadOnly},
	{Name: "desc", dialects: casesMy, SQL: "desc t", Want: sqltext.ReadOnly},
	{Name: "explain", SQL: "EXPLAIN SELECT * FROM t", Want: sqltext.ReadOnly},
	{Name: "explain query plan", dialects: casesLite, SQL: "EXPLAIN QUERY PLAN SELECT * FROM t WHERE id = 1", Want: sqltext.ReadOnly},
	{Name: "explain delete", dialects: casesPGLite, SQL: "EXPLAIN DELETE FROM t", Want: sqltext.ReadOnly},
	{Name: "explain analyze select", dialects: casesPG, SQL: "EXPLAIN ANALYZE SELECT * FROM t", Want: sqltext.ReadOnly},
	{Name: "explain analyze delete", dialects: casesPGMy, SQL: "EXPLAIN ANALYZE DELETE FROM t", Want: sqltext.Write},
	{Name: "explain options analyze", dialects: casesPG, SQL: "EXPLAIN (ANALYZE, FORMAT JSON) DELETE FROM t", Want: sqltext.Write},
	{Name: "explain options", dialects: casesPG, SQL: "EXPLAIN (COSTS OFF, FORMAT JSON) SELECT * FROM t", Want: sqltext.ReadOnly},
	{Name: "explain analyze nextval", dialects: casesPG, SQL: "EXPLAIN ANALYZE SELECT nextval('aiq_seq')", Want: sqltext.Write},
	{Name: "mariadb analyze statement", dialects: casesMy, SQL: "ANALYZE DELETE FROM t", Want: sqltext.Write},

	// PRAGMA.
	{Name: "pragma table_info", dialects: casesLite, SQL: "PRAGMA table_info(t)", Want: sqltext.ReadOnly},
	{Name: "pragma schema table_info", dialects: casesLite, SQL: "PRAGMA main.table_info('t')", Want: sqltext.ReadOnly},
	{Name: "pragma index_list", dialects: casesLite, SQL: "pragma index_list(t);", Want: sqltext.ReadOnly},
	{Name: "pragma read setting", dialects: casesLite, SQL: "PRAGMA user_version", Want: sqltext.ReadOnly},
	{Name: "pragma set", dialects: casesLite, SQL: "PRAGMA user_version = 5", Want: sqltext.Write},
	{Name: "pragma set call form", dialects: casesLite, SQL: "PRAGMA user_version(5)", Want: sqltext.Write},
	{Name: "pragma query_only off", dialects: casesLite, SQL: "PRAGMA query_only = 0", Want: sqltext.Write},
	{Name: "pragma optimize", dialects: casesLite, SQL: "PRAGMA optimize", Want: sqltext.Write},
	{Name: "pragma wal_checkpoint", dialects: casesLite, SQL: "PRAGMA wal_checkpoint", Want: sqltext.Write},
	{Name: "pragma elsewhere", dialects: casesPGMy, SQL: "PRAGMA table_info(t)", Want: sqltext.Write},

	// Writes.
	{Name: "insert", SQL: "INSERT INTO t VALUES (1, 'a')", Want: sqltext.Write},
	{Name: "update", SQL: "UPDATE t SET name = 'b' WHERE id = 1", Want: sqltext.Write},
	{Name: "delete lower case", SQL: "delete from t", Want: sqltext.Write},
	{Name: "delete in parentheses", SQL: "(DELETE FROM t)", Want: sqltext.Write},
	{Name: "parenthesised select, not valid in SQLite", dialects: casesLite, SQL: "((SELECT id FROM t))", Want: sqltext.ReadOnly},
	{Name: "replace into", dialects: casesMyLite, SQL: "REPLACE INTO t VALUES (1, 'a')", Want: sqltext.Write},
	{Name: "insert or replace", dialects: casesLite, SQL: "INSERT OR REPLACE INTO t VALUES (1, 'a')", Want: sqltext.Write},
	{Name: "merge", dialects: casesPG, SQL: "MERGE INTO t USING (SELECT 1 AS id) s ON t.id = s.id WHEN MATCHED THEN DELETE", Want: sqltext.Write},
	{Name: "upsert", SQL: "UPSERT INTO t VALUES (1, 'a')", Want: sqltext.Write},
	{Name: "create table", SQL: "CREATE TABLE t2 (id int)", Want: sqltext.Write},
	{Name: "create view", dialects: casesPGMy, SQL: "CREATE OR REPLACE VIEW v AS SELECT id FROM t", Want: sqltext.Write},
	{Name: "alter", SQL: "ALTER TABLE t ADD COLUMN c int", Want: sqltext.Write},
	{Name: "drop", SQL: "DROP TABLE t", Want: sqltext.Write},
	{Name: "drop if exists", SQL: "drop table if exists t", Want: sqltext.Write},
	{Name: "truncate", SQL: "TRUNCATE TABLE t", Want: sqltext.Write},
	{Name: "grant", dialects: casesPG, SQL: "GRANT SELECT ON t TO PUBLIC", Want: sqltext.Write},
	{Name: "revoke", dialects: casesPG, SQL: "REVOKE SELECT ON t FROM PUBLIC", Want: sqltext.Write},
	{Name: "copy", dialects: casesPG, SQL: "COPY t TO STDOUT", Want: sqltext.Write},
	{Name: "call", dialects: casesPGMy, SQL: "CALL aiq_proc()", Want: sqltext.Write},
	{Name: "do block", dialects: casesPG, SQL: "DO $$ BEGIN DELETE FROM t; END $$", Want: sqltext.Write},
	{Name: "mysql do", dialects: casesMy, SQL: "DO GET_LOCK('aiq', 0)", Want: sqltext.Write},
	{Name: "set", dialects: casesPG, SQL: "SET search_path TO public", Want: sqltext.Write},
	{Name: "set variable", dialects: casesMy, SQL: "SET @x = 1", Want: sqltext.Write},
	{Name: "lock table", dialects: casesPG, SQL: "LOCK TABLE t", Want: sqltext.Write},
	{Name: "lock tables", dialects: casesMy, SQL: "LOCK TABLES t READ", Want: sqltext.Write},
	{Name: "vacuum", dialects: casesPGLite, SQL: "VACUUM", Want: sqltext.Write},
	{Name: "analyze", SQL: "ANALYZE t", Want: sqltext.Write},
	{Name: "reindex", dialects: casesPGLite, SQL: "REINDEX t", Want: sqltext.Write},
	{Name: "cluster", dialects: casesPG, SQL: "CLUSTER t", Want: sqltext.Write},
	{Name: "load data", dialects: casesMy, SQL: "LOAD DATA INFILE '/nonexistent/aiq' INTO TABLE t", Want: sqltext.Write},
	{Name: "handler", dialects: casesMy, SQL: "HANDLER t OPEN", Want: sqltext.Write},
	{Name: "attach", dialects: casesLite, SQL: "ATTACH DATABASE ':memory:' AS aux", Want: sqltext.Write},
	{Name: "detach", dialects: casesLite, SQL: "DETACH DATABASE aux", Want: sqltext.Write},
	{Name: "begin", SQL: "BEGIN", Want: sqltext.Write},
	{Name: "start transaction", dialects: casesPGMy, SQL: "START TRANSACTION READ ONLY", Want: sqltext.Write},
	{Name: "commit", SQL: "COMMIT", Want: sqltext.Write},
	{Name: "rollback", SQL: "ROLLBACK", Want: sqltext.Write},
	{Name: "savepoint", SQL: "SAVEPOINT s", Want: sqltext.Write},
	{Name: "unknown statement", SQL: "FROBNICATE t", Want: sqltext.Write},
	{Name: "no keyword", SQL: "'just a string'", Want: sqltext.Write},
	{Name: "select column named delete, conservative", dialects: casesPG, SQL: "SELECT delete FROM t", Want: sqltext.Write},
}
