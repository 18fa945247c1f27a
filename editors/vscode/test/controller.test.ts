// src/controller.ts (everything the extension does but the VS Code calls)
// against the real aiq-rpc: turns to the view, one popup per failed start,
// crashes, restarts and the conversation carried across them.

import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { afterEach, before, describe, it } from "node:test";
import { CancellationTokenSource } from "../src/client";
import { Controller } from "../src/controller";
import { ReportedError, UserError } from "../src/errors";
import { RestartPolicy } from "../src/restartPolicy";
import { INSTALL_COMMAND } from "../src/serverExit";
import { normalizeSettings } from "../src/settings";
import { aiqRpcBinary, childEnv, makeHome, tempDir, WAIT_MS, waitFor, within } from "./support/aiqRpc";
import type { ToView } from "../src/messages";
import type { ConfirmDecision, ConfirmParams } from "../src/protocol";
import { FakeUi } from "./support/fakeUi";
import { ScriptedModel, type Step } from "./support/scriptedModel";

// eslint-disable-next-line @typescript-eslint/no-var-requires
const view = require(path.join(__dirname, "..", "..", "media", "view.js"));

let binary: string;
const cleanups: (() => Promise<void> | void)[] = [];

before(async () => {
  binary = await aiqRpcBinary();
});

afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) {
    await c();
  }
});

async function setup(steps: Step[], opts: { serverPath?: () => string; policy?: RestartPolicy; ui?: FakeUi } = {}) {
  const model = await ScriptedModel.start(...steps);
  cleanups.push(() => model.close());
  const home = makeHome(model.url);
  cleanups.push(() => fs.rmSync(home, { recursive: true, force: true }));
  const ui = opts.ui ?? new FakeUi();
  const ctl = new Controller({
    settings: () => normalizeSettings({ serverPath: opts.serverPath?.() ?? binary, home, source: "", trace: "off" }),
    ui,
    env: childEnv(),
    policy: opts.policy,
  });
  ui.answer = (id, decision) => ctl.answerConfirm(id, decision);
  cleanups.push(() => ctl.dispose());
  return { model, home, ui, ctl };
}

