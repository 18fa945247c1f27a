// Unit tests of the chat view's logic (media/view.js) and its HTML document
// (src/chatHtml.ts), in plain Node.

import { test } from "node:test";
import * as assert from "node:assert/strict";
import * as fs from "fs";
import * as path from "path";
import { spawnSync } from "child_process";
import { chatHtml, chatCsp, isSourceList, newNonce } from "../src/chatHtml";

const root = path.join(__dirname, "..", "..");
// eslint-disable-next-line @typescript-eslint/no-var-requires
const view = require(path.join(root, "media", "view.js"));
const fixture = JSON.parse(fs.readFileSync(path.join(root, "test", "fixtures", "conversation.json"), "utf8"));

function replay(messages: unknown[]) {
  let model = view.emptyModel();
  for (const m of messages) model = view.apply(model, m).model;
  return model;
}

/** chat/history's "turns": a user and an assistant entry for each pair. */
function questionsAndAnswers(...pairs: [string, string][]) {
  return pairs.flatMap(([q, a]) => [{ role: "user", content: q }, { role: "assistant", content: a }]);
}

function turns(model: any): any[] {
  return model.entries.filter((e: any) => e.kind === "turn");
}

// ---- The messages ----

test("the header names the source from the start: starting… until the server said, never a false \"no database\"", () => {
  const model = view.emptyModel();
  assert.equal(view.sourceLabel(model), "starting…");
  view.apply(model, { type: "state", source: "", running: false, sourceKnown: false, server: "starting" });
  assert.equal(view.sourceLabel(model), "starting…");
  view.apply(model, { type: "state", source: "", running: false, sourceKnown: false, server: "stopped" });
  assert.equal(view.sourceLabel(model), "not running");
  view.apply(model, { type: "state", source: "shop", running: false, sourceKnown: true, server: "running" });
  assert.equal(view.sourceLabel(model), "shop");
  view.apply(model, { type: "state", source: "", running: false, sourceKnown: true, server: "running" });
  assert.equal(view.sourceLabel(model), "no database", "when the conversation has none");
  view.apply(model, { type: "state", source: "shop", running: false, sourceKnown: true, server: "running", label: "production" });
  assert.equal(view.sourceLabel(model), "shop [production]", "a labelled source says its label");
  view.apply(model, { type: "state", source: "demo", running: false });
  assert.equal(view.sourceLabel(model), "demo", "an older extension's message still reads");
});

test("the header shows the conversation's model after the source once the server said it, and nothing before", () => {
  const model = view.emptyModel();
  view.apply(model, { type: "state", source: "shop", running: false, sourceKnown: true, server: "running" });
  assert.equal(view.modelLabel(model), "", "not known yet: nothing, not a guess");
  view.apply(model, { type: "state", source: "shop", running: false, sourceKnown: true, server: "running", model: "qwen3:8b" });
  assert.equal(view.sourceLabel(model), "shop");
  assert.equal(view.modelLabel(model), "qwen3:8b");
  view.apply(model, { type: "state", source: "shop", running: false, sourceKnown: true, server: "stopped" });
  assert.equal(view.modelLabel(model), "", "a stopped server's model is not shown as current");
});

test("view.js handles every ToView message type of src/messages.ts, and no other", () => {
  const src = fs.readFileSync(path.join(root, "src", "messages.ts"), "utf8");
  const block = src.slice(src.indexOf("export type ToView"), src.indexOf("export type FromView"));
  const types = [...block.matchAll(/type:\s*"(\w+)"/g)].map((m) => m[1]);
  assert.ok(types.length >= 8, `found only ${types.length} ToView types in messages.ts`);
  assert.deepEqual([...view.HANDLED_TYPES].sort(), [...new Set(types)].sort());
});

test("each handled type changes the model (none is listed but ignored)", () => {
  const samples: Record<string, unknown> = {
    state: { type: "state", source: "shop", running: true },
    turnStart: { type: "turnStart", turnId: 2, query: "q2" },
    progress: { type: "progress", turnId: 1, event: { kind: "text", text: "hi" } },
    turnEnd: { type: "turnEnd", turnId: 1, result: { stopReason: "end_turn", answer: "hi", statements: [], warnings: [] } },
    turnError: { type: "turnError", turnId: 1, message: "boom" },
    history: { type: "history", turns: [{ role: "user", content: "x" }] },
    clear: { type: "clear" },
    notice: { type: "notice", level: "info", message: "saved" },
    confirm: { type: "confirm", turnId: 1, id: 1, prompt: PROMPT },
    confirmEnd: { type: "confirmEnd", turnId: 1, id: 1, decision: "closed", message: "The statement did not run." },
  };
  for (const type of view.HANDLED_TYPES) {
    const model = view.apply(view.emptyModel(), { type: "turnStart", turnId: 1, query: "q" }).model;
    if (type === "confirmEnd") view.apply(model, samples.confirm);
    const before = JSON.stringify(model);
    view.apply(model, samples[type]);
    assert.notEqual(JSON.stringify(model), before, `${type} left the model as it was`);
  }
  const model = view.emptyModel();
  assert.equal(view.apply(model, { type: "nonsense" }).changed, "none");
  assert.equal(view.apply(model, null).changed, "none");
});

const PROMPT = {
  message: "AIQ wants to run a statement that writes. DELETE removes rows.",
  sql: "DELETE FROM orders WHERE id = 1",
  masked: [],
  note: "Reject (Enter, Escape) does not run it.",
  buttons: [{ label: "Reject", decision: "reject" }, { label: "Allow once", decision: "allow_once" }],
};

test("the write dialog opens in its turn; answered it goes, closed unanswered it says the statement did not run", () => {
  const model = view.emptyModel();
  view.apply(model, { type: "turnStart", turnId: 1, query: "Delete order 1" });
  assert.equal(view.openConfirm(model), undefined);
  assert.equal(view.apply(model, { type: "confirm", turnId: 1, id: 7, prompt: PROMPT }).changed, 1);
  const [t] = turns(model);
  assert.deepEqual(view.turnBlocks(t).map((b: any) => b.item.kind), ["confirm"]);
  assert.equal(view.openConfirm(model).id, 7);
  assert.deepEqual(view.openConfirm(model).prompt, PROMPT);

  view.apply(model, { type: "confirmEnd", turnId: 1, id: 7, decision: "reject" });
  assert.equal(view.openConfirm(model), undefined, "answered: no dialog is open");
  assert.deepEqual(view.turnBlocks(t), [], "and it is not drawn");

  view.apply(model, { type: "confirm", turnId: 1, id: 8, prompt: PROMPT });
  view.apply(model, { type: "confirmEnd", turnId: 1, id: 8, decision: "closed", message: "The statement did not run: the question was stopped before you answered." });
  assert.equal(view.openConfirm(model), undefined);
  const closed = view.turnBlocks(t).map((b: any) => b.item);
  assert.deepEqual(closed.map((i: any) => [i.id, i.message]), [[8, "The statement did not run: the question was stopped before you answered."]]);

  // A turn that ends under an open dialog closes it (a replay that lost the confirmEnd).
  view.apply(model, { type: "confirm", turnId: 1, id: 9, prompt: PROMPT });
  view.apply(model, { type: "turnError", turnId: 1, message: "aiq-rpc stopped." });
  assert.equal(view.openConfirm(model), undefined);
  assert.match(t.items.find((i: any) => i.id === 9).message, /did not run/);
  // No dialog opens in a finished turn.
  assert.equal(view.apply(model, { type: "confirm", turnId: 1, id: 10, prompt: PROMPT }).changed, "none");
});

test("the write dialog keeps its masked lines, as text, and an older extension's prompt without them still opens", () => {
  const model = view.emptyModel();
  view.apply(model, { type: "turnStart", turnId: 1, query: "Delete Ann" });
  const masked = ["<masked:email:3f2a…> is ann@example.com", "<masked:name:0b1c…> is <img src=x onerror=alert(1)>"];
  view.apply(model, { type: "confirm", turnId: 1, id: 1, prompt: { ...PROMPT, sql: "DELETE FROM customers WHERE email = '<masked:email:3f2a91c04d7e>'", masked } });
  assert.deepEqual(view.openConfirm(model).prompt.masked, masked);
  view.apply(model, { type: "confirmEnd", turnId: 1, id: 1, decision: "reject" });
  const { masked: _, ...older } = PROMPT;
  view.apply(model, { type: "confirm", turnId: 1, id: 2, prompt: older });
  assert.deepEqual(view.openConfirm(model).prompt.masked, []);
});

