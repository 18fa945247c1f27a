// The extension's decisions, which do not need VS Code or a server: what a
// failed start says, when to restart, what a turn sends, what the view
// replays, what the status bar and the confirm dialog show.

import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, it } from "node:test";
import { ALLOW_ALWAYS, ALLOW_ONCE, allowanceItems, CLEAR, dryRunText, clearChosen, clearPrompt, confirmModal, confirmPrompt, modalDecision, NO, REJECT } from "../src/confirm";
import { ResponseError } from "vscode-jsonrpc/node";
import { DOCTOR_HINT, detailOf, messageOf, presentError, ReportedError, turnErrorMessage, UserError } from "../src/errors";
import { parseFromView } from "../src/fromView";
import type { ProgressEvent, ToView } from "../src/messages";
import type { Selection } from "../src/protocol";
import { RestartPolicy } from "../src/restartPolicy";
import { withRows } from "../src/controller";
import { crashMessage, INSTALL_COMMAND, requestLostMessage, startFailureMessage, type ExitInfo } from "../src/serverExit";
import { expandHome, locateServer, normalizeSettings, spawnOptionsFor } from "../src/settings";
import { findServer, goEnvGopath } from "../src/findServer";
import { sessionItems, when } from "../src/sessionPick";
import { describeSource, sourceItems } from "../src/sourcePick";
import { modelBarView, statusBarView } from "../src/status";
import { StderrTail } from "../src/stderrTail";
import { Transcript } from "../src/transcript";
import { tempDir } from "./support/aiqRpc";
import { modalKeys } from "./support/vscodeModal";
import { askSelectionBox, defaultQuestion, NothingToAskError, turnRequest, turnStartMessage } from "../src/turnRequest";

const exit = (over: Partial<ExitInfo>): ExitInfo => ({ command: "aiq-rpc", code: 1, signal: null, stderr: "", phase: "start", ...over });

describe("start failure messages", () => {
  it("a missing binary: the path tried, PATH for a bare name, the install command, the setting", () => {
    const bare = startFailureMessage(exit({ code: null, spawnError: { code: "ENOENT", message: "spawn aiq-rpc ENOENT" } }));
    assert.match(bare, /"aiq-rpc" \(looked up on PATH\) was not found/);
    assert.ok(bare.includes(INSTALL_COMMAND));
    assert.match(bare, /aiq\.serverPath/);
    const abs = startFailureMessage(exit({ command: "/opt/aiq/aiq-rpc", code: null, spawnError: { code: "ENOENT", message: "" } }));
    assert.match(abs, /"\/opt\/aiq\/aiq-rpc" was not found/);
    assert.doesNotMatch(abs, /looked up on PATH/);
  });

  it("a server that died at start: its status and what it printed", () => {
    const msg = startFailureMessage(exit({ code: 2, stderr: "flag provided but not defined: -home\n" }));
    assert.match(msg, /exited with status 2 before it was ready/);
    assert.match(msg, /It printed:\nflag provided but not defined: -home/);
    assert.ok(msg.includes(INSTALL_COMMAND));
    assert.match(startFailureMessage(exit({ stderr: "  " })), /printed nothing on stderr/);
    assert.match(startFailureMessage(exit({ code: null, signal: "SIGSEGV" })), /was killed by SIGSEGV/);
  });

  it("keeps only the end of a long stderr", () => {
    const msg = startFailureMessage(exit({ stderr: "x".repeat(5000) + "THE END" }));
    assert.ok(msg.includes("…"), "marks the cut");
    assert.ok(msg.includes("THE END"));
    assert.ok(msg.length < 2000, `bounded: ${msg.length}`);
  });

  it("a crash and a lost request say what happened and what comes next", () => {
    const info = exit({ phase: "running", code: 2, stderr: "goroutine 1 [running]:\npanic: boom\n" });
    // One sentence each; what the server printed is in the AIQ output, not the popup.
    assert.equal(crashMessage(info), "aiq-rpc stopped unexpectedly (it exited with status 2; its log is in the AIQ output).");
    assert.equal(requestLostMessage(info), "aiq-rpc stopped before it answered (it exited with status 2); the next command restarts it.");
  });
});

