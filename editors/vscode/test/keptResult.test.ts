// A result tab after a reload: what it keeps in VS Code's state (a
// reference, never rows) and the result it gets back from the conversation.

import * as assert from "node:assert/strict";
import { test } from "node:test";
import { keptRef, keptStatement } from "../src/keptResult";
import type { HistoryMessage, SeenResult } from "../src/messages";

const SQL = "SELECT id, email FROM customers";
const MESSAGES: HistoryMessage[] = [
  { role: "user", content: "who are the customers?" },
  { role: "assistant", content: "", tool_calls: [{ id: "c1", type: "function", function: { name: "execute_sql", arguments: JSON.stringify({ sql: SQL }) } }] },
  { role: "tool", tool_call_id: "c1", content: JSON.stringify({ status: "success", row_count: 500, columns: ["id", "email"], rows: [[1, "<masked:email:3f2a91c04d00>"]], truncated: true }) },
  { role: "assistant", content: "Here they are." },
];
const SEEN_ROWS = Array.from({ length: 500 }, (_, i) => [i + 1, `user${i + 1}@example.com`]);

test("a restored tab's state is a reference to its result, checked as input", () => {
  assert.deepEqual(keptRef({ statement: { sql: SQL, callId: "c1" } }), { sql: SQL, callId: "c1" });
  assert.deepEqual(keptRef({ statement: { sql: SQL, callId: "c1", rows: [[1, "x"]] } }), { sql: SQL, callId: "c1" }, "rows in an old state are not taken");
  assert.deepEqual(keptRef({ statement: { sql: SQL } }), { sql: SQL, callId: "" });
  for (const bad of [undefined, null, 3, {}, { statement: { sql: 3 } }, { statement: { sql: " " } }]) {
    assert.equal(keptRef(bad), undefined, JSON.stringify(bad));
  }
});

test("a restored tab gets the rows the user saw, real values and count, from seen", () => {
  const st = keptStatement({ sql: SQL, callId: "c1" }, MESSAGES, { c1: { columns: ["id", "email"], rows: SEEN_ROWS, rowCount: 500, rowsKept: true } });
  assert.ok(st);
  assert.equal(st.rows?.length, 500);
  assert.deepEqual(st.rows?.[0], [1, "user1@example.com"]);
  assert.equal(st.rowCount, 500);
  assert.equal(st.restored, undefined);
  assert.equal(st.callId, "c1");
});

test("without seen rows a restored tab gets the session file's rows, marked restored with the count", () => {
  const seens: Record<string, SeenResult>[] = [{}, { c1: { columns: ["id", "email"], rowCount: 500, rowsKept: false } }];
  for (const seen of seens) {
    const st = keptStatement({ sql: SQL, callId: "c1" }, MESSAGES, seen);
    assert.ok(st);
    assert.equal(st.restored, true);
    assert.equal(st.rows?.length, 1);
    assert.equal(st.rowCount, 500);
  }
  assert.equal(keptStatement({ sql: SQL, callId: "c9" }, MESSAGES, {}), undefined, "a call the conversation does not hold");
  assert.equal(keptStatement({ sql: SQL, callId: "" }, MESSAGES, {}), undefined);
});