test("Escape, and Enter anywhere but on an Allow button, reject the write dialog", () => {
  assert.equal(view.confirmKey("Escape", undefined), "reject");
  assert.equal(view.confirmKey("Escape", "allow_once"), "reject");
  assert.equal(view.confirmKey("Enter", undefined), "reject", "focus in the input or on Copy");
  assert.equal(view.confirmKey("Enter", "reject"), "reject");
  assert.equal(view.confirmKey("Enter", "allow_once"), null, "Enter on Allow once presses it");
  assert.equal(view.confirmKey("Enter", "allow_always"), null);
  assert.equal(view.confirmKey("a", undefined), null);
  assert.equal(view.confirmKey("Tab", undefined), null, "Tab moves between the buttons");
});

test("the recorded conversation reduces to three turns with their SQL, charts and answers", () => {
  const model = replay(fixture.messages);
  assert.equal(model.source, "demo");
  assert.equal(model.running, false);
  const [t1, t2, t3] = turns(model);
  assert.equal(turns(model).length, 3);
  assert.equal(t1.query, "Which product categories bring in the most revenue?");
  assert.deepEqual(t1.items.map((i: any) => i.kind), ["sql", "chart", "text"]);
  assert.equal(t1.items[0].statement.rows.length, 9);
  assert.equal(t1.items[1].chart.labels.length, 9);
  const end1 = fixture.messages.find((m: any) => m.type === "turnEnd" && m.turnId === 1);
  assert.equal(t1.items[2].text, end1.result.answer, "streamed pieces add up to the answer");
  assert.ok(t1.done && !t1.cancelled && t1.error === "");
  assert.equal(t2.selection.languageId, "sql");
  assert.equal(t3.items[0].statement.rows.some((r: unknown[]) => r[0] === "<img src=x onerror=alert(1)>"), true);
  assert.equal(model.entries[model.entries.length - 1].kind, "notice");
});

test("a turn: status, tool result matched by call id, an error, a cancel", () => {
  const model = view.emptyModel();
  view.apply(model, { type: "turnStart", turnId: 7, query: "q", selection: { text: "SELECT 1", languageId: "sql" } });
  assert.equal(model.running, true);
  view.apply(model, { type: "progress", turnId: 7, event: { kind: "status", message: "Running the statement" } });
  view.apply(model, { type: "progress", turnId: 7, event: { kind: "tool_call", tool: "list_tables", callId: "a" } });
  view.apply(model, { type: "progress", turnId: 7, event: { kind: "tool_call", tool: "execute_sql", callId: "b", sql: "SELECT 1" } });
  view.apply(model, { type: "progress", turnId: 7, event: { kind: "tool_result", tool: "list_tables", callId: "a", summary: "3 tables" } });
  const st = { sql: "SELECT 1", status: "success", rowCount: 1, columns: ["1"], rows: [[1]] };
  view.apply(model, { type: "progress", turnId: 7, event: { kind: "tool_result", tool: "execute_sql", callId: "b", statement: st } });
  const turn = turns(model)[0];
  assert.equal(turn.status, "Running the statement");
  assert.deepEqual(turn.items.map((i: any) => [i.kind, i.summary]), [["tool", "3 tables"], ["sql", undefined]]);
  assert.deepEqual(turn.items[1].statement, st);
  view.apply(model, { type: "turnEnd", turnId: 7, result: { stopReason: "cancelled", answer: "", statements: [st], warnings: ["not saved"] } });
  assert.equal(turn.cancelled, true);
  assert.equal(turn.status, "", "the status line goes when the turn ends");
  assert.deepEqual(turn.warnings, ["not saved"]);
  assert.equal(turn.items.filter((i: any) => i.kind === "sql").length, 1, "the statement already shown is not added twice");
  assert.equal(model.running, false);

  view.apply(model, { type: "turnStart", turnId: 8, query: "again" });
  view.apply(model, { type: "turnError", turnId: 8, message: "aiq-rpc stopped" });
  assert.equal(turns(model)[1].error, "aiq-rpc stopped");
  assert.equal(model.running, false);
});

test("early rows: the first page shows at once, marked running, and the result with the same callId replaces it", () => {
  const sql = "SELECT * FROM big";
  const early = { sql, status: "running", rowCount: 1200, columns: ["n"], rows: [[1], [2]], truncated: true };
  const final = { sql, status: "success", rowCount: 1000000, columns: ["n"], rows: [[1], [2], [3]], truncated: true };
  const model = view.emptyModel();
  view.apply(model, { type: "turnStart", turnId: 1, query: "q" });
  view.apply(model, { type: "progress", turnId: 1, event: { kind: "tool_call", tool: "execute_sql", callId: "c1", sql } });
  const r = view.apply(model, { type: "progress", turnId: 1, event: { kind: "rows", tool: "execute_sql", callId: "c1", statement: early } });
  assert.equal(r.changed, 1, "the turn is drawn again");
  const item = turns(model)[0].items[0];
  assert.equal(item.statement.status, "running");
  assert.deepEqual(item.statement.rows, [[1], [2]]);
  assert.equal(view.chooseChart(item.statement), null, "no chart of rows still coming");
  // A later page replaces the first; the result replaces both.
  view.apply(model, { type: "progress", turnId: 1, event: { kind: "rows", tool: "execute_sql", callId: "c1", statement: { ...early, rowCount: 5000 } } });
  assert.equal(item.statement.rowCount, 5000);
  view.apply(model, { type: "progress", turnId: 1, event: { kind: "tool_result", tool: "execute_sql", callId: "c1", statement: final } });
  assert.deepEqual(item.statement, final);
  view.apply(model, { type: "progress", turnId: 1, event: { kind: "rows", tool: "execute_sql", callId: "c1", statement: early } });
  assert.deepEqual(item.statement, final, "rows that come late do not replace the result");
  assert.equal(turns(model)[0].items.length, 1);

  // Rows before (or without) their tool_call still show, as their own item.
  const other = view.emptyModel();
  view.apply(other, { type: "turnStart", turnId: 2, query: "q" });
  view.apply(other, { type: "progress", turnId: 2, event: { kind: "rows", callId: "c9", statement: { ...early, status: "success" } } });
  assert.equal(turns(other)[0].items[0].sql, sql);
  assert.equal(turns(other)[0].items[0].statement.status, "running", "an early page is running whatever it says");
  view.apply(other, { type: "progress", turnId: 2, event: { kind: "rows", statement: early } });
  assert.equal(turns(other)[0].items.length, 1, "rows without a callId cannot be replaced: dropped");
  // The turn failing first leaves no running mark behind.
  view.apply(other, { type: "turnError", turnId: 2, message: "The model stopped answering." });
  assert.equal(turns(other)[0].items[0].statement.status, "cancelled");
});

test("rows sent once: a result and a response with rowsSent keep the page the rows notification brought", () => {
  const sql = "SELECT * FROM big";
  const early = { sql, status: "running", rowCount: 501, columns: ["n"], rows: [[1], [2]], truncated: true, callId: "c1" };
  const final = { sql, status: "success", rowCount: 900, columns: ["n"], truncated: true, callId: "c1", rowsSent: true };
  const model = view.emptyModel();
  view.apply(model, { type: "turnStart", turnId: 1, query: "q" });
  view.apply(model, { type: "progress", turnId: 1, event: { kind: "tool_call", tool: "execute_sql", callId: "c1", sql } });
  view.apply(model, { type: "progress", turnId: 1, event: { kind: "rows", tool: "execute_sql", callId: "c1", statement: early } });
  view.apply(model, { type: "progress", turnId: 1, event: { kind: "tool_result", tool: "execute_sql", callId: "c1", statement: final } });
  const item = turns(model)[0].items[0];
  assert.equal(item.statement.status, "success");
  assert.equal(item.statement.rowCount, 900);
  assert.deepEqual(item.statement.rows, [[1], [2]]);
  view.apply(model, { type: "turnEnd", turnId: 1, result: { sessionId: "s1", stopReason: "end_turn", answer: "", statements: [final], savedTo: "", warnings: [] } });
  assert.deepEqual(turns(model)[0].items[0].statement.rows, [[1], [2]], "the response keeps the page");
  assert.equal(turns(model)[0].items[0].statement.rowsSent, undefined);
});