describe("RestartPolicy", () => {
  it("restarts at most maxRestarts times within the window, then again once it has passed", () => {
    let now = 0;
    const p = new RestartPolicy(3, 180_000, () => now);
    assert.equal(p.recordCrash(), true);
    assert.equal(p.isFirstInWindow(), true);
    now += 1000;
    assert.equal(p.recordCrash(), true);
    assert.equal(p.isFirstInWindow(), false);
    now += 1000;
    assert.equal(p.recordCrash(), true);
    now += 1000;
    assert.equal(p.recordCrash(), false, "the fourth crash in 3 minutes");
    now += 180_000;
    assert.equal(p.recordCrash(), true, "old crashes are forgotten");
    assert.equal(p.isFirstInWindow(), true);
  });
});

describe("settings", () => {
  it("defaults and lenient reading", () => {
    assert.deepEqual(normalizeSettings({}), { serverPath: "aiq-rpc", home: "", source: "", trace: "off", restoreLastSession: true, runCodeLens: true });
    assert.deepEqual(normalizeSettings({ serverPath: "  ", home: 3, source: " shop ", trace: "loud", restoreLastSession: "no", runCodeLens: 0 }), {
      serverPath: "aiq-rpc",
      home: "",
      source: "shop",
      trace: "off",
      restoreLastSession: true,
      runCodeLens: true,
    });
    assert.equal(normalizeSettings({ restoreLastSession: false }).restoreLastSession, false);
    assert.equal(normalizeSettings({ runCodeLens: false }).runCodeLens, false);
    assert.equal(normalizeSettings({ trace: "verbose" }).trace, "verbose");
  });

  it("become spawn options: --home only when set, ~ expanded", () => {
    const env = { PATH: "/bin" };
    assert.deepEqual(spawnOptionsFor(normalizeSettings({}), env), { command: "aiq-rpc", args: [], env });
    const o = spawnOptionsFor(normalizeSettings({ serverPath: "~/go/bin/aiq-rpc", home: "~/aiq" }), env);
    assert.equal(o.command, expandHome("~/go/bin/aiq-rpc"));
    assert.ok(!o.command.startsWith("~"));
    assert.deepEqual(o.args, ["--home", expandHome("~/aiq")]);
    assert.equal(expandHome("~/x", "/home/ana"), "/home/ana/x");
    assert.equal(expandHome("~", "/home/ana"), "/home/ana");
    assert.equal(expandHome("/abs/~/x", "/home/ana"), "/abs/~/x");
  });
});

describe("finding the server", () => {
  const exe = (dir: string) => {
    fs.mkdirSync(dir, { recursive: true });
    const file = path.join(dir, "aiq-rpc");
    fs.writeFileSync(file, "#!/bin/sh\n", { mode: 0o755 });
    return file;
  };
  const noGo = async () => "";

  it("PATH first, then $GOBIN, $GOPATH/bin, $(go env GOPATH)/bin and ~/go/bin", async () => {
    const root = tempDir("aiq-vscode-find-");
    const home = path.join(root, "home");
    const onPath = exe(path.join(root, "path"));
    const gobin = exe(path.join(root, "gobin"));
    const gopath = exe(path.join(root, "gopath", "bin"));
    const goenv = exe(path.join(root, "goenv", "bin"));
    const homeBin = exe(path.join(home, "go", "bin"));
    const empty = path.join(root, "empty");
    const deps = { homeDir: home, goEnvGopath: async () => path.join(root, "goenv") };
    assert.equal((await findServer("aiq-rpc", { PATH: `${empty}:${path.dirname(onPath)}`, GOBIN: path.dirname(gobin) }, deps)).found, onPath);
    assert.equal((await findServer("aiq-rpc", { PATH: empty, GOBIN: path.dirname(gobin) }, deps)).found, gobin);
    assert.equal((await findServer("aiq-rpc", { PATH: empty, GOPATH: path.join(root, "gopath") }, deps)).found, gopath);
    assert.equal((await findServer("aiq-rpc", { PATH: empty }, deps)).found, goenv);
    assert.equal((await findServer("aiq-rpc", { PATH: empty }, { homeDir: home, goEnvGopath: noGo })).found, homeBin);
  });

  it("skips what is not an executable file; when nothing is found, lists every folder once", async () => {
    const root = tempDir("aiq-vscode-find-");
    fs.mkdirSync(path.join(root, "gobin", "aiq-rpc"), { recursive: true }); // a folder of that name
    fs.mkdirSync(path.join(root, "home", "go", "bin"), { recursive: true });
    fs.writeFileSync(path.join(root, "home", "go", "bin", "aiq-rpc"), "", { mode: 0o644 }); // not executable
    const env = { PATH: "/nonexistent-a:/nonexistent-b", GOBIN: path.join(root, "gobin") };
    const r = await findServer("aiq-rpc", env, { homeDir: path.join(root, "home"), goEnvGopath: async () => path.join(root, "home", "go") });
    assert.equal(r.found, undefined);
    assert.deepEqual(r.searched.map((p) => p.why), ["PATH", "PATH", "$GOBIN", "$(go env GOPATH)/bin"], "~/go/bin is $(go env GOPATH)/bin here: once");
    const msg = startFailureMessage(exit({ code: null, spawnError: { code: "ENOENT", message: "" }, searched: r.searched }));
    for (const p of r.searched) assert.ok(msg.includes(p.dir), `${p.dir} in: ${msg}`);
    assert.match(msg, /looked up in PATH \(\/nonexistent-a:\/nonexistent-b\), \$GOBIN \(.*\) or \$\(go env GOPATH\)\/bin \(.*\)\) was not found/);
    assert.ok(msg.includes("cd <clone> && go install ./cmd/aiq-rpc"), msg);
    assert.doesNotMatch(msg, /@latest|github\.com/);
  });

  it("only the default name is looked for; a path the user set is used as given", async () => {
    const root = tempDir("aiq-vscode-find-");
    const homeBin = exe(path.join(root, "go", "bin"));
    const deps = { homeDir: root, goEnvGopath: noGo };
    const env = { PATH: "/nonexistent" };
    assert.equal((await locateServer(normalizeSettings({}), env, deps)).command, homeBin);
    const custom = await locateServer(normalizeSettings({ serverPath: "my-aiq" }), env, deps);
    assert.equal(custom.command, "my-aiq");
    assert.equal(custom.searched, undefined);
    const none = await locateServer(normalizeSettings({}), env, { homeDir: path.join(root, "nohome"), goEnvGopath: noGo });
    assert.equal(none.command, "aiq-rpc");
    assert.deepEqual(none.searched?.map((p) => p.why), ["PATH", "~/go/bin"]);
  });

  it("`go env GOPATH` answers through the real go, or \"\" without it", async () => {
    const gopath = await goEnvGopath(process.env);
    assert.ok(gopath === "" || path.isAbsolute(gopath.split(path.delimiter)[0]), gopath);
    assert.equal(await goEnvGopath({ PATH: "/nonexistent" }), "");
  });
});

