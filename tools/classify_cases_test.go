package tools

// classifyCase is one statement and what Classify must say of it.
type classifyCase struct {
	name     string
	dialects []Dialect // nil: every dialect
	sql      string
	want     Class
	wantErr  bool
}

// in reports whether the case applies to dialect d.
func (c classifyCase) in(d Dialect) bool {
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

// The dialect lists of classifyCases.
var (
	casesPG     = []Dialect{DialectPostgres}
	casesMy     = []Dialect{DialectMySQL}
	casesLite   = []Dialect{DialectSQLite}
	casesPGMy   = []Dialect{DialectPostgres, DialectMySQL}
	casesPGLite = []Dialect{DialectPostgres, DialectSQLite}
	casesMyLite = []Dialect{DialectMySQL, DialectSQLite}
)

// classifyCases is shared with the tests that run statements on real
// servers. Statements use a table t (id int, name text). The ReadOnly
// cases of a dialect are meant to run there; the few that are not valid
// SQL on every server of the dialect say so in their name. The Write cases
// and the errors must be refused. Run anyway in a read-only transaction,
// some still succeed without changing data (SET, locks, session
// variables); PRAGMA query_only = 0 would switch off SQLite's read-only
// mode for the connection. Locks are transaction-scoped where there is a
// choice.
var classifyCases = []classifyCase{
	// Plain reads.
	{name: "select", sql: "SELECT id, name FROM t", want: ReadOnly},
	{name: "select trailing semicolon", sql: "SELECT id FROM t;", want: ReadOnly},
	{name: "semicolon then comment", sql: "SELECT id FROM t; -- done\n/* really */\n", want: ReadOnly},
	{name: "whitespace around", sql: "  \n\tSELECT 1\n\n  ", want: ReadOnly},
	{name: "mixed case", sql: "sElEcT id FrOm t WhErE id = 1", want: ReadOnly},
	{name: "union", sql: "SELECT id FROM t UNION SELECT 2", want: ReadOnly},
	{name: "leading parentheses", dialects: casesPGMy, sql: "((SELECT id FROM t))", want: ReadOnly},
	{name: "parenthesised union", dialects: casesPGMy, sql: "(SELECT id FROM t) UNION (SELECT 2)", want: ReadOnly},
	{name: "replace function", sql: "SELECT replace(name, 'a', 'b') FROM t", want: ReadOnly},
	{name: "values", dialects: casesPGLite, sql: "VALUES (1, 'a'), (2, 'b')", want: ReadOnly},
	{name: "values row, MySQL 8 only", dialects: casesMy, sql: "VALUES ROW(1, 'a')", want: ReadOnly},
	{name: "table statement", dialects: casesPG, sql: "TABLE t", want: ReadOnly},
	{name: "sleep is fine", dialects: casesMy, sql: "SELECT SLEEP(0)", want: ReadOnly},
	{name: "pg_sleep is fine", dialects: casesPG, sql: "SELECT pg_sleep(0)", want: ReadOnly},

	// Keywords inside strings, comments and quoted identifiers.
	{name: "keyword in string", sql: "SELECT 'DROP TABLE t'", want: ReadOnly},
	{name: "semicolon in string", sql: "SELECT 'a; DROP TABLE t' FROM t", want: ReadOnly},
	{name: "doubled quote", sql: "SELECT 'it''s; DELETE FROM t'", want: ReadOnly},
	{name: "double-quoted keyword", dialects: casesMyLite, sql: `SELECT "delete" FROM t`, want: ReadOnly},
	{name: "double-quoted alias", sql: `SELECT id AS "delete" FROM t`, want: ReadOnly},
	{name: "backtick alias", dialects: casesMyLite, sql: "SELECT id AS `update` FROM t", want: ReadOnly},
	{name: "bracket alias", dialects: casesLite, sql: "SELECT id AS [insert] FROM t", want: ReadOnly},
	{name: "line comment hides statement", sql: "SELECT id FROM t -- ; DROP TABLE t", want: ReadOnly},
	{name: "block comment hides statement", sql: "SELECT id FROM t /* ; DROP TABLE t */", want: ReadOnly},
	{name: "leading comments", sql: "/* DELETE */ -- INSERT\nSELECT id FROM t", want: ReadOnly},
	{name: "comments between words", sql: "SELECT/**/id/**/FROM/**/t", want: ReadOnly},
	{name: "comment hides a write keyword", sql: "DELETE/**/FROM t", want: Write},
	{name: "unicode", sql: `SELECT 'ünïcödé ✓; DROP TABLE t' AS "名前", id AS naïve FROM t`, want: ReadOnly},
	{name: "unicode write", sql: "DELETE FROM t WHERE name = 'straße'", want: Write},

	// Nested comments: only PostgreSQL nests them.
	{name: "nested comment", dialects: casesPG, sql: "/* a /* b */ DROP TABLE t */ SELECT id FROM t", want: ReadOnly},
	{name: "nested comment not nested", dialects: casesMyLite, sql: "/* a /* b */ DROP TABLE t */ SELECT id FROM t", want: Write},
	{name: "nested comment hides semicolon", dialects: casesPG, sql: "SELECT 1 /* /* */ ; DROP TABLE t */", want: ReadOnly},
	{name: "nested comment semicolon", dialects: casesMyLite, sql: "SELECT 1 /* /* */ ; DROP TABLE t */", wantErr: true},

	// Line comment ends: PostgreSQL ends -- at \r too, the others only at \n.
	{name: "carriage return ends pg comment", dialects: casesPG, sql: "SELECT 1 --\r; DROP TABLE t", wantErr: true},
	{name: "carriage return inside comment", dialects: casesMyLite, sql: "SELECT 1 --\r; DROP TABLE t", want: ReadOnly},

	// MySQL comments.
	{name: "hash comment", dialects: casesMy, sql: "SELECT id FROM t # ; DROP TABLE t", want: ReadOnly},
	{name: "hash is not a comment", dialects: casesPGLite, sql: "SELECT id FROM t # ; DROP TABLE t", wantErr: true},
	{name: "mysql double minus without space", dialects: casesMy, sql: "SELECT 1 --GET_LOCK('aiq', 0)", want: Write},
	{name: "double minus without space is a comment", dialects: casesPGLite, sql: "SELECT 1 --GET_LOCK('aiq', 0)", want: ReadOnly},
	{name: "mysql double minus before DEL", dialects: casesMy, sql: "SELECT 1 --\x7f", wantErr: true},
	{name: "executable comment read-only", dialects: casesMy, sql: "SELECT /*!STRAIGHT_JOIN*/ id FROM t", want: ReadOnly},
	{name: "executable comment is code", dialects: casesMy, sql: "SELECT id /*!, GET_LOCK('aiq', 0) */ FROM t", want: Write},
	{name: "versioned executable comment", dialects: casesMy, sql: "SELECT 1 /*!99999 , GET_LOCK('aiq', 0) */", want: Write},
	{name: "executable comment semicolon", dialects: casesMy, sql: "SELECT 1 /*! ; DROP TABLE t */", wantErr: true},
	{name: "executable comment elsewhere", dialects: casesPGLite, sql: "SELECT 1 /*! ; DROP TABLE t */", want: ReadOnly},
	{name: "executable comment only", dialects: casesMy, sql: "/*! DELETE FROM t */", want: Write},
	{name: "mariadb executable comment", dialects: casesMy, sql: "SELECT 1 /*M!100000 , 2 */", want: ReadOnly},
	{name: "optimizer hint", dialects: casesMy, sql: "SELECT /*+ MAX_EXECUTION_TIME(1000) */ id FROM t", want: ReadOnly},
	{name: "executable comments mixed", dialects: casesMy, sql: "/*!99999 EXPLAIN */ /*!99998 DELETE FROM t WHERE id IN ( */ SELECT 1 /*!99998 ) */", want: Write},
	{name: "comment inside executable comment", dialects: casesMy, sql: "SELECT 1 /*!99999 /* x */ , 2 */", wantErr: true},
	{name: "close inside executable comment string", dialects: casesMy, sql: "SELECT 1 /*! , '*/' */", wantErr: true},

	// Backslashes.
	{name: "mysql backslash escape", dialects: casesMy, sql: `SELECT 'a\'; DROP TABLE t'`, want: ReadOnly},
	{name: "standard string backslash", dialects: casesPGLite, sql: `SELECT 'a\'; DROP TABLE t'`, wantErr: true},
	{name: "pg escape string", dialects: casesPG, sql: `SELECT E'a\'; DROP TABLE t'`, want: ReadOnly},
	{name: "pg backslash without standard strings", dialects: casesPG, sql: `SELECT 'x\'', nextval('aiq_seq') --'`, want: Write},
	{name: "mysql no backslash escapes", dialects: casesMy, sql: `SELECT 'x\', GET_LOCK(0, 0) AS y -- '`, want: Write},
	{name: "mysql ansi quotes", dialects: casesMy, sql: `SELECT "GET_LOCK"('aiq', 0)`, want: Write},

	// Dollar quotes.
	{name: "dollar quote", dialects: casesPG, sql: "SELECT $$; DROP TABLE t$$", want: ReadOnly},
	{name: "dollar quote elsewhere", dialects: casesMyLite, sql: "SELECT $$; DROP TABLE t$$", wantErr: true},
	{name: "tagged dollar quote", dialects: casesPG, sql: "SELECT $a$ it's $$ fine; DELETE $a$ AS x", want: ReadOnly},
	{name: "dollar quote unterminated", dialects: casesPG, sql: "SELECT $a$; DROP TABLE t", wantErr: true},
	{name: "dollar in identifier", dialects: casesPG, sql: "SELECT 1 AS a$$b", want: ReadOnly},

	// One statement only.
	{name: "select then drop", sql: "SELECT 1; DROP TABLE t", wantErr: true},
	{name: "commit then drop", sql: "COMMIT; DROP TABLE t", wantErr: true},
	{name: "two selects", sql: "SELECT 1; SELECT 2", wantErr: true},
	{name: "transaction script", sql: "BEGIN; DELETE FROM t; COMMIT;", wantErr: true},
	{name: "two semicolons", sql: "SELECT 1;;", wantErr: true},
	{name: "semicolon first", sql: "; SELECT 1", wantErr: true},
	{name: "empty", sql: "", wantErr: true},
	{name: "blank", sql: " \n\t ", wantErr: true},
	{name: "only comments", sql: "-- nothing\n/* here */", wantErr: true},
	{name: "only a semicolon", sql: " ; ", wantErr: true},
	{name: "unterminated string", sql: "SELECT 'abc", wantErr: true},
	{name: "unterminated identifier", sql: `SELECT "abc FROM t`, wantErr: true},
	{name: "unterminated comment", sql: "SELECT 1 /* abc", wantErr: true},
	{name: "unterminated backtick", dialects: casesMyLite, sql: "SELECT `abc FROM t", wantErr: true},
	{name: "unterminated bracket", dialects: casesLite, sql: "SELECT [abc FROM t", wantErr: true},
	{name: "NUL byte", sql: "SELECT 1\x00; DROP TABLE t", wantErr: true},
	{name: "invalid UTF-8", sql: "SELECT '\xff'", wantErr: true},

	// WITH.
	{name: "cte", sql: "WITH x AS (SELECT id FROM t) SELECT * FROM x", want: ReadOnly},
	{name: "cte named like a keyword", sql: "WITH deleted AS (SELECT id FROM t) SELECT * FROM deleted", want: ReadOnly},
	{name: "quoted cte keyword", dialects: casesPGLite, sql: `WITH "insert" AS (SELECT id FROM t) SELECT * FROM "insert"`, want: ReadOnly},
	{name: "backtick cte keyword", dialects: casesMy, sql: "WITH `insert` AS (SELECT id FROM t) SELECT * FROM `insert`", want: ReadOnly},
	{name: "bare cte named update, conservative", dialects: casesPG, sql: "WITH update AS (SELECT id FROM t) SELECT * FROM update", want: Write},
	{name: "recursive cte", sql: "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3) SELECT * FROM n", want: ReadOnly},
	{name: "data-modifying cte", dialects: casesPG, sql: "WITH x AS (DELETE FROM t RETURNING *) SELECT * FROM x", want: Write},
	{name: "data-modifying cte update", dialects: casesPG, sql: "with x as (update t set name = 'x' returning id) select * from x", want: Write},
	{name: "cte then delete", sql: "WITH x AS (SELECT id FROM t) DELETE FROM t WHERE id IN (SELECT id FROM x)", want: Write},
	{name: "cte then insert", sql: "WITH x AS (SELECT id FROM t) INSERT INTO t SELECT id + 100, 'n' FROM x", want: Write},

	// SELECT that writes or locks.
	{name: "select into table", dialects: casesPG, sql: "SELECT * INTO t2 FROM t", want: Write},
	{name: "select into outfile", dialects: casesMy, sql: "SELECT * FROM t INTO OUTFILE '/tmp/aiq-out'", want: Write},
	{name: "select into dumpfile", dialects: casesMy, sql: "SELECT name FROM t LIMIT 1 INTO DUMPFILE '/tmp/aiq-dump'", want: Write},
	{name: "select into variable", dialects: casesMy, sql: "SELECT id INTO @x FROM t LIMIT 1", want: Write},
	{name: "assign variable", dialects: casesMy, sql: "SELECT @x := 1", want: Write},
	{name: "for update", dialects: casesPGMy, sql: "SELECT * FROM t FOR UPDATE", want: Write},
	{name: "for share", dialects: casesPGMy, sql: "SELECT * FROM t FOR SHARE", want: Write},
	{name: "for no key update", dialects: casesPG, sql: "SELECT * FROM t FOR NO KEY UPDATE", want: Write},
	{name: "for key share", dialects: casesPG, sql: "SELECT * FROM t FOR KEY SHARE", want: Write},
	{name: "lock in share mode", dialects: casesMy, sql: "SELECT * FROM t LOCK IN SHARE MODE", want: Write},
	{name: "column named share", sql: "SELECT id AS share FROM t", want: ReadOnly},

	// Functions that write.
	{name: "nextval", dialects: casesPG, sql: "SELECT nextval('aiq_seq')", want: Write},
	{name: "qualified nextval", dialects: casesPG, sql: "SELECT PG_CATALOG.NEXTVAL('aiq_seq')", want: Write},
	{name: "quoted nextval", dialects: casesPG, sql: `SELECT "nextval"('aiq_seq')`, want: Write},
	{name: "unicode escape identifier", dialects: casesPG, sql: `SELECT U&"nextva\006C"('aiq_seq')`, want: Write},
	{name: "nextval in where", dialects: casesPG, sql: "SELECT * FROM t WHERE id = nextval('aiq_seq')", want: Write},
	{name: "setval", dialects: casesPG, sql: "SELECT setval('aiq_seq', 1)", want: Write},
	{name: "pg_terminate_backend", dialects: casesPG, sql: "SELECT pg_terminate_backend(0)", want: Write},
	{name: "pg_cancel_backend", dialects: casesPG, sql: "SELECT pg_cancel_backend(0)", want: Write},
	{name: "lo_import", dialects: casesPG, sql: "SELECT lo_import('/nonexistent/aiq')", want: Write},
	{name: "lo_export", dialects: casesPG, sql: "SELECT lo_export(0, '/tmp/aiq-lo')", want: Write},
	{name: "set_config", dialects: casesPG, sql: "SELECT set_config('aiq.x', '1', false)", want: Write},
	{name: "advisory lock", dialects: casesPG, sql: "SELECT pg_advisory_xact_lock(1)", want: Write},
	{name: "dblink_exec", dialects: casesPG, sql: "SELECT dblink_exec('dbname=aiq', 'DELETE FROM t')", want: Write},
	{name: "pg_reload_conf", dialects: casesPG, sql: "SELECT pg_reload_conf()", want: Write},
	{name: "pg_rotate_logfile", dialects: casesPG, sql: "SELECT pg_rotate_logfile()", want: Write},
	{name: "get_lock", dialects: casesMy, sql: "SELECT GET_LOCK('aiq', 0)", want: Write},
	{name: "release_lock", dialects: casesMy, sql: "select release_lock('aiq')", want: Write},
	{name: "next value for", dialects: casesMy, sql: "SELECT NEXT VALUE FOR aiq_seq", want: Write},
	{name: "load_extension", dialects: casesLite, sql: "SELECT load_extension('aiq')", want: Write},

	// Reads that leave the database: server files, folders, the network.
	{name: "pg_read_file", dialects: casesPG, sql: "SELECT pg_read_file('/etc/hostname')", want: Write},
	{name: "pg_read_file qualified upper case", dialects: casesPG, sql: "SELECT PG_CATALOG.PG_READ_FILE('/etc/hostname')", want: Write},
	{name: "pg_read_file quoted", dialects: casesPG, sql: `SELECT "pg_read_file"('/etc/hostname')`, want: Write},
	{name: "pg_read_file in a cte", dialects: casesPG, sql: "WITH f AS (SELECT pg_read_file('/etc/hostname') AS x) SELECT x FROM f", want: Write},
	{name: "pg_read_file explained", dialects: casesPG, sql: "EXPLAIN SELECT pg_read_file('/etc/hostname')", want: Write},
	{name: "pg_read_binary_file", dialects: casesPG, sql: "SELECT pg_read_binary_file('/etc/hostname')", want: Write},
	{name: "pg_ls_dir", dialects: casesPG, sql: "SELECT * FROM pg_ls_dir('.')", want: Write},
	{name: "pg_ls_waldir", dialects: casesPG, sql: "SELECT count(*) FROM pg_ls_waldir()", want: Write},
	{name: "pg_ls_logdir", dialects: casesPG, sql: "SELECT count(*) FROM pg_ls_logdir()", want: Write},
	{name: "pg_ls_tmpdir", dialects: casesPG, sql: "SELECT count(*) FROM pg_ls_tmpdir()", want: Write},
	{name: "pg_stat_file", dialects: casesPG, sql: "SELECT size FROM pg_stat_file('postgresql.conf')", want: Write},
	{name: "pg_file_settings", dialects: casesPG, sql: "SELECT * FROM pg_file_settings", want: Write},
	{name: "pg_hba_file_rules", dialects: casesPG, sql: "SELECT count(*) FROM pg_hba_file_rules", want: Write},
	{name: "lo_import reads a file", dialects: casesPG, sql: "SELECT lo_import('/etc/hostname')", want: Write},
	{name: "dblink", dialects: casesPG, sql: "SELECT * FROM dblink('dbname=postgres', 'SELECT 1') AS x(a int)", want: Write},
	{name: "dblink_connect", dialects: casesPG, sql: "SELECT dblink_connect('dbname=postgres')", want: Write},
	{name: "http_get", dialects: casesPG, sql: "SELECT content FROM http_get('http://127.0.0.1:9/')", want: Write},
	{name: "copy to program", dialects: casesPG, sql: "COPY t TO PROGRAM 'cat > /dev/null'", want: Write},
	{name: "copy from file", dialects: casesPG, sql: "COPY t FROM '/nonexistent/aiq'", want: Write},
	{name: "load_file", dialects: casesMy, sql: "SELECT LOAD_FILE('/etc/hostname')", want: Write},
	{name: "load_file in where", dialects: casesMy, sql: "SELECT id FROM t WHERE name = load_file('/etc/hostname')", want: Write},
	{name: "load data local", dialects: casesMy, sql: "LOAD DATA LOCAL INFILE '/nonexistent/aiq' INTO TABLE t", want: Write},
	{name: "readfile", dialects: casesLite, sql: "SELECT readfile('/etc/hostname')", want: Write},
	{name: "writefile", dialects: casesLite, sql: "SELECT writefile('/nonexistent/aiq', 'x')", want: Write},
	{name: "fsdir", dialects: casesLite, sql: "SELECT name FROM fsdir('/nonexistent')", want: Write},
	{name: "vacuum into", dialects: casesLite, sql: "VACUUM INTO '/nonexistent/aiq.db'", want: Write},
	{name: "column named like a file function elsewhere", dialects: casesLite, sql: "SELECT id AS pg_read_file FROM t", want: ReadOnly},

	// Trigger and routine bodies are one statement, and a write.
	{name: "trigger body", dialects: casesLite, sql: "CREATE TRIGGER trg AFTER INSERT ON t BEGIN DELETE FROM t WHERE id = 0; END", want: Write},
	{name: "trigger body with case", dialects: casesLite, sql: "CREATE TRIGGER trg BEFORE INSERT ON t BEGIN SELECT CASE WHEN new.id < 0 THEN RAISE(ABORT, 'negative') END; UPDATE t SET name = 'x' WHERE id = 0; END;", want: Write},
	{name: "trigger body then a statement", dialects: casesLite, sql: "CREATE TRIGGER trg AFTER INSERT ON t BEGIN DELETE FROM t; END; DROP TABLE t", wantErr: true},
	{name: "trigger body not closed", dialects: casesLite, sql: "CREATE TRIGGER trg AFTER INSERT ON t BEGIN DELETE FROM t;", wantErr: true},
	{name: "case expression then a statement", sql: "SELECT CASE WHEN id = 1 THEN 'a' END FROM t; DROP TABLE t", wantErr: true},
	{name: "begin atomic function", dialects: casesPG, sql: "CREATE FUNCTION f() RETURNS int LANGUAGE sql BEGIN ATOMIC SELECT 1; SELECT CASE WHEN true THEN 2 ELSE 3 END; END", want: Write},
	{name: "begin atomic procedure", dialects: casesPG, sql: "CREATE OR REPLACE PROCEDURE p() LANGUAGE sql BEGIN ATOMIC INSERT INTO t VALUES (5, 'five'); DELETE FROM t WHERE id = 5; END;", want: Write},
	{name: "begin atomic then a statement", dialects: casesPG, sql: "CREATE FUNCTION f() RETURNS int LANGUAGE sql BEGIN ATOMIC SELECT 1; END; DROP TABLE t", wantErr: true},
	{name: "parameter named begin", dialects: casesPG, sql: "CREATE FUNCTION f(begin int) RETURNS int LANGUAGE sql RETURN $1 + 1", want: Write},
	{name: "rule with several actions", dialects: casesPG, sql: "CREATE RULE r AS ON INSERT TO t DO ALSO (UPDATE t SET name = 'x' WHERE id = 0; DELETE FROM t WHERE id = 0)", want: Write},
	{name: "plpgsql trigger function", dialects: casesPG, sql: "CREATE FUNCTION trg() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN DELETE FROM t; RETURN NEW; END $$", want: Write},
	{name: "mysql procedure with every block", dialects: casesMy, sql: "CREATE PROCEDURE p() BEGIN DECLARE i INT DEFAULT 0; " +
		"lbl: LOOP SET i = i + 1; IF i > 3 THEN LEAVE lbl; ELSEIF (i = 2) THEN SET i = i + 1; END IF; END LOOP lbl; " +
		"CASE i WHEN 4 THEN UPDATE t SET name = 'x' WHERE id = 0; ELSE BEGIN END; END CASE; " +
		"WHILE (i > 0) DO SET i = i - 1; END WHILE; REPEAT SET i = i + 1; UNTIL i > 2 END REPEAT; " +
		"SELECT IF(i > 1, 'a', 'b'), REPEAT('x', 2), CASE WHEN i > 0 THEN IF(i > 1, 2, 1) ELSE REPEAT('y', 1) END; END", want: Write},
	{name: "mysql trigger body", dialects: casesMy, sql: "CREATE TRIGGER trg BEFORE INSERT ON t FOR EACH ROW BEGIN IF NEW.id < 0 THEN SET NEW.id = 0; END IF; END", want: Write},
	{name: "mysql trigger if body", dialects: casesMy, sql: "CREATE TRIGGER trg BEFORE INSERT ON t FOR EACH ROW IF NEW.id < 0 THEN SET NEW.id = 0; END IF", want: Write},
	{name: "mysql definer procedure", dialects: casesMy, sql: "CREATE DEFINER = CURRENT_USER PROCEDURE p() BEGIN UPDATE t SET name = 'x' WHERE id = 0; END", want: Write},
	{name: "mysql definer at host", dialects: casesMy, sql: "CREATE DEFINER=`root`@`localhost` FUNCTION f() RETURNS INT DETERMINISTIC BEGIN DECLARE r INT; SET r = 1; RETURN r; END", want: Write},
	{name: "mysql event body", dialects: casesMy, sql: "CREATE EVENT e ON SCHEDULE AT CURRENT_TIMESTAMP + INTERVAL 1 DAY DO BEGIN DELETE FROM t WHERE id = 0; END", want: Write},
	{name: "mariadb begin not atomic", dialects: casesMy, sql: "BEGIN NOT ATOMIC DECLARE i INT DEFAULT 0; SELECT i; END", want: Write},
	{name: "mysql body then a statement", dialects: casesMy, sql: "CREATE PROCEDURE p() BEGIN SELECT 1; END; DROP TABLE t", wantErr: true},
	{name: "mysql if never closed", dialects: casesMy, sql: "CREATE PROCEDURE p() BEGIN IF 1 THEN SELECT 1; END", wantErr: true},
	{name: "begin is not a body elsewhere", dialects: casesMy, sql: "BEGIN; DELETE FROM t; END", wantErr: true},

	// SHOW, DESCRIBE, EXPLAIN.
	{name: "show tables", dialects: casesMy, sql: "SHOW TABLES", want: ReadOnly},
	{name: "show create table", dialects: casesMy, sql: "SHOW CREATE TABLE t", want: ReadOnly},
	{name: "show setting", dialects: casesPG, sql: "SHOW server_version", want: ReadOnly},
	{name: "describe", dialects: casesMy, sql: "DESCRIBE t", want: ReadOnly},
	{name: "desc", dialects: casesMy, sql: "desc t", want: ReadOnly},
	{name: "explain", sql: "EXPLAIN SELECT * FROM t", want: ReadOnly},
	{name: "explain query plan", dialects: casesLite, sql: "EXPLAIN QUERY PLAN SELECT * FROM t WHERE id = 1", want: ReadOnly},
	{name: "explain delete", dialects: casesPGLite, sql: "EXPLAIN DELETE FROM t", want: ReadOnly},
	{name: "explain analyze select", dialects: casesPG, sql: "EXPLAIN ANALYZE SELECT * FROM t", want: ReadOnly},
	{name: "explain analyze delete", dialects: casesPGMy, sql: "EXPLAIN ANALYZE DELETE FROM t", want: Write},
	{name: "explain options analyze", dialects: casesPG, sql: "EXPLAIN (ANALYZE, FORMAT JSON) DELETE FROM t", want: Write},
	{name: "explain options", dialects: casesPG, sql: "EXPLAIN (COSTS OFF, FORMAT JSON) SELECT * FROM t", want: ReadOnly},
	{name: "explain analyze nextval", dialects: casesPG, sql: "EXPLAIN ANALYZE SELECT nextval('aiq_seq')", want: Write},
	{name: "mariadb analyze statement", dialects: casesMy, sql: "ANALYZE DELETE FROM t", want: Write},

	// PRAGMA.
	{name: "pragma table_info", dialects: casesLite, sql: "PRAGMA table_info(t)", want: ReadOnly},
	{name: "pragma schema table_info", dialects: casesLite, sql: "PRAGMA main.table_info('t')", want: ReadOnly},
	{name: "pragma index_list", dialects: casesLite, sql: "pragma index_list(t);", want: ReadOnly},
	{name: "pragma read setting", dialects: casesLite, sql: "PRAGMA user_version", want: ReadOnly},
	{name: "pragma set", dialects: casesLite, sql: "PRAGMA user_version = 5", want: Write},
	{name: "pragma set call form", dialects: casesLite, sql: "PRAGMA user_version(5)", want: Write},
	{name: "pragma query_only off", dialects: casesLite, sql: "PRAGMA query_only = 0", want: Write},
	{name: "pragma optimize", dialects: casesLite, sql: "PRAGMA optimize", want: Write},
	{name: "pragma wal_checkpoint", dialects: casesLite, sql: "PRAGMA wal_checkpoint", want: Write},
	{name: "pragma elsewhere", dialects: casesPGMy, sql: "PRAGMA table_info(t)", want: Write},

	// Writes.
	{name: "insert", sql: "INSERT INTO t VALUES (1, 'a')", want: Write},
	{name: "update", sql: "UPDATE t SET name = 'b' WHERE id = 1", want: Write},
	{name: "delete lower case", sql: "delete from t", want: Write},
	{name: "delete in parentheses", sql: "(DELETE FROM t)", want: Write},
	{name: "parenthesised select, not valid in SQLite", dialects: casesLite, sql: "((SELECT id FROM t))", want: ReadOnly},
	{name: "replace into", dialects: casesMyLite, sql: "REPLACE INTO t VALUES (1, 'a')", want: Write},
	{name: "insert or replace", dialects: casesLite, sql: "INSERT OR REPLACE INTO t VALUES (1, 'a')", want: Write},
	{name: "merge", dialects: casesPG, sql: "MERGE INTO t USING (SELECT 1 AS id) s ON t.id = s.id WHEN MATCHED THEN DELETE", want: Write},
	{name: "upsert", sql: "UPSERT INTO t VALUES (1, 'a')", want: Write},
	{name: "create table", sql: "CREATE TABLE t2 (id int)", want: Write},
	{name: "create view", dialects: casesPGMy, sql: "CREATE OR REPLACE VIEW v AS SELECT id FROM t", want: Write},
	{name: "alter", sql: "ALTER TABLE t ADD COLUMN c int", want: Write},
	{name: "drop", sql: "DROP TABLE t", want: Write},
	{name: "drop if exists", sql: "drop table if exists t", want: Write},
	{name: "truncate", sql: "TRUNCATE TABLE t", want: Write},
	{name: "grant", dialects: casesPG, sql: "GRANT SELECT ON t TO PUBLIC", want: Write},
	{name: "revoke", dialects: casesPG, sql: "REVOKE SELECT ON t FROM PUBLIC", want: Write},
	{name: "copy", dialects: casesPG, sql: "COPY t TO STDOUT", want: Write},
	{name: "call", dialects: casesPGMy, sql: "CALL aiq_proc()", want: Write},
	{name: "do block", dialects: casesPG, sql: "DO $$ BEGIN DELETE FROM t; END $$", want: Write},
	{name: "mysql do", dialects: casesMy, sql: "DO GET_LOCK('aiq', 0)", want: Write},
	{name: "set", dialects: casesPG, sql: "SET search_path TO public", want: Write},
	{name: "set variable", dialects: casesMy, sql: "SET @x = 1", want: Write},
	{name: "lock table", dialects: casesPG, sql: "LOCK TABLE t", want: Write},
	{name: "lock tables", dialects: casesMy, sql: "LOCK TABLES t READ", want: Write},
	{name: "vacuum", dialects: casesPGLite, sql: "VACUUM", want: Write},
	{name: "analyze", sql: "ANALYZE t", want: Write},
	{name: "reindex", dialects: casesPGLite, sql: "REINDEX t", want: Write},
	{name: "cluster", dialects: casesPG, sql: "CLUSTER t", want: Write},
	{name: "load data", dialects: casesMy, sql: "LOAD DATA INFILE '/nonexistent/aiq' INTO TABLE t", want: Write},
	{name: "handler", dialects: casesMy, sql: "HANDLER t OPEN", want: Write},
	{name: "attach", dialects: casesLite, sql: "ATTACH DATABASE ':memory:' AS aux", want: Write},
	{name: "detach", dialects: casesLite, sql: "DETACH DATABASE aux", want: Write},
	{name: "begin", sql: "BEGIN", want: Write},
	{name: "start transaction", dialects: casesPGMy, sql: "START TRANSACTION READ ONLY", want: Write},
	{name: "commit", sql: "COMMIT", want: Write},
	{name: "rollback", sql: "ROLLBACK", want: Write},
	{name: "savepoint", sql: "SAVEPOINT s", want: Write},
	{name: "unknown statement", sql: "FROBNICATE t", want: Write},
	{name: "no keyword", sql: "'just a string'", want: Write},
	{name: "select column named delete, conservative", dialects: casesPG, sql: "SELECT delete FROM t", want: Write},
}