test("turnEnd adds the statements and the answer the events did not bring", () => {
  const model = view.emptyModel();
  view.apply(model, { type: "turnStart", turnId: 1, query: "q" });
  const st = { sql: "SELECT 2", status: "error", error: "no such table" };
  view.apply(model, { type: "turnEnd", turnId: 1, result: { stopReason: "end_turn", answer: "It failed.", statements: [st], warnings: [] } });
  const turn = turns(model)[0];
  assert.deepEqual(turn.items.map((i: any) => i.kind), ["sql", "text"]);
  assert.equal(turn.items[1].text, "It failed.");
});

test("history replaces the conversation, but keeps the panel's own richer turns of the same questions", () => {
  const rich = replay(fixture.messages);
  const history = questionsAndAnswers(
    ["Which product categories bring in the most revenue?", "Electronics."],
    ["How many orders a day lately?\n\n```sql\nSELECT 1\n```", "About 20."],
    ["And the orders per status?", "Delivered."],
  );
  view.apply(rich, { type: "history", turns: history });
  assert.equal(turns(rich).length, 3);
  assert.equal(turns(rich)[0].items[0].kind, "sql", "the table is kept");

  const other = replay(fixture.messages);
  view.apply(other, { type: "history", turns: history.slice(0, 2) });
  assert.equal(turns(other).length, 1);
  assert.deepEqual(turns(other)[0].items, [{ kind: "text", text: "Electronics." }]);
  assert.equal(turns(other)[0].done, true);

  view.apply(other, { type: "clear" });
  assert.deepEqual(other.entries, []);

  const live = view.emptyModel();
  view.apply(live, { type: "turnStart", turnId: 5, query: "still running" });
  view.apply(live, { type: "history", turns: history.slice(0, 2) });
  assert.deepEqual(turns(live).map((t: any) => t.query), [history[0].content, "still running"], "a running turn survives a history");
  view.apply(live, { type: "progress", turnId: 5, event: { kind: "text", text: "more" } });
  assert.equal(turns(live)[1].items[0].text, "more");
});

// chat/history's detail "full", as docs/protocol.md shows it, and as the AIQ CLI writes it.
const FULL = [
  { role: "system", content: "You are AIQ." },
  { role: "user", content: "How many orders are there?" },
  { role: "assistant", content: "", tool_calls: [{ id: "call_1", type: "function", function: { name: "execute_sql", arguments: '{"sql":"SELECT count(*) FROM orders"}' } }] },
  { role: "tool", tool_call_id: "call_1", content: '{"columns":["count"],"row_count":1,"rows":[[2000]],"status":"success","truncated":false}' },
  { role: "assistant", content: "There are 2,000 orders." },
  { role: "user", content: "Delete them" },
  { role: "assistant", content: "", tool_calls: [
    { id: "c2", type: "function", function: { name: "execute_sql", arguments: '{"sql":"DELETE FROM orders"}' } },
    { id: "c3", type: "function", function: { name: "list_tables", arguments: "{}" } },
  ] },
  { role: "tool", tool_call_id: "c2", content: '{"status":"rejected","error":"the user declined this statement"}' },
  { role: "tool", tool_call_id: "c3", content: '{"tables":["orders"]}' },
  { role: "assistant", content: "I did not delete them." },
  { role: "user", content: "count users please" },
  { role: "assistant", content: "", tool_calls: [{ id: "call_mock_1", type: "function", function: { name: "execute_sql", arguments: '{"sql": "SELECT COUNT(*) AS cnt FROM users", "risk_level": "low"}' } }] },
  { role: "tool", tool_call_id: "call_mock_1", content: '{"displayed":true,"instruction":"...","row_count":3,"status":"success"}' },
  { role: "assistant", content: "" },
];
const TEXT = questionsAndAnswers(
  ["How many orders are there?", "There are 2,000 orders."],
  ["Delete them", "I did not delete them."],
  ["count users please", "Query executed successfully. Returned 3 row(s) with columns: [cnt]. Sample data: [3]"],
);

test("a history with complete messages shows each turn's SQL and result, as live turns do", () => {
  const model = view.apply(view.emptyModel(), { type: "history", turns: TEXT, messages: FULL }).model;
  const [count, del, users] = turns(model);
  assert.equal(count.query, "How many orders are there?");
  assert.deepEqual(count.items.map((i: any) => i.kind), ["sql", "text"]);
  assert.deepEqual(count.items[0].statement, { sql: "SELECT count(*) FROM orders", status: "success", rowCount: 1, columns: ["count"], rows: [[2000]], restored: true, callId: "call_1" });
  assert.equal(count.items[1].text, "There are 2,000 orders.");
  assert.deepEqual(del.items.map((i: any) => i.kind), ["sql", "tool", "text"]);
  assert.equal(del.items[0].statement.status, "rejected");
  assert.equal(del.items[0].statement.error, "the user declined this statement");
  assert.equal(del.items[1].tool, "list_tables");
  // The AIQ CLI keeps a row count, not the rows: said so, and its summary text is not shown.
  assert.deepEqual(users.items.map((i: any) => i.kind), ["sql"]);
  assert.equal(users.items[0].statement, undefined);
  assert.equal(users.items[0].summary, "3 rows; the session file does not keep them.");
  assert.ok(turns(model).every((t: any) => t.done && t.id < 0));
  assert.equal(new Set(turns(model).map((t: any) => t.id)).size, 3, "ids are distinct");
});

test("a history's render_chart shows its chart, and its result no second, default one", () => {
  const chart = { chartType: "bar", x: "name", y: "price", title: "Prices", labels: ["tea", "mug"], values: [3.5, 9] };
  const messages = [
    { role: "user", content: "Chart the prices" },
    { role: "assistant", content: "", tool_calls: [{ id: "a", type: "function", function: { name: "execute_sql", arguments: '{"sql":"SELECT name, price FROM p"}' } }] },
    { role: "tool", tool_call_id: "a", content: '{"columns":["name","price"],"row_count":2,"rows":[["tea",3.5],["mug",9]],"status":"success","truncated":false}' },
    { role: "assistant", content: "", tool_calls: [{ id: "b", type: "function", function: { name: "render_chart", arguments: '{"chart_type":"bar","x":"name","y":"price"}' } }] },
    { role: "tool", tool_call_id: "b", content: JSON.stringify(chart) },
    { role: "assistant", content: "Here." },
  ];
  const [t] = view.historyTurns([], messages);
  assert.deepEqual(t.items.map((i: any) => i.kind), ["sql", "chart", "text"]);
  assert.deepEqual(t.items[1].chart, chart);
  assert.deepEqual(view.turnBlocks(t).map((b: any) => b.item?.kind ?? "auto"), ["sql", "chart", "text"]);
  const failed = view.historyTurns([], [messages[0], messages[3], { role: "tool", tool_call_id: "b", content: "render_chart: there is no column x" }]);
  assert.deepEqual(failed[0].items, [], "a chart that failed draws nothing");
});

test("a long history: the older turns are text, the last ones (the model's share) complete", () => {
  const older = [{ role: "user", content: "First?" }, { role: "assistant", content: "First answer." }];
  const all = view.historyTurns([...older, ...TEXT], FULL);
  assert.deepEqual(all.map((t: any) => t.query), ["First?", "How many orders are there?", "Delete them", "count users please"]);
  assert.deepEqual(all[0].items, [{ kind: "text", text: "First answer." }]);
  assert.equal(all[1].items[0].kind, "sql");
  // Questions that do not line up: the text list, which has them all, wins.
  const odd = view.historyTurns([{ role: "user", content: "Other" }, { role: "assistant", content: "x" }], FULL);
  assert.deepEqual(odd.map((t: any) => t.query), ["Other"]);
  // No text list: the complete messages alone.
  assert.equal(view.historyTurns([], FULL).length, 3);
  // Broken pieces are skipped, not thrown on.
  const broken = view.historyTurns([], [null, { role: "tool", tool_call_id: "x", content: "{" }, { role: "user", content: "q" },
    { role: "assistant", content: "", tool_calls: [{ id: "a", function: { name: "execute_sql", arguments: "not json" } }] },
    { role: "tool", tool_call_id: "a", content: "not json" }]);
  assert.deepEqual(broken.map((t: any) => t.items.map((i: any) => i.kind)), [["tool"]]);
});