describe("turn params", () => {
  const sel: Selection = {
    text: "SELECT 1",
    languageId: "sql",
    uri: "file:///q.sql",
    range: { start: { line: 2, character: 0 }, end: { line: 2, character: 8 } },
  };

  it("a query, a selection, or both; blanks are nothing", () => {
    assert.deepEqual(turnRequest("  What is it? ", undefined), { query: "What is it?" });
    assert.deepEqual(turnRequest(undefined, sel), { selection: sel });
    assert.deepEqual(turnRequest("Explain", sel), { query: "Explain", selection: sel });
    assert.deepEqual(turnRequest("Explain", { ...sel, text: " \n " }), { query: "Explain" });
    assert.throws(() => turnRequest("  ", undefined), NothingToAskError);
    assert.throws(() => turnRequest("", { ...sel, text: "\t" }), /select some text/);
  });

  it("the view shows the question and the selection's text and language at once", () => {
    assert.deepEqual(turnStartMessage(4, { query: "Explain", selection: sel }), {
      type: "turnStart",
      turnId: 4,
      query: "Explain",
      selection: { text: "SELECT 1", languageId: "sql" },
    });
    assert.deepEqual(turnStartMessage(5, { selection: sel }), {
      type: "turnStart",
      turnId: 5,
      query: "",
      selection: { text: "SELECT 1", languageId: "sql" },
    });
  });
});

describe("Ask About Selection", () => {
  const sel = (text: string, languageId: string): Selection => ({ text, languageId, uri: "file:///q", range: { start: { line: 0, character: 0 }, end: { line: 0, character: text.length } } });
  it("offers a question to keep or change, selected so that typing replaces it", () => {
    const box = askSelectionBox(sel("SELECT * FROM orders", "sql"));
    assert.equal(box.value, "What does this query do, and what does it return?");
    assert.deepEqual(box.valueSelection, [0, box.value.length]);
    assert.match(box.prompt, /Enter asks, Escape cancels/);
    assert.equal(defaultQuestion(sel("with x as (select 1) select * from x", "plaintext")), box.value, "SQL is SQL in any file");
    assert.equal(defaultQuestion(sel("Which customers ordered most?", "markdown")), "Answer the selected question.");
  });

  it("what Enter sends: the question with the selection; an emptied box, the selection alone", () => {
    const s = sel("SELECT 1", "sql");
    const box = askSelectionBox(s);
    assert.deepEqual(turnRequest(box.value, s), { query: box.value, selection: s });
    assert.deepEqual(turnRequest("", s), { selection: s });
  });
});