describe("Controller with the real aiq-rpc", () => {
  it("streams a turn to the view: turnStart, progress in order, turnEnd; the replay keeps it", async () => {
    const { ui, ctl } = await setup([{ text: ["Two ", "hundred ", "orders."], paceMs: 100 }]);
    const result = await ctl.ask("How many orders?");
    assert.equal(result?.answer, "Two hundred orders.");
    const types = ui.views.filter((m) => m.type !== "state" && m.type !== "notice").map((m) => m.type);
    assert.equal(types[0], "turnStart");
    assert.equal(types[types.length - 1], "turnEnd");
    assert.ok(types.filter((t) => t === "progress").length >= 2, `several progress messages: ${types}`);
    assert.deepEqual(ui.of("turnStart")[0], { type: "turnStart", turnId: 1, query: "How many orders?" });
    assert.ok(ui.states.some((s) => s.running), "running while it answers");
    assert.deepEqual(ui.states[ui.states.length - 1], { source: "demo", sourceKnown: true, running: false, server: "running" });

    const replay = ctl.replay();
    assert.deepEqual(replay[0], { type: "state", source: "demo", running: false, sourceKnown: true, server: "running" });
    const texts = replay.filter((m) => m.type === "progress");
    assert.equal(texts.length, 1, "the text pieces replay as one");
    assert.equal(texts[0].type === "progress" && texts[0].event.text, "Two hundred orders.");
    assert.equal(replay[replay.length - 1].type, "turnEnd");
  });

  it("a failed turn says the server's message without its method; the AIQ output gets the detail", async () => {
    const { ui, ctl } = await setup([]); // the model answers 500
    assert.equal(await ctl.ask("Anything?"), undefined);
    const shown = ui.of("turnError")[0].message;
    assert.doesNotMatch(shown, /^chat\/turn|^[a-z]+\/[a-z]+:/i, shown);
    assert.match(shown, /^[A-Z]/);
    // The method is in the message (aiq-rpc before issue 13) or in the error's data (after): logged either way.
    assert.match(ui.logText, /The question failed: error -?\d+: .*chat\/turn: /, "the whole error, code, message and data, is logged");
  });

  it("a panel just shown starts the server and gets the real source, not \"no database\"", async () => {
    const { ui, ctl } = await setup([]);
    const first = ctl.replay()[0];
    assert.ok(first.type === "state" && first.source === "" && first.sourceKnown === false, JSON.stringify(first));
    ctl.warmUp();
    await ui.until(() => ui.views.some((v) => v.type === "state" && v.source === "demo" && v.sourceKnown === true), "the demo source in the state");
    const states = ui.views.filter((v) => v.type === "state");
    assert.ok(states.every((v) => v.type === "state" && (v.source !== "" || v.sourceKnown === false)), "never a known empty source on the way");
    assert.equal(ui.startFailures.length, 0);
    await ui.until(() => ui.views.some((v) => v.type === "state" && v.model === "test-model"), "the configured model in the panel's header");
    const pid = ctl.serverPid;
    ctl.warmUp();
    assert.equal(ctl.serverPid, pid, "a second showing starts nothing");
  });

  it("warmUp with no server says so in the panel, without a popup", async () => {
    const missing = path.join(tempDir("aiq-vscode-missing-"), "aiq-rpc");
    const { ui, ctl } = await setup([], { serverPath: () => missing });
    ctl.warmUp();
    await ui.until(() => ui.notices().some((n) => n.includes(INSTALL_COMMAND)), "the failed start in the panel");
    assert.equal(ui.startFailures.length, 0);
    const last = ui.views.filter((v) => v.type === "state").pop();
    assert.ok(last?.type === "state" && last.server === "stopped" && !last.sourceKnown);
  });

  it("refuses a second question while one runs, and cancels the running one", async () => {
    const { ui, ctl, model } = await setup([{ hold: true }]);
    const first = ctl.ask("Slow one");
    await waitFor(() => model.requests.length === 1, "the model to be asked");
    await assert.rejects(ctl.ask("Another"), (err: unknown) => err instanceof UserError && /AIQ: Cancel/.test(err.message));
    await assert.rejects(ctl.clear(), UserError);
    assert.equal(ctl.cancel(), true);
    const result = await within(first, WAIT_MS, "the cancelled turn");
    assert.equal(result?.stopReason, "cancelled");
    assert.equal(ui.of("turnEnd")[0].result.stopReason, "cancelled");
    assert.equal(ctl.cancel(), false, "nothing left to cancel");
  });

  it("shows a failed start once for all queued commands, and tries again on the next command", async () => {
    const missing = path.join(tempDir("aiq-vscode-missing-"), "aiq-rpc");
    const { ui, ctl } = await setup([], { serverPath: () => missing });
    const results = await Promise.allSettled([ctl.showHistory(), ctl.sources(), ctl.sessionsFolder()]);
    for (const r of results) {
      assert.equal(r.status, "rejected");
      assert.ok(r.status === "rejected" && r.reason instanceof ReportedError, "already shown");
    }
    assert.equal(ui.startFailures.length, 1, "one popup for one failed start");
    assert.ok(ui.startFailures[0].includes(missing) && ui.startFailures[0].includes(INSTALL_COMMAND));
    assert.deepEqual(ui.states[ui.states.length - 1].server, "stopped");

    await ctl.ask("Anything?");
    assert.equal(ui.startFailures.length, 2, "the next command starts again, and says so once");
    assert.ok(ui.of("turnError")[0].message.includes(INSTALL_COMMAND), "the turn says why it failed");
  });

  it("finds the default aiq-rpc in ~/go/bin when the extension host's PATH lacks it", async () => {
    const fakeHome = tempDir("aiq-vscode-userhome-");
    cleanups.push(() => fs.rmSync(fakeHome, { recursive: true, force: true }));
    fs.mkdirSync(path.join(fakeHome, "go", "bin"), { recursive: true });
    fs.symlinkSync(binary, path.join(fakeHome, "go", "bin", "aiq-rpc"));
    const home = makeHome();
    cleanups.push(() => fs.rmSync(home, { recursive: true, force: true }));
    const env = { ...childEnv(), PATH: "/nonexistent", GOBIN: "", GOPATH: "" };
    const ui = new FakeUi();
    const ctl = new Controller({ settings: () => normalizeSettings({ home }), ui, env, lookup: { homeDir: fakeHome, goEnvGopath: async () => "" } });
    cleanups.push(() => ctl.dispose());
    assert.ok((await ctl.sources()).length > 0, "the server answered");
    assert.equal(ui.startFailures.length, 0);

    const nowhere = new Controller({ settings: () => normalizeSettings({ home }), ui, env, lookup: { homeDir: home, goEnvGopath: async () => "" } });
    cleanups.push(() => nowhere.dispose());
    await assert.rejects(nowhere.sources(), ReportedError);
    assert.match(ui.startFailures[0], /"aiq-rpc" \(looked up in PATH \(\/nonexistent\) or ~\/go\/bin \(.*\)\) was not found/);
    assert.ok(ui.startFailures[0].includes(path.join(home, "go", "bin")));
    assert.ok(ui.startFailures[0].includes(INSTALL_COMMAND));
  });

  it("includes the stderr of a server that dies at start", async () => {
    const dir = tempDir("aiq-vscode-script-");
    cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
    const script = path.join(dir, "aiq-rpc");
    fs.writeFileSync(script, "#!/bin/sh\necho 'aiq-rpc: cannot open home: permission denied' >&2\nexit 1\n", { mode: 0o755 });
    const { ui, ctl } = await setup([], { serverPath: () => script });
    await assert.rejects(ctl.sources(), ReportedError);
    assert.equal(ui.startFailures.length, 1);
    assert.match(ui.startFailures[0], /exited with status 1 before it was ready/);
    assert.match(ui.startFailures[0], /cannot open home: permission denied/);
    assert.ok(ui.startFailures[0].includes(script));
  });

  it("after a crash mid-turn: one message says so and that it restarted; the server reloads the saved conversation", async () => {
    const { ui, ctl, model } = await setup([{ text: ["First ", "answer."] }, { hold: true }, { text: ["Back ", "again."] }]);
    await ctl.ask("First question");
    const pid = ctl.serverPid!;
    const held = ctl.ask("Second question");
    await waitFor(() => model.requests.length === 2, "the model to be asked twice");
    process.kill(pid, "SIGKILL");
    assert.equal(await within(held, WAIT_MS, "the lost turn"), undefined);
    assert.match(ui.of("turnError")[0].message, /stopped unexpectedly .*killed by SIGKILL.*AIQ restarted it\..*not answered: ask it again/s);
    await ctl.showHistory();
    assert.ok(ctl.serverPid && ctl.serverPid !== pid, "a new process");
    assert.deepEqual(ui.notices(), [], "no notice besides the turn's error");
    assert.equal(ui.crashes.length, 0, "and no popup");
    const history = ui.of("history").pop()!;
    assert.deepEqual(history.turns.map((t) => t.content), ["First question", "First answer."]);
    const third = await ctl.ask("Third question");
    assert.equal(third?.answer, "Back again.");
    assert.equal(ui.crashes.length, 0, "no popup");
  });

  it("a crash under an open write dialog: one message says the statement did not run and the server restarted", async () => {
    const ui = new FakeUi();
    ui.decision = "hold"; // the user has not answered
    const del = "DELETE FROM orders WHERE id = 1";
    const { ctl } = await setup([{ text: ["Hello."] }, { toolCalls: [{ id: "w", name: "execute_sql", arguments: { sql: del } }] }], { ui });
    await ctl.ask("Hello"); // a conversation saved before, so the restart reloads it
    const held = ctl.ask("Delete order 1");
    await ui.until(() => ui.confirms.length === 1, "the write dialog");
    const pid = ctl.serverPid!;
    process.kill(pid, "SIGKILL");
    assert.equal(await within(held, WAIT_MS, "the lost turn"), undefined);
    const errors = ui.of("turnError").map((e) => e.message);
    assert.equal(errors.length, 1);
    assert.match(errors[0], /stopped unexpectedly.*AIQ restarted it\..*statement waiting for your answer did not run/s);
    const [opened] = ui.of("confirm");
    assert.deepEqual(ui.of("confirmEnd"), [{ type: "confirmEnd", turnId: opened.turnId, id: opened.id, decision: "closed" }], "the dialog closed; the turn's error says why");
    ctl.answerConfirm(opened.id, "allow_once"); // a click on the closed dialog: nothing happens
    assert.equal(ui.of("confirmEnd").length, 1);
    await ctl.showHistory();
    assert.ok(ctl.serverPid && ctl.serverPid !== pid, "restarted");
    assert.deepEqual([ui.notices(), ui.crashes], [[], []], "nothing else is said");
  });

  it("a restart after a crash that fails says so in the panel; only the next command pops up", async () => {
    let serverPath = binary;
    const { ui, ctl } = await setup([], { serverPath: () => serverPath });
    await ctl.showHistory();
    serverPath = path.join(tempDir("aiq-vscode-gone-"), "aiq-rpc"); // the binary went away
    process.kill(ctl.serverPid!, "SIGKILL");
    await ui.until(() => ui.notices().some((n) => n.includes(INSTALL_COMMAND)), "the failed restart in the panel");
    assert.equal(ui.crashes.length, 1);
    assert.equal(ui.startFailures.length, 0, "no popup for a restart nobody asked for");
    await assert.rejects(ctl.sources(), ReportedError);
    assert.equal(ui.startFailures.length, 1, "the next command's start fails with one popup");
    assert.ok(ui.startFailures[0].includes(serverPath));
  });

  it("past the restart limit, restarts on the next command instead", async () => {
    const { ui, ctl } = await setup([], { policy: new RestartPolicy(0, 60_000) });
    await ctl.showHistory(); // a session that was never saved
    const pid = ctl.serverPid!;
    process.kill(pid, "SIGKILL");
    await ui.until(() => ui.crashes.length === 1, "the crash popup");
    assert.match(ui.crashes[0], /restarts it on your next command/);
    assert.equal(ctl.serverPid, undefined, "not restarted at once");
    assert.equal(ctl.state.server, "stopped");

    await ctl.showHistory();
    assert.ok(ctl.serverPid && ctl.serverPid !== pid, "the next command restarted it");
    assert.ok(
      ui.notices().some((n) => /new conversation: the previous one was never saved/.test(n)),
      "a conversation that was never saved is said to be lost",
    );
  });

  it("saves, then loads the file as the conversation and shows its history; clear empties it", async () => {
    const { ui, ctl } = await setup([{ text: ["Saved ", "answer."] }]);
    await ctl.ask("Keep this");
    const saved = await ctl.save();
    assert.match(ui.notices().pop()!, new RegExp(`Saved to ${saved.path}\\. Run 'aiq -s`));
    assert.equal(path.dirname(saved.path), await ctl.sessionsFolder());

    const listed = (await ctl.sessions()).find((x) => x.path === saved.path);
    assert.equal(listed?.firstQuestion, "Keep this", "the Load pick lists the session by its first question");
    assert.equal(listed?.turns, 1);
    const loaded = await ctl.load(saved.path);
    assert.equal(loaded.sourceAvailable, true);
    assert.deepEqual(ui.of("history").pop()!.turns.map((t) => t.content), ["Keep this", "Saved answer."]);
    assert.equal(ctl.replay()[1].type, "history", "the replay starts from the loaded history");

    await ctl.clear();
    assert.equal(ui.views[ui.views.length - 1].type, "clear");
    assert.deepEqual(ctl.replay().slice(1), []);
    await ctl.showHistory();
    assert.deepEqual(ui.of("history").pop()!.turns, []);
  });

  it("a loaded session and Show History show the SQL that ran and its table, as the live turn did", async () => {
    const sql = "SELECT status, count(*) AS n FROM orders GROUP BY status ORDER BY status";
    const { ui, ctl } = await setup([
      { toolCalls: [{ id: "call_1", name: "execute_sql", arguments: { sql } }] },
      { text: ["Four statuses."] },
    ]);
    const live = await ctl.ask("Orders per status?");
    const saved = await ctl.save();
    await ctl.load(saved.path);
    const msg = ui.of("history").pop()!;
    assert.ok(msg.messages?.some((m) => m.role === "tool"), "the complete messages came");
    const [turn] = view.historyTurns(msg.turns, msg.messages);
    assert.equal(turn.query, "Orders per status?");
    assert.deepEqual(turn.items.map((i: any) => i.kind), ["sql", "text"]);
    assert.equal(turn.items[0].sql, sql);
    assert.equal(turn.items[0].statement.status, "success");
    assert.deepEqual(turn.items[0].statement.columns, ["status", "n"]);
    // The live page came once, in the statement's tool_result (rowsOnce).
    const shown = ui.views.find((m) => m.type === "progress" && m.event.kind === "tool_result" && m.event.callId === "call_1");
    assert.equal(live!.statements[0].rowsSent, true);
    assert.equal(shown?.type === "progress" && shown.event.statement?.rows?.length, 4);
    assert.deepEqual(turn.items[0].statement.rows, shown?.type === "progress" ? shown.event.statement?.rows : undefined, "the same rows as live");
    assert.equal(turn.items[1].text, "Four statuses.");

    await ctl.showHistory();
    const again = ui.of("history").pop()!;
    assert.equal(view.historyTurns(again.turns, again.messages)[0].items[0].statement.rowCount, live!.statements[0].rowCount);
  });

  it("a long SELECT: the server's early rows reach the view before the result, as its first page, then are replaced", async () => {
    const sql = "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 200000) SELECT n, n * 2 AS twice FROM c";
    const { ui, ctl } = await setup([{ toolCalls: [{ id: "call_big", name: "execute_sql", arguments: { sql } }] }, { text: ["Counted."] }]);
    const result = await ctl.ask("Count to 200,000");
    assert.equal(result?.statements[0].status, "success", JSON.stringify(ui.of("turnError")));

    // The messages to the view, in order: one rows, then the tool_result of the same call.
    const isEvent = (kind: string) => (m: (typeof ui.views)[number]) => m.type === "progress" && m.event.kind === kind;
    const rowsAt = ui.views.findIndex(isEvent("rows"));
    const resultAt = ui.views.findIndex(isEvent("tool_result"));
    assert.ok(rowsAt >= 0, "the view got the early rows");
    assert.equal(ui.views.filter(isEvent("rows")).length, 1, "one rows message per statement");
    assert.ok(rowsAt < resultAt, `the early rows (message ${rowsAt}) came before the result (message ${resultAt})`);
    const early = ui.views[rowsAt].type === "progress" ? ui.views[rowsAt].event : undefined;
    const final = ui.views[resultAt].type === "progress" ? ui.views[resultAt].event : undefined;
    assert.equal(early?.callId, "call_big");
    assert.equal(final?.callId, "call_big");
    assert.equal(early?.statement?.status, "running");
    assert.equal(early?.statement?.rowCount, 501, "the page, and the row that follows it");
    assert.equal(early?.statement?.rows?.length, 500);
    assert.deepEqual(early?.statement?.rows?.slice(0, 3), [[1, 2], [2, 4], [3, 6]]);
    // The page is sent once (rowsOnce): the result refers to it.
    assert.equal(final?.statement?.rowsSent, true, "the result refers to the early rows");
    assert.equal(final?.statement?.rows, undefined, "the result does not carry the page again");
    assert.equal(result?.statements[0].rowsSent, true, "the response refers to the page too");
    assert.equal(result?.statements[0].rows, undefined);

    // What the view shows at the early rows, then at the end.
    const sqlItem = (upTo: number) => {
      let model = view.emptyModel();
      for (const m of ui.views.slice(0, upTo + 1)) model = view.apply(model, m).model;
      const items = model.entries[0].items.filter((i: any) => i.kind === "sql");
      assert.equal(items.length, 1, "one table for the statement");
      return items[0];
    };
    const running = sqlItem(rowsAt);
    assert.equal(running.statement.status, "running", "the view shows the early rows as running");
    assert.deepEqual(running.statement.rows, early?.statement?.rows);
    const done = sqlItem(ui.views.length - 1);
    assert.equal(done.statement.status, "success", "the result replaced the early rows");
    assert.equal(done.statement.rowCount, 200000);
    assert.deepEqual(done.statement.rows, early?.statement?.rows);
  });

  it("Run again: a statement runs without the model, as a turn whose question is the SQL, with its rows", async () => {
    const sql = "SELECT status, count(*) AS n FROM orders GROUP BY status ORDER BY status";
    const { ui, ctl, model } = await setup([]);
    const result = await ctl.runSql(`  ${sql}\n`);
    assert.equal(result?.statements[0].status, "success", JSON.stringify(ui.of("turnError")));
    assert.equal(model.requests.length, 0, "the model was not asked");
    const start = ui.views.find((m) => m.type === "turnStart");
    assert.deepEqual(start?.type === "turnStart" && start.selection, { text: sql, languageId: "sql" });
    const shown = ui.views.find((m) => m.type === "progress" && m.event.kind === "tool_result");
    assert.ok(shown?.type === "progress" && (shown.event.statement?.rows?.length ?? 0) > 0, "the rows came to the view");
    let m = view.emptyModel();
    for (const msg of ui.views) m = view.apply(m, msg).model;
    const turn = m.entries[m.entries.length - 1];
    assert.equal(turn.items.filter((i: any) => i.kind === "sql").length, 1, "one table");
    await assert.rejects(ctl.runSql("  "), /no SQL to run/);
  });

  it("a source labelled production says so in the state, for the status bar and the header", async () => {
    const { home, ctl } = await setup([]);
    const db = path.join(home, "shop.sqlite");
    fs.writeFileSync(path.join(home, "config", "sources.yaml"), `- name: shop\n  type: sqlite\n  database: ${JSON.stringify(db)}\n  label: production\n`);
    assert.deepEqual((await ctl.sources()).map((s) => [s.name, s.label]), [["shop", "production"]]);
    await ctl.setSource("shop");
    assert.equal(ctl.state.source, "shop");
    assert.equal(ctl.state.label, "production");

    // sources.yaml changed while the server runs: config/changed brings the new label to the state.
    fs.writeFileSync(path.join(home, "config", "sources.yaml"), `- name: shop\n  type: sqlite\n  database: ${JSON.stringify(db)}\n  label: staging\n`);
    await ctl.sources(); // the server reads its configuration again before a request
    await waitFor(() => ctl.state.label === "staging", `the label after config/changed (state: ${JSON.stringify(ctl.state)})`);
  });

  it("an export of a read costlier than the source allows asks in a modal, as no turn runs; Reject writes nothing", async () => {
    const { home, ui, ctl } = await setup([]);
    const db = path.join(home, "big.sqlite");
    fs.writeFileSync(db, ""); // SQLite takes an empty file for an empty database
    const sources = (extra: string) => `- name: big\n  type: sqlite\n  database: ${JSON.stringify(db)}\n${extra}`;
    fs.writeFileSync(path.join(home, "config", "sources.yaml"), sources(""));
    await ctl.setSource("big");
    ui.decision = "allow_once";
    for (const sql of ["CREATE TABLE big (id integer PRIMARY KEY)",
      "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 2000) INSERT INTO big SELECT i FROM c"]) {
      const st = (await ctl.runSql(sql))?.statements[0];
      assert.equal(st?.status, "success", `${sql}: ${st?.error}`);
    }
    assert.equal(ui.modals.length, 0, "a write in a turn asks in the panel");
    fs.writeFileSync(path.join(home, "config", "sources.yaml"), sources("  max_estimated_rows: 1000\n"));

    const out = path.join(home, "big.csv");
    const token = new CancellationTokenSource().token;
    ui.decision = "reject";
    await assert.rejects(ctl.exportResult({ sql: "SELECT id FROM big", format: "csv", path: out }, token, () => {}),
      (err) => err instanceof UserError && /declined/.test(err.message), "declined: said as a warning, not an error");
    assert.equal(ui.modals.length, 1);
    assert.equal(ui.modals[0].buttons[0].decision, "reject", "Reject first, so Enter rejects");
    assert.match(ui.modals[0].message, /1,000/);
    assert.equal(fs.existsSync(out), false, "nothing written");

    ui.decision = "allow_once";
    const written = await ctl.exportResult({ sql: "SELECT id FROM big", format: "csv", path: out }, token, () => {});
    assert.equal(written?.rowCount, 2000);
    assert.equal(ui.modals.length, 2);
  });

  it("sets the data source and reports it in the state", async () => {
    const { ui, ctl } = await setup([]);
    assert.deepEqual((await ctl.sources()).map((s) => s.name), ["demo"]);
    await ctl.setSource("");
    assert.equal(ctl.state.source, "");
    assert.match(ui.notices().pop()!, /Data source: none/);
    await ctl.setSource("demo");
    assert.equal(ui.states[ui.states.length - 1].source, "demo");
  });

  it("a write asks the Ui to confirm; its decision is the server's", async () => {
    const del = "DELETE FROM order_items";
    const { ui, ctl } = await setup([
      { toolCalls: [{ id: "c1", name: "execute_sql", arguments: { sql: del } }] },
      { text: ["Rejected."] },
    ]);
    ui.decision = "reject";
    const r = await ctl.ask("Delete all order items");
    assert.equal(ui.confirms.length, 1);
    assert.equal(ui.confirms[0].sql, del);
    assert.equal(r?.statements[0].status, "rejected");
    const [opened] = ui.of("confirm");
    assert.equal(opened.prompt.sql, del);
    assert.deepEqual(opened.prompt.buttons.map((b) => b.label), ["Reject", "Allow once"], "a DELETE without WHERE: no Allow always");
    assert.deepEqual(ui.of("confirmEnd"), [{ type: "confirmEnd", turnId: opened.turnId, id: opened.id, decision: "reject" }]);
  });

  it("a write dialog open when the turn is stopped closes: the panel says its statement did not run", async () => {
    const del = "DELETE FROM orders WHERE id = 2";
    const { ui, ctl, model } = await setup([{ toolCalls: [{ id: "w", name: "execute_sql", arguments: { sql: del } }] }, { text: ["Not deleted."] }]);
    ui.decision = "hold";
    const held = ctl.ask("Delete order 2");
    await ui.until(() => ui.of("confirm").length === 1, "the write dialog");
    assert.equal(ctl.cancel(), true);
    const r = await within(held, WAIT_MS, "the stopped turn");
    assert.equal(r?.stopReason, "cancelled");
    const [opened] = ui.of("confirm");
    const ends = ui.of("confirmEnd");
    assert.equal(ends.length, 1);
    assert.deepEqual([ends[0].id, ends[0].decision], [opened.id, "closed"]);
    assert.match(ends[0].message ?? "", /statement did not run: the question was stopped/);
    ctl.answerConfirm(opened.id, "allow_once"); // too late: nothing happens
    assert.equal(ui.of("confirmEnd").length, 1);
    assert.ok(model.requests.length <= 2);
  });

  it("a new window reopens the last conversation on the source and shows it, unless aiq.restoreLastSession is off", async () => {
    const { home, ctl } = await setup([{ text: ["First ", "answer."] }]);
    await ctl.ask("Remember me");
    await ctl.dispose();

    const window = async (restoreLastSession: boolean) => {
      const ui = new FakeUi();
      const next = new Controller({ settings: () => normalizeSettings({ serverPath: binary, home, restoreLastSession }), ui, env: childEnv() });
      cleanups.push(() => next.dispose());
      return { ui, next };
    };
    const reloaded = await window(true);
    // A panel that says it is ready before the session opens is told the conversation is coming, so it keeps what it saved.
    assert.equal(stateOf(reloaded.next.replay()[0]).restoring, true, "the first replay says the last conversation is being reopened");
    reloaded.next.warmUp();
    await reloaded.ui.until(() => reloaded.ui.of("history").length > 0, "the restored conversation in the view");
    assert.deepEqual(reloaded.ui.of("history")[0].turns.map((t) => t.content), ["Remember me", "First answer."]);
    await reloaded.ui.until(() => reloaded.ui.of("state").some((st) => !st.restoring), "a state that no longer says restoring");
    const order = reloaded.ui.views.map((v) => (v.type === "state" ? `state:${!!v.restoring}` : v.type));
    const settled = order.indexOf("state:false");
    assert.ok(settled > order.indexOf("history") && order.slice(0, order.indexOf("history")).every((t) => t !== "state:false"), `restoring until the history came: ${order}`);
    assert.equal(stateOf(reloaded.next.replay()[0]).restoring, undefined, "a panel shown later is not told to wait");
    assert.equal(reloaded.next.replay()[1].type, "history", "a panel shown later replays it too");
    assert.equal(reloaded.next.state.source, "demo");
    await reloaded.next.dispose();

    const off = await window(false);
    assert.equal(stateOf(off.next.replay()[0]).restoring, undefined, "off: the panel is not told to wait");
    await off.next.showHistory();
    assert.deepEqual(off.ui.of("history").map((h) => h.turns), [[]], "off: an empty conversation, nothing restored");
  });

  it("a new window with nothing to reopen, or whose server does not start, tells the panel to stop waiting for it", async () => {
    const home = makeHome();
    cleanups.push(() => fs.rmSync(home, { recursive: true, force: true }));
    for (const serverPath of [binary, path.join(home, "no-such-aiq-rpc")]) {
      const ui = new FakeUi();
      const ctl = new Controller({ settings: () => normalizeSettings({ serverPath, home, restoreLastSession: true }), ui, env: childEnv() });
      cleanups.push(() => ctl.dispose());
      assert.equal(stateOf(ctl.replay()[0]).restoring, true, `${serverPath}: the panel waits at first`);
      ctl.warmUp();
      await ui.until(() => ui.of("state").some((st) => !st.restoring), `${serverPath}: a state that no longer says restoring`);
      assert.equal(ui.of("history").length, 0, `${serverPath}: nothing was restored`);
      assert.equal(stateOf(ctl.replay()[0]).restoring, undefined);
    }
  });

  it("a result tab whose rows were asked for before any server could start reads them once one runs", async () => {
    const sql = "SELECT name FROM customers ORDER BY id LIMIT 2";
    const { home, ctl } = await setup([{ toolCalls: [{ id: "call_late", name: "execute_sql", arguments: { sql } }] }, { text: ["Two."] }]);
    await ctl.ask("The first two customers?");
    await ctl.dispose();

    // The first start reads settings that name no binary (as a reloading window may), later ones the real one.
    let serverPath = path.join(home, "no-such-aiq-rpc");
    const ui = new FakeUi();
    const next = new Controller({ settings: () => normalizeSettings({ serverPath, home, restoreLastSession: true }), ui, env: childEnv() });
    cleanups.push(() => next.dispose());
    await assert.rejects(next.keptResult({ sql, callId: "call_late" }), ReportedError);
    let calls = 0;
    const retried = new Promise<ReturnType<Controller["keptResult"]>>((resolve) => next.onceRunning(() => (calls++, resolve(next.keptResult({ sql, callId: "call_late" })))));
    const forgotten = next.onceRunning(() => assert.fail("a listener taken back is not called"));
    forgotten();
    serverPath = binary;
    next.warmUp();
    const statement = await within(retried.then((k) => k), WAIT_MS, "the rows read again once the server runs");
    assert.equal(statement?.rows?.length, 2, `the tab found its rows: ${JSON.stringify(statement)}`);
    await next.restartOnNextCommand();
    await next.sources();
    assert.equal(calls, 1, "called once, not at every start");
  });

  it("a result tab asked for while the last conversation reopens gets its rows from that conversation, not the new one", async () => {
    const sql = "SELECT name FROM customers ORDER BY id LIMIT 3";
    const { home, ctl } = await setup([{ toolCalls: [{ id: "call_kept", name: "execute_sql", arguments: { sql } }] }, { text: ["Three."] }]);
    await ctl.ask("The first three customers?");
    await ctl.dispose();

    // VS Code restores a result tab with the window, while the panel's first session is being
    // reopened: the tab's question is asked the moment the controller lists the sessions.
    let kept: ReturnType<Controller["keptResult"]> | undefined;
    const ui = new FakeUi();
    const next: Controller = new Controller({
      settings: () => normalizeSettings({ serverPath: binary, home, restoreLastSession: true, trace: "messages" }),
      ui: Object.assign(ui, {
        log(text: string) {
          ui.logText += text;
          if (!kept && /Sending request 'session\/list/.test(text)) kept = next.keptResult({ sql, callId: "call_kept" });
        },
      }),
      env: childEnv(),
    });
    cleanups.push(() => next.dispose());
    next.warmUp();
    await ui.until(() => ui.of("history").length > 0, "the restored conversation in the view");
    assert.ok(kept, "the tab asked while the session was reopened");
    const statement = await kept;
    assert.ok(statement && !statement.missing, `the tab found its result: ${JSON.stringify(statement)}`);
    assert.equal(statement.sql, sql);
    assert.equal(statement.rows?.length, 3, "with the rows the user saw");
  });

  it("New Chat starts an empty conversation on the source; the one before stays saved in History", async () => {
    const { ui, ctl } = await setup([{ text: ["Old ", "answer."] }]);
    await ctl.ask("Before the new chat");
    await ctl.newChat();
    assert.equal(ui.views.filter((v) => v.type !== "state").pop()?.type, "clear", "the panel empties");
    assert.deepEqual(ctl.replay().slice(1), [], "a panel shown later starts empty too");
    await ctl.showHistory();
    assert.deepEqual(ui.of("history").pop()!.turns, [], "the server's session is a new one");
    assert.equal(ctl.state.source, "demo");
    const old = (await ctl.sessions()).find((x) => x.firstQuestion === "Before the new chat");
    assert.equal(old?.turns, 1, "the previous conversation is listed with its turn");
  });

  it("stops the server on dispose", async () => {
    const { ctl } = await setup([]);
    await ctl.sources();
    const pid = ctl.serverPid!;
    await ctl.dispose();
    assert.equal(ctl.serverPid, undefined);
    assert.throws(() => process.kill(pid, 0), /ESRCH/, "the process is gone");
    await assert.rejects(ctl.sources(), UserError);
  });
});

/** The state message a replay starts with. */
function stateOf(msg: ToView): Extract<ToView, { type: "state" }> {
  assert.equal(msg.type, "state");
  return msg as Extract<ToView, { type: "state" }>;
}