test("statementNote: the server's sentence for the user; the model's wording gives way to ours", () => {
  const note = (status: string, error?: string) => view.statementNote({ sql: "x", status, error });
  assert.equal(note("rejected", "You declined this statement, so it did not run."), "You declined this statement, so it did not run.");
  const old = "not run: the user declined this statement. Do not retry it or the same change in another form; ask the user what they want instead";
  assert.equal(note("rejected", old), "You declined this statement, so it did not run.");
  assert.doesNotMatch(note("rejected", old), /not run:|retry/i);
  assert.equal(note("rejected", "not run: writes are turned off"), "This statement did not run.");
  assert.equal(note("cancelled"), "Cancelled; the statement did not finish.");
  assert.equal(note("cancelled", "cancelled: the statement was stopped before it finished"), "Cancelled; the statement did not finish.");
  assert.equal(
    note("cancelled", "took longer than the statement timeout (30s), so it was stopped"),
    "Cancelled: it took longer than the statement timeout (30s), so it was stopped.",
  );
  assert.equal(note("error", "no such table: x"), "The query failed: no such table: x");
});

test("the AIQ CLI's summary of a result is not drawn under the table, but is the answer of a turn without one", () => {
  const summary = "Query executed successfully. Returned 2 row(s) with columns: [id, name]. Sample data: [1, alice], [2, bob]";
  const model = view.emptyModel();
  view.apply(model, { type: "turnStart", turnId: 1, query: "SELECT id, name FROM users" });
  view.apply(model, { type: "progress", turnId: 1, event: { kind: "tool_call", callId: "c", tool: "execute_sql", sql: "SELECT id, name FROM users" } });
  view.apply(model, { type: "progress", turnId: 1, event: { kind: "tool_result", callId: "c", tool: "execute_sql", summary, statement: { sql: "SELECT id, name FROM users", status: "success", rowCount: 2, columns: ["id", "name"], rows: [[1, "alice"], [2, "bob"]] } } });
  view.apply(model, { type: "progress", turnId: 1, event: { kind: "text", text: summary } });
  view.apply(model, { type: "turnEnd", turnId: 1, result: { stopReason: "end_turn", answer: summary, statements: [], warnings: [] } });
  const blocks = view.turnBlocks(turns(model)[0]);
  assert.deepEqual(blocks.map((b: any) => b.item?.kind ?? "chart"), ["sql"], "the table alone: no summary, and no chart of ids");
  const textOnly = view.historyTurns([{ role: "user", content: "count users" }, { role: "assistant", content: summary }]);
  assert.deepEqual(view.turnBlocks(textOnly[0]).map((b: any) => b.item.text), [summary], "with no table it is all there is");
});

test("restart keeps the user's table sorts and nothing else; clear forgets them", () => {
  const model = replay(fixture.messages);
  model.sorts[view.sortKey(1, 0)] = { col: 1, dir: "desc" };
  const fresh = view.restart(model);
  assert.deepEqual(fresh, { ...view.emptyModel(), sorts: { "1:0": { col: 1, dir: "desc" } } });
  assert.deepEqual(view.restart(undefined), view.emptyModel());
  view.apply(fresh, { type: "clear" });
  assert.deepEqual(fresh.sorts, {});
});

// ---- Charts ----

const GROUPED = "SELECT k, count(*) FROM t GROUP BY k";
const st = (columns: string[], rows: unknown[][], extra = {}) => ({ sql: GROUPED, status: "success", rowCount: rows.length, columns, rows, ...extra });

test("chooseChart: bars, a line over ordered dates, a pie for a few positive parts, or none", () => {
  const cats = st(["category", "revenue"], "abcdefgh".split("").map((c, i) => [c, i + 1]));
  assert.equal(view.chooseChart(cats).chartType, "bar");
  assert.deepEqual(view.chooseChart(cats).values, [1, 2, 3, 4, 5, 6, 7, 8]);
  assert.equal(view.chooseChart(cats).title, "Revenue by category");

  const days = st(["day", "orders"], [["2026-10-01", 3], ["2026-10-02", 5], ["2026-10-03", 4]]);
  assert.equal(view.chooseChart(days).chartType, "line");
  const shuffled = st(["day", "orders"], [["2026-10-02", 3], ["2026-10-01", 5], ["2026-10-03", 4]]);
  assert.equal(view.chooseChart(shuffled).chartType, "pie", "dates out of order are parts, not a series");
  const times = st(["at", "n"], [["2026-10-01 10:00", 1], ["2026-10-01T11:00:00Z", 2]]);
  assert.equal(view.chooseChart(times).chartType, "line");

  const status = st(["status", "n"], [["delivered", 1728], ["shipped", 122], ["pending", 43]]);
  assert.equal(view.chooseChart(status).chartType, "pie");
  const withZero = st(["status", "n"], [["delivered", 1728], ["lost", 0]]);
  assert.equal(view.chooseChart(withZero).chartType, "bar");
  const decimalText = st(["k", "v"], [["a", "1.50"], ["b", "2"], ["c", null]]);
  assert.deepEqual(view.chooseChart(decimalText).values, [1.5, 2]);
  assert.equal(view.chooseChart(decimalText).skipped, 1);

  const xy = st(["price", "sold"], [[1, 10], [2, 8], [3, 9]]);
  assert.equal(view.chooseChart(xy), null, "two measures and no category: no automatic scatter");

  assert.equal(view.chooseChart(st(["name", "city"], [["a", "b"], ["c", "d"]])), null, "no numeric column");
  assert.equal(view.chooseChart(st(["n"], [[1], [2]])), null, "one column");
  assert.equal(view.chooseChart(st(["k", "v"], [["a", 1]])), null, "one row");
  assert.equal(view.chooseChart({ sql: "x", status: "error", error: "e" }), null);
  assert.equal(view.chooseChart(undefined), null);
});

test("chooseChart: only a category and a measure that make sense", () => {
  const users = { sql: "SELECT id, name FROM users" };
  assert.equal(view.chooseChart(st(["id", "name"], [[1, "alice"], [2, "bob"], [3, "carol"]], users)), null, "no Id by name");
  assert.equal(view.chooseChart(st(["name", "user_id"], [["a", 1], ["b", 2]])), null, "an id is no measure, grouped or not");
  assert.equal(view.chooseChart(st(["status", "customerId"], [["a", 7], ["b", 9]])), null);
  const prices = { sql: "SELECT name, price FROM products ORDER BY price" };
  assert.equal(view.chooseChart(st(["name", "price"], [["tea", 3.5], ["mug", 9], ["pot", 25]], prices)), null, "no per-row prices by name");
  assert.equal(view.chooseChart(st(["id", "price"], [[1, 3.5], [2, 9], [3, 25]], prices)), null, "no scatter of ids");
  // The measure is the first numeric column that is not a key.
  const grouped = view.chooseChart(st(["category", "category_id", "revenue"], [["a", 1, 10], ["b", 2, 20]]));
  assert.deepEqual([grouped.x, grouped.y], ["category", "revenue"]);
  // A text key is no category.
  assert.equal(view.chooseChart(st(["sku", "n"], [["X1", 3], ["X2", 4]])), null);
  // Averages and prices are no parts of a whole: bars, not a pie.
  assert.equal(view.chooseChart(st(["status", "avg_total"], [["a", 3], ["b", 4]])).chartType, "bar");
  assert.equal(view.chooseChart(st(["status", "orders"], [["a", 3], ["b", 9]])).chartType, "pie");
  assert.equal(view.chooseChart(st(["status", "orders"], [["a", 3], ["b", 4]])).chartType, "bar", "near-equal shares");
  // Groups of two columns repeat their labels; too many groups are not readable.
  assert.equal(view.chooseChart(st(["status", "n"], [["a", 3], ["a", 4], ["b", 1]])), null);
  assert.equal(view.chooseChart(st(["k", "n"], Array.from({ length: 41 }, (_, i) => [`k${i}`, i + 1]))), null);
  // A series over dates needs no GROUP BY.
  assert.equal(view.chooseChart(st(["day", "revenue"], [["2026-10-01", 3], ["2026-10-02", 5]], { sql: "SELECT day, revenue FROM daily" })).chartType, "line");
});