describe("Transcript", () => {
  const text = (turnId: number, t: string): ToView => ({
    type: "progress",
    turnId,
    event: { sessionId: "s1", requestId: 1, kind: "text", text: t } as ProgressEvent,
  });
  const progress = (turnId: number, e: Partial<ProgressEvent>): ToView => ({ type: "progress", turnId, event: { sessionId: "s1", requestId: 1, kind: "text", ...e } });

  it("merges consecutive text pieces of a turn, keeps other events, skips state", () => {
    const tr = new Transcript();
    tr.add({ type: "turnStart", turnId: 1, query: "q" });
    tr.add(text(1, "a"));
    tr.add(text(1, "b"));
    tr.add({ type: "state", source: "demo", running: true });
    tr.add({ type: "progress", turnId: 1, event: { sessionId: "s1", requestId: 1, kind: "status", message: "m" } });
    tr.add(text(1, "c"));
    const r = tr.replay();
    assert.deepEqual(r.map((m) => m.type), ["turnStart", "progress", "progress", "progress"]);
    assert.equal(r[1].type === "progress" && r[1].event.text, "ab");
    assert.equal(r[3].type === "progress" && r[3].event.text, "c");
  });

  it("does not change a message already posted when it merges", () => {
    const tr = new Transcript();
    const first = text(1, "a");
    tr.add(first);
    tr.add(text(1, "b"));
    assert.equal(first.type === "progress" && first.event.text, "a");
  });

  it("a statement's result drops its early rows from the replay", () => {
    const tr = new Transcript();
    const st = { sql: "SELECT 1", status: "running" as const, rowCount: 1, columns: ["1"], rows: [[1]] };
    tr.add({ type: "turnStart", turnId: 1, query: "q" });
    tr.add(progress(1, { kind: "rows", callId: "a", statement: st }));
    tr.add(progress(1, { kind: "rows", callId: "b", statement: st }));
    tr.add(progress(1, { kind: "tool_result", callId: "a", statement: { ...st, status: "success" } }));
    assert.deepEqual(tr.replay().map((m) => (m.type === "progress" ? `${m.event.kind}:${m.event.callId}` : m.type)), ["turnStart", "rows:b", "tool_result:a"]);
  });

  it("a result whose rows were sent before (rowsSent) takes its early rows into the replay, without changing the message", () => {
    const tr = new Transcript();
    const page = { sql: "SELECT n", status: "running" as const, rowCount: 501, columns: ["n"], rows: [[1], [2]], truncated: true };
    const result = progress(1, { kind: "tool_result", callId: "a", statement: { sql: "SELECT n", status: "success", rowCount: 9000, columns: ["n"], truncated: true, rowsSent: true } });
    tr.add({ type: "turnStart", turnId: 1, query: "q" });
    tr.add(progress(1, { kind: "rows", callId: "a", statement: page }));
    tr.add(result);
    const r = tr.replay();
    assert.deepEqual(r.map((m) => (m.type === "progress" ? m.event.kind : m.type)), ["turnStart", "tool_result"]);
    const st = r[1].type === "progress" ? r[1].event.statement : undefined;
    assert.deepEqual(st, { sql: "SELECT n", status: "success", rowCount: 9000, columns: ["n"], truncated: true, rows: [[1], [2]] });
    assert.equal(result.type === "progress" && result.event.statement?.rows, undefined, "the message posted is as it came");
  });

  it("history replaces, clear empties", () => {
    const tr = new Transcript();
    tr.add({ type: "turnStart", turnId: 1, query: "q" });
    tr.add({ type: "history", turns: [{ role: "user", content: "q" }] });
    assert.deepEqual(tr.replay().map((m) => m.type), ["history"]);
    tr.add({ type: "notice", level: "info", message: "n" });
    tr.add({ type: "clear" });
    assert.deepEqual(tr.replay(), []);
  });

  it("drops whole turns from the front past its bound", () => {
    const tr = new Transcript(5);
    for (let turn = 1; turn <= 3; turn++) {
      tr.add({ type: "turnStart", turnId: turn, query: "q" });
      tr.add({ type: "progress", turnId: turn, event: { sessionId: "s", requestId: turn, kind: "status", message: "x" } });
      tr.add({ type: "turnEnd", turnId: turn, result: { sessionId: "s", stopReason: "end_turn", answer: "", statements: [], savedTo: "", warnings: [] } });
    }
    const r = tr.replay();
    assert.ok(r.length <= 5);
    assert.equal(r[0].type, "turnStart", "starts at a turn's start");
    assert.equal(r[0].type === "turnStart" && r[0].turnId, 3);
  });
});

