// The statements of a SQL file, as "Run with AIQ" finds them: the one
// under the cursor, a CodeLens each, a `;` in a string or a comment that
// ends nothing, and Ctrl+Enter outside SQL files only for SQL selected.

import * as assert from "node:assert/strict";
import { describe, it } from "node:test";
import { looksLikeSql, splitStatements, statementAt } from "../src/sqlStatements";

describe("splitStatements", () => {
  it("cuts at each ; outside strings, quoted names, comments and dollar quotes", () => {
    const text = [
      "-- the orders",
      "SELECT 'a;b', \"x;y\", `p;q` FROM t; /* c; d */",
      "",
      "INSERT INTO notes VALUES ('it''s; fine');",
      "CREATE FUNCTION f() RETURNS int AS $body$ SELECT 1; $body$ LANGUAGE sql;",
      "select 4 -- last; no semicolon",
    ].join("\n");
    assert.deepEqual(
      splitStatements(text).map((s) => s.text),
      [
        "SELECT 'a;b', \"x;y\", `p;q` FROM t",
        "INSERT INTO notes VALUES ('it''s; fine')",
        "CREATE FUNCTION f() RETURNS int AS $body$ SELECT 1; $body$ LANGUAGE sql",
        "select 4 -- last; no semicolon",
      ],
    );
  });

  it("gives offsets that point at each statement's text, and leaves out empty ones", () => {
    const text = ";;\n  SELECT 1;\n-- only a comment\n;\nSELECT 2";
    const all = splitStatements(text);
    assert.equal(all.length, 2);
    for (const s of all) {
      assert.equal(text.slice(s.start, s.end), s.text);
    }
  });
});

describe("statementAt", () => {
  const text = "SELECT 1;\nSELECT 2;   \n\nSELECT 3";
  it("is the statement that holds the cursor", () => {
    assert.equal(statementAt(text, text.indexOf("2"))?.text, "SELECT 2");
    assert.equal(statementAt(text, 0)?.text, "SELECT 1");
  });
  it("is the statement the cursor's line ends, for a cursor after its ;", () => {
    assert.equal(statementAt(text, text.indexOf("2;") + 4)?.text, "SELECT 2");
  });
  it("is the next statement on a blank line, and the last one at the end", () => {
    assert.equal(statementAt(text, text.indexOf("\n\n") + 1)?.text, "SELECT 3");
    assert.equal(statementAt(text, text.length)?.text, "SELECT 3");
    assert.equal(statementAt("SELECT 1;\n\n", 11)?.text, "SELECT 1");
  });
  it("is nothing in a text without SQL", () => {
    assert.equal(statementAt("  -- nothing\n", 3), undefined);
  });
});

describe("looksLikeSql", () => {
  it("knows statements, past blanks and comments", () => {
    for (const sql of [
      "SELECT id FROM orders",
      "  -- why\nselect 1",
      "WITH t AS (SELECT 1) SELECT * FROM t",
      "UPDATE orders SET status = 'x'",
      "delete from t where id = 1",
      "INSERT INTO t VALUES (1)",
      "create table t (id int)",
    ]) {
      assert.ok(looksLikeSql(sql), sql);
    }
  });
  it("does not take prose for SQL, so Ctrl+Enter keeps its meaning there", () => {
    for (const text of ["Select the rows you want", "Update the docs", "With this, we are done.", "delete the file", "show me the orders"]) {
      assert.ok(!looksLikeSql(text), text);
    }
  });
});