test("chooseChart refuses every shape but one category and one measure over at least two groups", () => {
  const refused: [string, any][] = [
    ["ids by name", st(["id", "name"], [[1, "alice"], [2, "bob"]], { sql: "SELECT id, name FROM users" })],
    ["an id as the measure", st(["name", "customer_id"], [["a", 1], ["b", 2]])],
    ["a key as the measure", st(["status", "key"], [["a", 1], ["b", 2]])],
    ["a code as the category", st(["zip", "n"], [["10115", 1], ["80331", 2]].map(([z, n]) => [`Z${z}`, n]))],
    ["timestamps against name lengths", st(["created_at", "name_length"], [["2026-10-01 10:00:00", 5], ["2026-10-01 11:30:00", 3], ["2026-10-02 09:00:00", 7]],
      { sql: "SELECT created_at, length(name) AS name_length FROM customers ORDER BY created_at" })],
    ["a single row", st(["status", "orders"], [["delivered", 1728]])],
    ["no row", st(["status", "orders"], [])],
    ["two measures (a scatter)", st(["price", "sold"], [[1, 10], [2, 8], [3, 9]])],
    ["a category and two measures", st(["category", "revenue", "orders"], [["a", 10, 1], ["b", 20, 2]])],
    ["two categories and a measure", st(["city", "status", "n"], [["Berlin", "a", 1], ["Lyon", "b", 2]])],
    ["a category and nothing to measure", st(["name", "city"], [["a", "b"], ["c", "d"]])],
    ["a measure and a year", st(["year", "revenue"], [[2024, 10], [2025, 20]])],
    ["a day that repeats", st(["day", "n"], [["2026-10-01", 1], ["2026-10-01", 2]], { sql: "SELECT day, n FROM t" })],
    ["per-row values by name", st(["name", "price"], [["tea", 3.5], ["mug", 9]], { sql: "SELECT name, price FROM products" })],
  ];
  for (const [why, shape] of refused) assert.equal(view.chooseChart(shape), null, why);

  const accepted: [string, any, string][] = [
    ["a count per status", st(["status", "orders"], [["delivered", 1728], ["shipped", 122]]), "pie"],
    ["revenue per category, ten of them", st(["category", "revenue"], "abcdefghij".split("").map((c, i) => [c, i + 1])), "bar"],
    ["a category beside its id", st(["category_id", "category", "revenue"], [[1, "a", 10], [2, "b", 20]]), "pie"],
    ["orders per day, not grouped (a daily table)", st(["day", "orders"], [["2026-10-01", 3], ["2026-10-02", 5]], { sql: "SELECT day, orders FROM daily" }), "line"],
    ["orders per hour, grouped", st(["hour", "orders"], [["2026-10-01 10:00", 3], ["2026-10-01 11:00", 5]]), "line"],
  ];
  for (const [why, shape, type] of accepted) assert.equal(view.chooseChart(shape)?.chartType, type, why);
});

test("turnBlocks: at most one default chart per result, none beside the model's chart, none for a replayed session", () => {
  const model = view.emptyModel();
  const result = st(["status", "orders"], [["delivered", 1728], ["shipped", 122]]);
  view.apply(model, { type: "turnStart", turnId: 1, query: "Orders per status, twice" });
  for (const callId of ["a", "b"]) {
    view.apply(model, { type: "progress", turnId: 1, event: { kind: "tool_call", tool: "execute_sql", callId, sql: result.sql } });
    view.apply(model, { type: "progress", turnId: 1, event: { kind: "tool_result", tool: "execute_sql", callId, statement: result } });
  }
  view.apply(model, { type: "progress", turnId: 1, event: { kind: "chart", callId: "c", chart: { chartType: "bar", x: "status", y: "orders", labels: ["delivered", "shipped"], values: [1728, 122] } } });
  const [t] = turns(model);
  const kinds = view.turnBlocks(t).map((b: any) => (b.autoChart ? "auto" : b.item.kind));
  assert.deepEqual(kinds, ["sql", "auto", "sql", "chart"], "one default chart for the first result; the model charted the second");
  assert.equal(view.turnBlocks({ ...t, id: -1 }).filter((b: any) => b.autoChart).length, 0, "a replayed session draws no charts of its own");
});

test("turnBlocks: a result gets its default chart unless a chart event draws it", () => {
  const [t1, t2, t3] = turns(replay(fixture.messages));
  assert.equal(view.turnBlocks(t1).filter((b: any) => b.autoChart).length, 0);
  const auto2 = view.turnBlocks(t2).filter((b: any) => b.autoChart);
  assert.deepEqual(auto2.map((b: any) => b.autoChart.chartType), ["line"]);
  const auto3 = view.turnBlocks(t3).filter((b: any) => b.autoChart);
  assert.deepEqual(auto3.map((b: any) => [b.autoChart.chartType, b.autoChart.labels.length]), [["pie", 5]]);
  // The same turn replayed from a session (history turns have ids below 0): its table, no chart.
  const replayed = { ...t3, id: -3 };
  assert.equal(view.turnBlocks(replayed).filter((b: any) => b.autoChart).length, 0, "no charts when a session is replayed");
  assert.ok(view.turnBlocks(replayed).some((b: any) => b.item?.kind === "sql" && b.item.statement), "the result is still shown");
});

test("chartPlan: a pie only for a few parts whose shares differ, bars otherwise", () => {
  const pie = (values: number[]) => view.chartPlan({ chartType: "pie", x: "s", y: "n", labels: values.map((_, i) => `s${i}`), values }).kind;
  assert.equal(pie([1204, 402, 251, 143]), "pie");
  assert.equal(pie([21, 20, 20, 19, 20]), "bar", "five nearly equal shares");
  assert.equal(pie([5, 4, 3, 2, 1, 1, 1]), "bar", "seven slices");
  assert.equal(pie([3, 0, 1]), "bar", "a zero share");
  assert.equal(pie([3]), "bar", "one slice");
});

test("chartPlan: dates in order get a time axis, other labels a category axis", () => {
  const days = Array.from({ length: 60 }, (_, i) => new Date(Date.UTC(2026, 8, 1 + i)).toISOString().slice(0, 10));
  const line = view.chartPlan({ chartType: "line", x: "day", y: "n", labels: days, values: days.map((_, i) => i) });
  assert.equal(line.kind, "line");
  assert.equal(line.time, "day");
  assert.equal(line.times.length, 60);
  assert.equal(new Date(line.times[0]).getDate(), 1, "a day at local midnight");
  assert.ok(line.times.every((t: number, i: number) => i === 0 || t > line.times[i - 1]));
  const instants = view.chartPlan({ chartType: "line", x: "t", y: "n", labels: ["2026-10-01 10:00", "2026-10-01T11:30:00Z"], values: [1, 2] });
  assert.equal(instants.time, "instant");
  const months = view.chartPlan({ chartType: "bar", x: "m", y: "n", labels: ["2026-01", "2026-02"], values: [1, 2] });
  assert.equal(months.kind, "bar");
  assert.equal(months.time, "day");
  const shuffled = view.chartPlan({ chartType: "bar", x: "d", y: "n", labels: ["2026-02-01", "2026-01-01"], values: [1, 2] });
  assert.equal(shuffled.time, undefined, "dates out of order stay categories");
  const cats = view.chartPlan({ chartType: "bar", x: "k", y: "n", labels: ["a", "b"], values: [1, 2] });
  assert.equal(cats.time, undefined);
  const sc = view.chartPlan({ chartType: "scatter", x: "a", y: "b", points: [{ x: 1, y: 2 }, { x: Number.NaN, y: 1 }] });
  assert.deepEqual([sc.kind, sc.points.length], ["scatter", 1]);
});
test("formatNumber: digits grouped as the locale groups them, every decimal kept", () => {
  const { group: G, decimal: D } = view.SEPARATORS;
  assert.equal(view.formatNumber(1234567), `1${G}234${G}567`);
  assert.equal(view.formatNumber("1234.50"), `1${G}234${D}50`, "a DECIMAL keeps its trailing zero");
  assert.equal(view.formatNumber(-9876.125), `-9${G}876${D}125`);
  assert.equal(view.formatNumber("0.000123"), `0${D}000123`);
  assert.equal(view.formatNumber(999), "999");
  assert.equal(view.formatNumber("12345678901234567890.12"), `12${G}345${G}678${G}901${G}234${G}567${G}890${D}12`, "beyond a double: as it came");
  assert.equal(view.formatNumber(1e21), "1e+21");
  assert.equal(view.formatNumber(null), "NULL");
  assert.equal(view.formatNumber("abc"), "abc");
  assert.ok(view.isKeyColumn("order_id") && view.isKeyColumn("id") && view.isKeyColumn("year") && !view.isKeyColumn("total"));
});