describe("model status bar item", () => {
  it("shows the conversation's model, and a click picks another", () => {
    const v = modelBarView({ source: "demo", sourceKnown: true, running: false, server: "running", model: "qwen3:8b" });
    assert.equal(v.text, "$(hubot) qwen3:8b");
    assert.equal(v.command, "aiq.selectModel");
    assert.equal(modelBarView({ source: "", sourceKnown: false, running: false, server: "stopped" }).text, "$(hubot) model");
  });
});

describe("status bar", () => {
  it("running: spinner, click cancels; idle: the source, click selects one", () => {
    assert.deepEqual(statusBarView({ source: "demo", sourceKnown: true, running: true, server: "running" }), {
      text: "$(sync~spin) AIQ: running…",
      tooltip: "AIQ is answering. Click to cancel.",
      command: "aiq.cancel",
    });
    const idle = statusBarView({ source: "demo", sourceKnown: true, running: false, server: "running" });
    assert.equal(idle.text, "$(database) demo");
    assert.equal(idle.command, "aiq.selectSource");
    assert.equal(statusBarView({ source: "", sourceKnown: true, running: false, server: "running" }).text, "$(database) no database");
    assert.equal(statusBarView({ source: "", sourceKnown: false, running: false, server: "running" }).text, "$(database) AIQ");
    assert.equal(statusBarView({ source: "", sourceKnown: false, running: false, server: "stopped" }).text, "$(database) AIQ");
    assert.equal(statusBarView({ source: "shop", sourceKnown: true, running: false, server: "starting" }).text, "$(database) shop (starting…)");
  });

  it("a labelled source says its label (production), beside the name and in the tooltip", () => {
    const prod = statusBarView({ source: "shop", sourceKnown: true, running: false, server: "running", label: "production" });
    assert.equal(prod.text, "$(database) shop [production]");
    assert.match(prod.tooltip, /labelled production in sources\.yaml/);
    assert.equal(statusBarView({ source: "", sourceKnown: true, running: false, server: "running", label: "production" }).text, "$(database) no database");
  });
});

