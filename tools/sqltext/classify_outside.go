package sqltext

import "strings"

// outsideFunction returns why calling the function (or reading the view)
// named name, folded, in d reaches outside the database: it reads or lists
// files of the machine the database runs on, or reaches the network. Such
// a statement changes nothing, yet it asks first, as a write does: what it
// reads was never meant to be data. It returns "" for any other name. The
// database role's privileges stay the real fence: a name this list misses,
// such as a function of an extension it does not know, still runs.
func OutsideFunction(name string, d Dialect) string {

	switch d {
	case DialectPostgres:
		switch name {
		case "PG_READ_FILE", "PG_READ_BINARY_FILE", "PG_FILE_READ":
			return strings.ToLower(name) + " reads a file on the database server, outside the database."
		case "PG_STAT_FILE":
			return "pg_stat_file reads the details of a file on the database server, outside the database."
		case "PG_LS_DIR", "PG_LOGDIR_LS":
			return strings.ToLower(name) + " lists a folder on the database server, outside the database."
		case "PG_FILE_SETTINGS", "PG_HBA_FILE_RULES", "PG_IDENT_FILE_MAPPINGS":
			return strings.ToLower(name) + " reads the server's configuration files, outside the database."
		case "LO_IMPORT":
			return "lo_import reads a file on the database server into a large object."
		case "LO_EXPORT":
			return "lo_export writes a large object to a file on the database server."
		case "HTTP", "HTTP_GET", "HTTP_POST", "HTTP_PUT", "HTTP_PATCH", "HTTP_DELETE", "HTTP_HEAD":
			return strings.ToLower(name) + " sends an HTTP request from the database server."
		}
		switch {
		case strings.HasPrefix(name, "PG_LS_") && strings.HasSuffix(name, "DIR"):
			// pg_ls_logdir, pg_ls_waldir, pg_ls_tmpdir and the others.
			return strings.ToLower(name) + " lists a folder on the database server, outside the database."
		case strings.HasPrefix(name, "DBLINK"):
			return strings.ToLower(name) + " connects to another database over the network."
		}
	case DialectMySQL:
		if name == "LOAD_FILE" {
			return "load_file reads a file on the database server, outside the database."
		}
	case DialectSQLite:
		switch name {
		case "READFILE":
			return "readfile reads a file on the machine aiq-rpc runs on, outside the database."
		case "FSDIR":
			return "fsdir lists a folder on the machine aiq-rpc runs on, outside the database."
		case "ZIPFILE":
			return "zipfile reads a zip archive on the machine aiq-rpc runs on, outside the database."
		}
	}
	return ""
}