// ---- Tables ----

test("sortRows: numbers numerically, NULLs last both ways, stable, text by locale", () => {
  const rows = [["b", 10], ["a", 9], ["c", null], ["d", 10], ["e", "2.5"]];
  assert.deepEqual(view.sortRows(rows, 1, "asc").map((r: unknown[]) => r[0]), ["e", "a", "b", "d", "c"]);
  assert.deepEqual(view.sortRows(rows, 1, "desc").map((r: unknown[]) => r[0]), ["b", "d", "a", "e", "c"]);
  assert.deepEqual(view.sortRows([["b"], [null], ["Á"], ["a"]], 0, "asc").map((r: unknown[]) => r[0]), ["a", "Á", "b", null]);
  assert.deepEqual(rows[0], ["b", 10], "the input is left as it was");
  assert.deepEqual(view.nextSort(undefined, 1), { col: 1, dir: "asc" });
  assert.deepEqual(view.nextSort({ col: 1, dir: "asc" }, 1), { col: 1, dir: "desc" });
  assert.deepEqual(view.nextSort({ col: 1, dir: "desc" }, 1), { col: 1, dir: "asc" });
  assert.deepEqual(view.nextSort({ col: 1, dir: "desc" }, 0), { col: 0, dir: "asc" });
});

test("formatCell and isNumericColumn", () => {
  assert.equal(view.formatCell(null), "NULL");
  assert.equal(view.formatCell("<b>"), "<b>");
  assert.equal(view.formatCell(1.5), "1.5");
  assert.equal(view.formatCell({ a: 1 }), '{"a":1}');
  assert.equal(view.isNumericColumn([[1], [null], ["2"]], 0), true);
  assert.equal(view.isNumericColumn([[1], ["x"]], 0), false);
  assert.equal(view.isNumericColumn([[null]], 0), false);
});

test("columnTypes: numeric columns align right, text of digits does not, dates and timestamps make a time axis", () => {
  // A numeric(10,2) comes as a string that keeps its scale; its type says it is a number.
  assert.equal(view.isNumericColumn([["31.70"], ["NaN"], [null]], 0, "numeric"), true);
  assert.equal(view.isNumericColumn([["31.70"]], 0, "numeric(10,2)"), true);
  assert.equal(view.isNumericColumn([["01234"]], 0, "text"), false, "a text of digits is text");
  assert.equal(view.isNumericColumn([["2024-01-02"]], 0, "date"), false);
  assert.equal(view.isNumericColumn([[1]], 0, ""), true, "no type: the values decide");
  assert.equal(view.typeKind("timestamptz"), "time");
  assert.equal(view.typeKind("DATETIME"), "time");
  assert.equal(view.typeKind("unsigned bigint"), "number");
  assert.equal(view.typeKind("int4"), "number");
  assert.equal(view.typeKind(undefined), "");
  assert.equal(view.formatNumber("1234.50"), `1${view.SEPARATORS.group}234${view.SEPARATORS.decimal}50`, "the scale is kept");

  const days = {
    sql: "SELECT day, sum(amount) AS total FROM sales GROUP BY day", status: "success",
    columns: ["day", "total"], columnTypes: ["date", "numeric"],
    rows: [["2024-01-01", "10.50"], ["2024-01-02", "12.00"], ["2024-01-03", "9.25"]],
  };
  const chart = view.chooseChart(days);
  assert.equal(chart.chartType, "line");
  assert.deepEqual(chart.values, [10.5, 12, 9.25]);
  const plan = view.chartPlan(chart);
  assert.equal(plan.time, "day");
  assert.equal(plan.times.length, 3);

  // PostgreSQL's timestamptz text: 2024-01-02 03:00:00+00, offsets of an hour or with minutes.
  const instants = {
    sql: "SELECT date_trunc('hour', at) AS hour, count(*) AS n FROM hits GROUP BY 1 ORDER BY 1", status: "success",
    columns: ["hour", "n"], columnTypes: ["timestamptz", "int8"],
    rows: [["2024-01-02 03:00:00+00", 4], ["2024-01-02 05:00:00+01", 6], ["2024-01-02 10:30:00+05:30", 2]],
  };
  const line = view.chooseChart(instants);
  assert.equal(line.chartType, "line");
  assert.deepEqual(view.chartPlan(line).times, [Date.UTC(2024, 0, 2, 3), Date.UTC(2024, 0, 2, 4), Date.UTC(2024, 0, 2, 5)]);
  assert.equal(view.chartPlan(line).time, "instant");
});

// ---- SQL and text ----

test("tokenizeSQL gives the SQL back, with keywords, strings, numbers, comments and identifiers", () => {
  const sql = "SELECT \"Name\", count(*) AS n -- per name\nFROM t WHERE note = 'it''s -- no comment' AND x > 1.5e3 /* a\nb */ LIMIT 10";
  const tokens = view.tokenizeSQL(sql);
  assert.equal(tokens.map((t: any) => t.text).join(""), sql);
  const of = (type: string) => tokens.filter((t: any) => t.type === type).map((t: any) => t.text);
  assert.deepEqual(of("keyword"), ["SELECT", "AS", "FROM", "WHERE", "AND", "LIMIT"]);
  assert.deepEqual(of("string"), ["'it''s -- no comment'"]);
  assert.deepEqual(of("number"), ["1.5e3", "10"]);
  assert.deepEqual(of("comment"), ["-- per name", "/* a\nb */"]);
  assert.deepEqual(of("ident"), ['"Name"', "count", "n", "t", "note", "x"]);
  const open = "SELECT 'unclosed";
  assert.equal(view.tokenizeSQL(open).map((t: any) => t.text).join(""), open);
});

test("parseMarkdown: paragraphs, inline code, fenced blocks, bullet lists; nothing else", () => {
  const blocks = view.parseMarkdown("First `a` line\nsecond line\n\n- one `x`\n- two\n\n```sql\nSELECT 1;\n```\n<img src=x> **not bold**");
  assert.deepEqual(blocks, [
    { type: "para", inlines: [{ code: false, text: "First " }, { code: true, text: "a" }, { code: false, text: " line\nsecond line" }] },
    { type: "list", items: [[{ code: false, text: "one " }, { code: true, text: "x" }], [{ code: false, text: "two" }]] },
    { type: "code", lang: "sql", text: "SELECT 1;" },
    { type: "para", inlines: [{ code: false, text: "<img src=x> **not bold**" }] },
  ]);
  assert.deepEqual(view.parseMarkdown("Look:\n```\nSELECT"), [
    { type: "para", inlines: [{ code: false, text: "Look:" }] },
    { type: "code", lang: "", text: "SELECT" },
  ], "a fence still streaming runs to the end");
  assert.deepEqual(view.parseMarkdown(""), []);
});

test("settledEnd: after the last blank line outside a fence, never inside one", () => {
  assert.equal(view.settledEnd("One.\n\nTwo is still"), "One.\n\n".length);
  assert.equal(view.settledEnd("One.\nTwo."), 0, "no blank line: nothing is finished");
  assert.equal(view.settledEnd("```sql\nSELECT 1\n\nFROM t"), 0, "a blank line in an open fence finishes nothing");
  const closed = "```sql\nSELECT 1\n\n```\n\nNext";
  assert.equal(view.settledEnd(closed), closed.length - "Next".length);
  assert.equal(view.settledEnd("a\r\n\r\nb"), "a\r\n\r\n".length, "CRLF line ends count");
  assert.equal(view.settledEnd("a\r\n\r"), 0, "a CR last may be half of a CRLF");
  assert.equal(view.settledEnd("a\n\nb\n\nc", 3), "a\n\nb\n\n".length, "it searches on from a given place");
});