describe("confirm and clear dialogs", () => {
  it("the write dialog shows the SQL and the reason; each button is its decision", () => {
    const p = confirmPrompt({
      sessionId: "s1", tool: "execute_sql", sql: "DELETE FROM t WHERE id = 1", risk: "write", reason: "DELETE removes rows.",
      scope: "Allow DELETE on t for this conversation",
    });
    assert.match(p.message, /DELETE removes rows\./);
    assert.equal(p.sql, "DELETE FROM t WHERE id = 1");
    assert.match(p.note, /^Reject \(Enter, Escape\) does not run it\. "Allow always" covers only this: Allow DELETE on t for this conversation\./);
    assert.deepEqual(p.buttons.map((b) => [b.label, b.decision]), [
      [REJECT, "reject"],
      [ALLOW_ONCE, "allow_once"],
      [ALLOW_ALWAYS, "allow_always"],
    ], "the safe one first");
  });

  it("the write dialog as a modal, outside a turn: Reject first; closing it rejects", () => {
    const p = confirmPrompt({
      sessionId: "s1", tool: "result/export", sql: "SELECT * FROM big", risk: "cost", reason: "The database estimates 20,000,000 rows.",
      masked: [{ token: "<masked:email:3f2a91c04d7e>", value: "ann@example.com" }],
    });
    const m = confirmModal(p);
    assert.deepEqual(m.items.map((i) => i.title), [REJECT, ALLOW_ONCE], "the safe one first: Enter gives it");
    assert.match(m.detail, /^SELECT \* FROM big\n\n<masked:email:3f2a…> is ann@example.com\n\nReject/);
    assert.equal(modalDecision(p, { title: ALLOW_ONCE }), "allow_once");
    assert.equal(modalDecision(p, { title: REJECT }), "reject");
    assert.equal(modalDecision(p, undefined), "reject", "Escape or the close box");
    assert.equal(modalDecision(p, ALLOW_ALWAYS), "reject", "a button the dialog did not offer");
  });

  it("the write dialog says what the dry run found", () => {
    const base = { sessionId: "s1", tool: "execute_sql", risk: "write", reason: "DELETE removes rows." };
    assert.match(confirmPrompt({ ...base, sql: "DELETE FROM order_items", dryRun: "ok", affectedRows: 5008 }).message, /This DELETE would remove 5,008 rows/);
    assert.match(confirmPrompt({ ...base, sql: "insert into t values (1)", dryRun: "ok", affectedRows: 1 }).message, /This INSERT would add 1 row \(/);
    assert.match(
      confirmPrompt({ ...base, sql: "DELETE FROM trig", dryRun: "skipped", dryRunReason: "the table trig has triggers" }).message,
      /not counted beforehand: the table trig has triggers\./,
    );
    assert.equal(dryRunText({ ...base, sql: "DROP TABLE t" }), "");
  });

  it("the write dialog says what each masked token stands for, once the server sent it", () => {
    const base = { sessionId: "s1", tool: "execute_sql", risk: "write", reason: "DELETE removes rows." };
    const sql = "DELETE FROM customers WHERE email = '<masked:email:3f2a91c04d7e>' OR id = '<masked:customer_id:0b1c2d3e4f5a>'";
    const p = confirmPrompt({ ...base, sql, masked: [
      { token: "<masked:email:3f2a91c04d7e>", value: "ann@example.com" },
      { token: "<masked:customer_id:0b1c2d3e4f5a>", value: "42" },
    ] });
    assert.equal(p.sql, sql, "the SQL as the model wrote it");
    assert.deepEqual(p.masked, ["<masked:email:3f2a…> is ann@example.com", "<masked:customer_id:0b1c…> is 42"]);
    assert.deepEqual(confirmPrompt({ ...base, sql: "DELETE FROM t WHERE id = 1" }).masked, []);
  });

  it("an expensive read says so, with the estimate", () => {
    const p = confirmPrompt({
      sessionId: "s1", tool: "execute_sql", sql: "SELECT * FROM a, b", risk: "cost",
      reason: "The database estimates that this query goes through about 25,000,000 rows, above this source's limit of 10,000,000 (max_estimated_rows).",
    });
    assert.match(p.message, /^AIQ wants to run an expensive read\. The database estimates .*25,000,000 rows/);
  });

  it("the write dialog names the source's label first", () => {
    const p = confirmPrompt({ sessionId: "s1", tool: "execute_sql", sql: "DELETE FROM t WHERE id = 1", risk: "write", reason: "", label: "production" });
    assert.match(p.message, /^\[PRODUCTION\] AIQ wants to run a statement that writes/);
    assert.deepEqual(p.buttons.map((b) => b.label), [REJECT, ALLOW_ONCE], "no scope: no Allow always");
  });

  it("a statement without a scope offers no Allow always and says it asks every time", () => {
    const p = confirmPrompt({ sessionId: "s1", tool: "execute_sql", sql: "DELETE FROM t", risk: "write", reason: "DELETE removes rows." });
    assert.deepEqual(p.buttons.map((b) => b.label), [REJECT, ALLOW_ONCE]);
    assert.match(p.note, /asks every time/);
  });

  it("the allowances quick pick revokes one, or all when there are several", () => {
    const a = (id: string, scope: string) => ({ id, scope, shape: { kind: "UPDATE", objects: ["t"] } });
    assert.deepEqual(allowanceItems([]), []);
    assert.deepEqual(allowanceItems([a("a1", "Allow UPDATE on t for this conversation")]).map((i) => [i.label, i.id]), [
      ["Allow UPDATE on t for this conversation", "a1"],
    ]);
    assert.deepEqual(allowanceItems([a("a1", "x"), a("a2", "y")]).map((i) => i.id), ["a1", "a2", "all"]);
  });

  it("a read that reaches outside the database is not called a write", () => {
    const p = confirmPrompt({
      sessionId: "s1", tool: "execute_sql", sql: "SELECT pg_read_file('/etc/passwd')", risk: "outside",
      reason: "pg_read_file reads a file on the database server, outside the database.",
    });
    assert.match(p.message, /reaches outside the database\. pg_read_file reads a file/);
    assert.doesNotMatch(p.message, /writes/);
    assert.match(confirmPrompt({ sessionId: "s1", tool: "execute_sql", sql: "DROP TABLE t", risk: "ddl", reason: "" }).message, /changes the schema/);
  });

  it("Enter and Escape on the Clear dialog keep the conversation; only Clear clears", () => {
    const p = clearPrompt();
    const keys = modalKeys(p.items);
    assert.equal(keys.buttons[0], NO);
    assert.equal(clearChosen(keys.enter), false);
    assert.equal(clearChosen(keys.escape), false);
    assert.equal(clearChosen(p.items.find((i) => i.title === CLEAR)), true);
    assert.match(p.detail, /No \(Enter, Escape\) keeps them/);
  });

  it("the model of VS Code's modal: a close-affordance first item would make the next one primary", () => {
    // Why the safe choice is not marked isCloseAffordance.
    const keys = modalKeys([{ title: REJECT, isCloseAffordance: true }, { title: ALLOW_ONCE }]);
    assert.equal(keys.enter?.title, ALLOW_ONCE);
    assert.equal(keys.escape?.title, REJECT);
    assert.deepEqual(keys.buttons, [ALLOW_ONCE, REJECT]);
  });
});

describe("load session pick", () => {
  const now = new Date(2026, 10, 22, 15, 0);
  it("each session by its first question and when, newest first; open a file last", () => {
    const items = sessionItems(
      [
        { path: "/h/sessions/session_1.json", created: new Date(2026, 10, 22, 9, 10).toISOString(), updated: new Date(2026, 10, 22, 9, 15).toISOString(), source: "shop", databaseType: "postgresql", turns: 2, firstQuestion: "Which customers\nordered most last week?" },
        { path: "/h/sessions/session_0.json", updated: new Date(2026, 10, 21, 18, 0).toISOString(), source: "", databaseType: "", turns: 1, firstQuestion: "x".repeat(200) },
        { path: "/h/sessions/broken.json", updated: new Date(2026, 10, 2, 8, 5).toISOString(), source: "", databaseType: "", turns: 0, firstQuestion: "", error: "The file is not a session." },
        { path: "/h/sessions/empty.json", source: "demo", databaseType: "sqlite", turns: 0, firstQuestion: "" },
      ],
      now,
    );
    assert.deepEqual(items[0], { label: "Which customers ordered most last week?", description: "today 09:15", detail: "shop · 2 questions · session_1.json", path: "/h/sessions/session_1.json" });
    assert.equal(items[1].description, "yesterday 18:00");
    assert.equal(items[1].label.length, 80);
    assert.ok(items[1].label.endsWith("…"));
    assert.equal(items[1].detail, "no database · 1 question · session_0.json");
    assert.deepEqual(items[2], { label: "$(warning) broken.json", description: "2026-11-02 08:05", detail: "The file is not a session.", path: "/h/sessions/broken.json" });
    assert.equal(items[3].label, "(no questions)");
    assert.equal(items[3].description, "");
    assert.equal(items[4].path, undefined, "the last entry opens a file");
    assert.match(items[4].label, /Open a session file/);
    assert.equal(sessionItems([], now).length, 1);
    const raw = sessionItems([{ path: "/h/s/zero.json", source: "", databaseType: "", turns: 0, firstQuestion: "", error: "the file is empty" }], now);
    assert.equal(raw[0].detail, "The file is empty.", "the reason, without the steps that led to it");
  });

  it("when: bad or missing times say nothing", () => {
    assert.equal(when(undefined, now), "");
    assert.equal(when("not a time", now), "");
  });
});

describe("source pick", () => {
  it("describes type, host:port and database; marks the current one; offers no database last", () => {
    assert.equal(describeSource({ name: "shop", type: "postgresql", host: "db", port: 5432, database: "shop" }), "postgresql · db:5432 · shop");
    assert.equal(describeSource({ name: "local", type: "sqlite", database: "/x.db" }), "sqlite · /x.db");
    const items = sourceItems([{ name: "demo", type: "sqlite" }, { name: "shop", type: "mysql", host: "h" }], "demo");
    assert.deepEqual(items.map((i) => [i.label, i.name]), [["$(check) demo", "demo"], ["shop", "shop"], ["No database", ""]]);
  });
});

describe("messages from the view", () => {
  it("accepts the known shapes and nothing else", () => {
    assert.deepEqual(parseFromView({ type: "ready" }), { type: "ready" });
    assert.deepEqual(parseFromView({ type: "ask", query: "q", extra: 1 }), { type: "ask", query: "q" });
    assert.deepEqual(parseFromView({ type: "insert", text: "SELECT 1" }), { type: "insert", text: "SELECT 1" });
    assert.equal(parseFromView({ type: "ask", query: 3 }), undefined);
    assert.deepEqual(parseFromView({ type: "runSql", sql: "SELECT 1" }), { type: "runSql", sql: "SELECT 1" });
    assert.equal(parseFromView({ type: "runSql", sql: ["SELECT 1"] }), undefined);
    const st = { sql: "SELECT 1 AS a", columns: ["a"], rows: [[1]], rowCount: 1, truncated: false, callId: "c1", extra: "<b>" };
    assert.deepEqual(parseFromView({ type: "openResult", statement: st }), {
      type: "openResult",
      statement: { sql: "SELECT 1 AS a", status: "success", columns: ["a"], rows: [[1]], rowCount: 1, truncated: false, callId: "c1" },
    });
    assert.equal(parseFromView({ type: "exportResult", statement: { ...st, rows: [[1, 2]] } }), undefined, "a row that does not match the columns");
    assert.equal(parseFromView({ type: "openResult", statement: { ...st, columns: [1] } }), undefined, "a column that is not a name");
    assert.deepEqual(parseFromView({ type: "confirmAnswer", id: 3, decision: "allow_once" }), { type: "confirmAnswer", id: 3, decision: "allow_once" });
    assert.equal(parseFromView({ type: "confirmAnswer", id: 3, decision: "allow_everything" }), undefined, "only the three decisions");
    assert.equal(parseFromView({ type: "confirmAnswer", id: "3", decision: "reject" }), undefined);
    assert.equal(parseFromView({ type: "copy" }), undefined);
    assert.equal(parseFromView({ type: "run", text: "rm -rf" }), undefined);
    assert.equal(parseFromView(null), undefined);
    assert.equal(parseFromView("ready"), undefined);
  });
});

describe("errors and stderr", () => {
  it("shown errors are not shown again; user errors are warnings", () => {
    assert.equal(presentError(new ReportedError("x")).level, "none");
    assert.deepEqual(presentError(new UserError("wait")), { level: "warning", message: "wait" });
    assert.deepEqual(presentError(new Error("boom")), { level: "error", message: "boom" });
    assert.deepEqual(presentError("plain"), { level: "error", message: "plain" });
  });

  it("a server error shows its message without the method; its code and data go to the log", () => {
    const err = new ResponseError(-32020, "chat/turn: run turn: model request 1: status 500", { detail: "x" });
    assert.equal(messageOf(err), "Run turn: model request 1: status 500");
    assert.deepEqual(presentError(err), { level: "error", message: "Run turn: model request 1: status 500" });
    assert.equal(detailOf(err), 'error -32020: chat/turn: run turn: model request 1: status 500 {"detail":"x"}');
    assert.equal(messageOf(new ResponseError(-32001, "session/load: The file is gone.")), "The file is gone.");
    assert.equal(messageOf(new ResponseError(-32001, "The file is gone.")), "The file is gone.");
    assert.equal(messageOf(new Error("Error: kept as is")), "Error: kept as is");
  });

  it("a model's failure in the panel says how to check the set-up", () => {
    assert.equal(
      turnErrorMessage(new ResponseError(-32021, "chat/turn: No model is configured: set llm.url.")),
      "No model is configured: set llm.url. " + DOCTOR_HINT,
    );
    assert.ok(turnErrorMessage(new ResponseError(-32020, "The model could not answer: HTTP 401.")).endsWith(DOCTOR_HINT));
    assert.equal(turnErrorMessage(new ResponseError(-32001, "The file is gone.")), "The file is gone.");
  });

  it("keeps the last bytes of stderr", () => {
    const t = new StderrTail(10);
    t.append("0123456789");
    t.append("abc");
    assert.equal(t.toString(), "3456789abc");
  });
});

describe("withRows", () => {
  it("gives a statement whose rows were sent before the rows the user saw, and leaves another as it is", () => {
    const seen = { sql: "SELECT 1", status: "running" as const, columns: ["a"], rows: [[1], [2]] };
    const final = { sql: "SELECT 1", status: "success" as const, columns: ["a"], rowCount: 2, rowsSent: true, callId: "c" };
    assert.deepEqual(withRows(final, seen), { sql: "SELECT 1", status: "success", columns: ["a"], rowCount: 2, callId: "c", rows: [[1], [2]] });
    assert.deepEqual(withRows(final, undefined).rows, [], "no page seen: no rows, not undefined");
    const whole = { sql: "SELECT 1", status: "success" as const, columns: ["a"], rows: [[3]] };
    assert.equal(withRows(whole, seen), whole);
  });
});