test("parsing a streamed answer from settledEnd on gives the blocks parseMarkdown gives the whole text", () => {
  const bits = ["word", "`code`", " ", "\n", "\n\n", "\r\n", "\r", "- ", "* item", "  more", "```", "```sql", "~~~~", "SELECT 1;", "\n```\n"];
  let seed = 7;
  const rnd = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
  for (let run = 0; run < 3000; run++) {
    let text = "";
    for (let i = 1 + Math.floor(rnd() * 30); i > 0; i--) text += bits[Math.floor(rnd() * bits.length)];
    let cut = 0;
    const finished: unknown[] = [];
    for (let at = 0; at < text.length; ) {
      at = Math.min(text.length, at + 1 + Math.floor(rnd() * 6));
      const sofar = text.slice(0, at);
      const next = view.settledEnd(sofar, cut);
      assert.ok(next >= cut, "the finished part never shrinks");
      finished.push(...view.parseMarkdown(sofar.slice(cut, next)));
      cut = next;
      assert.deepEqual([...finished, ...view.parseMarkdown(sofar.slice(cut))], view.parseMarkdown(sofar), `streamed ${JSON.stringify(sofar)}`);
    }
  }
});

// ---- The HTML document ----

test("chatHtml: a strict CSP, the nonce on every script, no remote resource", () => {
  const nonce = newNonce();
  const src = "vscode-webview://abc123";
  const html = chatHtml({ cspSource: src, nonce, scriptUris: [`${src}/media/view.js`, `${src}/media/chat.js`], styleUri: `${src}/media/chat.css` });
  const meta = /<meta http-equiv="Content-Security-Policy" content="([^"]*)">/.exec(html);
  assert.ok(meta, "the CSP meta is there");
  const csp = meta[1].replace(/&#39;/g, "'");
  assert.equal(csp, `default-src 'none'; style-src ${src}; script-src 'nonce-${nonce}'; img-src ${src} data:;`);
  assert.equal(csp, chatCsp(src, nonce));
  assert.doesNotMatch(html, /unsafe-inline|unsafe-eval/);
  const scripts = html.match(/<script\b[^>]*>/g) || [];
  assert.equal(scripts.length, 2);
  for (const s of scripts) assert.match(s, new RegExp(`^<script nonce="${nonce}" src="[^"]+">$`));
  assert.ok(html.indexOf("view.js") < html.indexOf("chat.js"), "view.js runs first");
  assert.doesNotMatch(html, /https?:/i);
  assert.doesNotMatch(html, /\sstyle=/, "no inline style attribute");
  assert.doesNotMatch(html, /<style/, "no inline style element");
});

test("chatHtml takes the several sources a real VS Code gives as webview.cspSource", () => {
  // VS Code 1.100 (code-server 4.100) gives exactly this; the panel failed to load on it.
  const src = "'self' https://*.vscode-cdn.net";
  const nonce = newNonce();
  const html = chatHtml({ cspSource: src, nonce, scriptUris: ["a.js"], styleUri: "s.css" });
  assert.match(html.replace(/&#39;/g, "'"), /style-src 'self' https:\/\/\*\.vscode-cdn\.net;/);
  assert.ok(isSourceList(src));
});

test("chatHtml escapes what it inserts and refuses a nonce or source that would widen the policy", () => {
  const html = chatHtml({ cspSource: "vscode-webview://a", nonce: "A".repeat(22), scriptUris: ['x"><img src=y onerror=alert(1)>'], styleUri: "s&t" });
  assert.doesNotMatch(html, /<img/);
  assert.match(html, /src="x&quot;&gt;&lt;img src=y onerror=alert\(1\)&gt;"/);
  assert.match(html, /href="s&amp;t"/);
  assert.match(html, /<html lang="en">/, "English when the editor's locale is not given");
  const de = chatHtml({ cspSource: "vscode-webview://a", nonce: "A".repeat(22), scriptUris: [], styleUri: "s", locale: 'de"><script>' });
  assert.match(de, /<html lang="de&quot;&gt;&lt;script&gt;">/, "the editor's locale, escaped");
  assert.throws(() => chatHtml({ cspSource: "x", nonce: "abc' 'unsafe-inline", scriptUris: [], styleUri: "s" }), /nonce/);
  assert.throws(() => chatHtml({ cspSource: "x; script-src *", nonce: newNonce(), scriptUris: [], styleUri: "s" }), /cspSource/);
  assert.throws(() => chatHtml({ cspSource: "'self' 'unsafe-inline'", nonce: newNonce(), scriptUris: [], styleUri: "s" }), /cspSource/);
  assert.throws(() => chatHtml({ cspSource: "*", nonce: newNonce(), scriptUris: [], styleUri: "s" }), /cspSource/);
  assert.throws(() => chatHtml({ cspSource: " ", nonce: newNonce(), scriptUris: [], styleUri: "s" }), /cspSource/);
  assert.notEqual(newNonce(), newNonce());
});

test("view.js, charts.js and chat.js hold to their JSDoc types", () => {
  const tsc = path.join(root, "node_modules", "typescript", "bin", "tsc");
  const args = [tsc, "--noEmit", "--allowJs", "--checkJs", "--strict", "--lib", "ES2022,DOM,DOM.Iterable", "--target", "ES2022",
    "--module", "commonjs", "--types", "node", path.join(root, "media", "view.js"), path.join(root, "media", "charts.js"), path.join(root, "media", "chat.js")];
  // Minutes, not seconds: tsc takes most of a minute on a loaded machine.
  const r = spawnSync(process.execPath, args, { encoding: "utf8", timeout: 10 * 60_000 });
  assert.equal(r.status, 0, `tsc --checkJs found problems:\n${r.stdout}${r.stderr}`);
});

test("the webview scripts never parse text as HTML", () => {
  for (const file of ["chat.js", "view.js", "charts.js"]) {
    const code = fs.readFileSync(path.join(root, "media", file), "utf8");
    for (const bad of ["innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "DOMParser", "createContextualFragment", "setAttribute(\"style\"", "eval("]) {
      assert.ok(!code.includes(bad), `${file} uses ${bad}`);
    }
  }
});

test("the bundled Chart.js runs under the panel's CSP: no eval, no new Function, no remote load", () => {
  for (const file of ["chart.umd.js", "chartjs-adapter-date-fns.bundle.min.js"]) {
    const code = fs.readFileSync(path.join(root, "media", "vendor", file), "utf8");
    for (const bad of [/\beval\(/, /new Function\(/, /https?:\/\/[^\s"'`]*\.js\b/]) {
      assert.ok(!bad.test(code), `${file} matches ${bad}`);
    }
  }
});

test("reasoning is a thought item apart from the answer, and a cut-off answer keeps its warning", () => {
  let model = view.apply(view.emptyModel(), { type: "turnStart", turnId: 9, query: "q" }).model;
  for (const ev of [
    { kind: "thought", text: "Counting " },
    { kind: "thought", text: "the rows." },
    { kind: "text", text: "The first part" },
  ]) {
    model = view.apply(model, { type: "progress", turnId: 9, event: ev }).model;
  }
  const warning = "The model stopped at its output limit; the answer is cut short.";
  model = view.apply(model, { type: "turnEnd", turnId: 9, result: { stopReason: "max_tokens", answer: "The first part", statements: [], warnings: [warning] } }).model;
  const [t] = turns(model);
  assert.deepEqual(t.items, [{ kind: "thought", text: "Counting the rows." }, { kind: "text", text: "The first part" }]);
  assert.deepEqual(t.warnings, [warning]);
  assert.ok(t.done && !t.cancelled);
});

test("a write waiting for its answer shows once, in its dialog; the spinner waits for the user; a declined one has nothing to run again", () => {
  const model = view.emptyModel();
  view.apply(model, { type: "turnStart", turnId: 1, query: "" });
  view.apply(model, { type: "progress", turnId: 1, event: { kind: "tool_call", tool: "execute_sql", callId: "c1", sql: PROMPT.sql } });
  const [t] = turns(model);
  assert.equal(view.turnStatus(t), "Thinking");
  view.apply(model, { type: "confirm", turnId: 1, id: 1, prompt: PROMPT });
  assert.deepEqual(view.turnBlocks(t).map((b: any) => b.item.kind), ["confirm"], "the statement is not shown a second time");
  assert.equal(view.turnStatus(t), "Waiting for your answer");
  view.apply(model, { type: "confirmEnd", turnId: 1, id: 1, decision: "reject" });
  assert.equal(view.turnStatus(t), "Thinking");
  view.apply(model, {
    type: "progress", turnId: 1,
    event: { kind: "tool_result", callId: "c1", statement: { sql: PROMPT.sql, status: "rejected", error: "You declined this statement." } },
  });
  const [block] = view.turnBlocks(t);
  assert.equal(block.item.kind, "sql", "the declined statement says what became of it");
  assert.equal(view.statementRan(block.item.statement), false, "no Run again for a write that never ran");
  assert.equal(view.statementRan({ sql: "x", status: "success", rowCount: 1 }), true);
  assert.equal(view.statementRan({ sql: "x", status: "error", error: "no such table" }), true);
  assert.equal(view.statementRan(undefined), false);
});

test("a restored result with fewer rows than it had is marked restored, for the panel to say how many were kept", () => {
  const messages = [
    { role: "user", content: "Every order?" },
    { role: "assistant", content: "", tool_calls: [{ id: "c1", function: { name: "execute_sql", arguments: JSON.stringify({ sql: "SELECT id FROM orders" }) } }] },
    { role: "tool", tool_call_id: "c1", content: JSON.stringify({ status: "success", row_count: 500, columns: ["id"], rows: [[1], [2]], truncated: true }) },
  ];
  const [t] = view.historyTurns([{ role: "user", content: "Every order?" }], messages);
  const st = t.items[0].statement;
  assert.equal(st.restored, true);
  assert.equal(st.rowCount, 500);
  assert.equal(st.rows.length, 2);
});

test("a restored result the user saw comes back from seen: the rows the panel was sent, real values of masked columns, and the count", () => {
  const messages = [
    { role: "user", content: "Who are the customers?" },
    { role: "assistant", content: "", tool_calls: [{ id: "c1", function: { name: "execute_sql", arguments: JSON.stringify({ sql: "SELECT id, email FROM customers" }) } }] },
    // The session file, as the model read it: tokens, and fewer rows than were shown.
    { role: "tool", tool_call_id: "c1", content: JSON.stringify({ status: "success", row_count: 500, columns: ["id", "email"], rows: [[1, "<masked:email:3f2a91c04d00>"]], truncated: true }) },
  ];
  const rows = Array.from({ length: 500 }, (_, i) => [i + 1, `user${i + 1}@example.com`]);
  const seen = { c1: { columns: ["id", "email"], rows, rowCount: 500, rowsKept: true } };
  const [t] = view.historyTurns([{ role: "user", content: "Who are the customers?" }], messages, seen);
  const st = t.items[0].statement;
  assert.equal(st.restored, undefined, "shown as it was, not as kept");
  assert.equal(st.rowCount, 500);
  assert.equal(st.rows.length, 500);
  assert.deepEqual(st.rows[0], [1, "user1@example.com"], "real values, not tokens");
  assert.equal(st.callId, "c1");
  // Through the history message, as the controller posts it.
  const model = view.apply(view.emptyModel(), { type: "history", turns: [{ role: "user", content: "Who are the customers?" }], messages, seen }).model;
  assert.equal(turns(model)[0].items[0].statement.rows[1][1], "user2@example.com");

  // Rows dropped from seen to keep its file small: the session file's rows with seen's count, said to be kept.
  const dropped = { c1: { columns: ["id", "email"], rowCount: 500, rowsKept: false } };
  const [d] = view.historyTurns([{ role: "user", content: "Who are the customers?" }], messages, dropped);
  assert.equal(d.items[0].statement.restored, true);
  assert.equal(d.items[0].statement.rowCount, 500);
  assert.deepEqual(d.items[0].statement.rows, [[1, "<masked:email:3f2a91c04d00>"]]);
  // A session from the CLI has no seen: as before.
  const [cli] = view.historyTurns([{ role: "user", content: "Who are the customers?" }], messages);
  assert.equal(cli.items[0].statement.restored, true);
  assert.equal(cli.items[0].statement.rows.length, 1);
});

test("the panel's saved state holds no result rows nor masked values; the rows come back with the replay or chat/history's seen", () => {
  const real = "ann@example.com";
  const sql = "SELECT id, email FROM customers";
  const statement = { sql, status: "success", rowCount: 2, columns: ["id", "email"], columnTypes: ["int4", "text"], rows: [[1, real], [2, "bob@example.com"]], callId: "c1" };
  const live = [
    { type: "turnStart", turnId: 1, query: "Who are the customers?" },
    { type: "progress", turnId: 1, event: { kind: "tool_call", tool: "execute_sql", callId: "c1", sql } },
    { type: "progress", turnId: 1, event: { kind: "tool_result", callId: "c1", summary: "2 rows", statement } },
    { type: "progress", turnId: 1, event: { kind: "text", text: "Two customers." } },
    { type: "confirm", turnId: 1, id: 7, prompt: { message: "Run this write?", sql: "DELETE FROM customers WHERE email = '<masked:email:3f2a91c04d7e>'", masked: [`<masked:email:3f2a91c04d7e> is ${real}`], note: "", buttons: [{ label: "Reject", decision: "reject" }] } },
    { type: "turnEnd", turnId: 1, result: { stopReason: "end_turn", answer: "Two customers.", statements: [statement] } },
  ];
  const model = replay(live);
  model.sorts["1:0"] = { col: 1, dir: "desc" };

  // What chat.js gives setState: V.savedModel of the model, and nothing else of it.
  const chat = fs.readFileSync(path.join(root, "media", "chat.js"), "utf8");
  assert.deepEqual(chat.match(/vscode\.setState\([^)]*\)/g), ["vscode.setState({ model: V.savedModel(model)"], "chat.js saves the model only through savedModel");
  const saved = JSON.parse(JSON.stringify({ model: view.savedModel(model), draft: "" }));
  const text = JSON.stringify(saved);
  assert.ok(!text.includes(real) && !text.includes("bob@example.com"), "no row value in the saved state");
  // What redraws the panel at once is kept.
  const st = turns(saved.model)[0].items[0].statement;
  assert.equal(st.rows, undefined);
  assert.equal(st.rowsNotSaved, true);
  assert.deepEqual([st.sql, st.status, st.rowCount, st.columns, st.columnTypes, st.callId], [sql, "success", 2, ["id", "email"], ["int4", "text"], "c1"]);
  assert.equal(turns(saved.model)[0].items[0].callId, "c1");
  assert.ok(text.includes("Two customers.") && text.includes("Who are the customers?"));
  assert.deepEqual(saved.model.sorts, { "1:0": { col: 1, dir: "desc" } });
  // The model the panel draws from is left as it is.
  assert.equal(turns(model)[0].items[0].statement.rows[0][1], real);
  assert.equal(turns(model)[0].items.find((it: any) => it.kind === "confirm").prompt.masked.length, 1);

  // A view shown again: chat.js starts anew from the saved model at the first message, and the extension replays the conversation.
  let shown = view.restart(saved.model);
  for (const m of [{ type: "state", source: "shop", running: false }, ...live]) shown = view.apply(shown, m).model;
  assert.equal(turns(shown)[0].items[0].statement.rows[0][1], real, "the replay brings the rows back");
  assert.deepEqual(shown.sorts, { "1:0": { col: 1, dir: "desc" } }, "and the sort stays");

  // After a reload: the controller's history message, whose seen holds what the user saw.
  const messages = [
    { role: "user", content: "Who are the customers?" },
    { role: "assistant", content: "", tool_calls: [{ id: "c1", function: { name: "execute_sql", arguments: JSON.stringify({ sql }) } }] },
    { role: "tool", tool_call_id: "c1", content: JSON.stringify({ status: "success", row_count: 2, columns: ["id", "email"], rows: [[1, "<masked:email:3f2a91c04d7e>"], [2, "<masked:email:0b9c2d4e6f81>"]] }) },
    { role: "assistant", content: "Two customers." },
  ];
  const seen = { c1: { columns: ["id", "email"], columnTypes: ["int4", "text"], rows: statement.rows, rowCount: 2, rowsKept: true } };
  let reloaded = view.restart(saved.model);
  for (const m of [
    { type: "state", source: "shop", running: false },
    { type: "history", turns: questionsAndAnswers(["Who are the customers?", "Two customers."]), messages, seen },
  ]) reloaded = view.apply(reloaded, m).model;
  const back = turns(reloaded)[0].items[0].statement;
  assert.deepEqual(back.rows, statement.rows, "the rows the user saw, real values and all");
  assert.equal(back.rowsNotSaved, undefined);
  assert.equal(back.callId, "c1");
});
