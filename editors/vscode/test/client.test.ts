// src/client.ts against the real aiq-rpc and a scripted model.

import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, afterEach, before, describe, it } from "node:test";
import { AiqClient, CancellationTokenSource, ServerExitedError, StartError, type ClientHandlers, type ExitInfo } from "../src/client";
import type { ProgressEvent } from "../src/messages";
import type { ConfigChangedParams, ConfirmDecision, ConfirmParams } from "../src/protocol";
import { INSTALL_COMMAND } from "../src/serverExit";
import { aiqRpcBinary, childEnv, makeHome, tempDir, WAIT_MS, waitFor, within } from "./support/aiqRpc";
import { ScriptedModel, type Step } from "./support/scriptedModel";

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

/** A client on a fresh home whose model answers with steps. */
async function setup(steps: Step[], handlers: ClientHandlers = {}, home?: string) {
  const model = await ScriptedModel.start(...steps);
  cleanups.push(() => model.close());
  if (!home) {
    home = makeHome(model.url);
    const h = home;
    cleanups.push(() => fs.rmSync(h, { recursive: true, force: true }));
  }
  const client = await start(home, handlers);
  return { model, home, client };
}

async function start(home: string, handlers: ClientHandlers = {}) {
  const client = await AiqClient.start({
    spawn: { command: binary, args: ["--home", home], env: childEnv() },
    clientVersion: "0.1.0-test",
    handlers,
  });
  cleanups.push(async () => {
    await client.shutdown();
  });
  return client;
}

/** Runs a turn and records its progress events and, last, its result, in arrival order. */
async function ask(client: AiqClient, sessionId: string, query: string, token?: CancellationTokenSource) {
  const seen: (ProgressEvent | "result")[] = [];
  const result = await client.turn({ sessionId, query }, { onProgress: (e) => seen.push(e), token: token?.token });
  seen.push("result");
  return { result, seen, events: seen.filter((e): e is ProgressEvent => e !== "result") };
}

describe("AiqClient with the real aiq-rpc", () => {
  it("initializes as aiq.vscode, with confirm, and reports the home", async () => {
    const lines: string[] = [];
    const model = await ScriptedModel.start();
    cleanups.push(() => model.close());
    const home = makeHome(model.url);
    const client = await AiqClient.start({
      spawn: { command: binary, args: ["--home", home], env: childEnv() },
      trace: "verbose",
      handlers: { trace: (l) => lines.push(l) },
    });
    cleanups.push(async () => void (await client.shutdown()));
    assert.equal(client.info.protocolVersion, 1);
    assert.equal(client.info.home, home);
    assert.equal(client.info.modelConfigured, true);
    const wire = lines.join("\n");
    assert.match(wire, /Sending request 'initialize/);
    assert.match(wire, /"name": "aiq.vscode"/);
    assert.match(wire, /"confirm": true/);
    assert.doesNotMatch(wire, /sk-test-never-shown/, "the api key never crosses the wire");
  });

  it("streams text as several progress events in order, then the result", async () => {
    const pieces = ["The demo ", "database ", "sells ", "things."];
    const { client } = await setup([{ text: pieces, paceMs: 120 }]);
    const s = await client.newSession();
    const { result, seen, events } = await ask(client, s.sessionId, "What is in the demo?");
    assert.equal(result.stopReason, "end_turn");
    assert.equal(result.answer, pieces.join(""));
    const texts = events.filter((e) => e.kind === "text");
    assert.ok(texts.length >= 2, `several text events, got ${texts.length}`);
    assert.equal(texts.map((e) => e.text).join(""), pieces.join(""), "the pieces in order");
    assert.equal(seen[seen.length - 1], "result", "every progress event before the result");
    assert.ok(events.every((e) => e.sessionId === s.sessionId));
  });

  it("runs the model's execute_sql on the demo database and returns real rows", async () => {
    const sql = "SELECT status, count(*) AS n FROM orders GROUP BY status ORDER BY status";
    const { client, model } = await setup([
      { toolCalls: [{ id: "call_1", name: "execute_sql", arguments: { sql } }] },
      { text: ["Four ", "statuses."] },
    ]);
    const s = await client.newSession();
    assert.equal(s.source, "demo");
    const { result, events } = await ask(client, s.sessionId, "Orders per status?");
    const call = events.find((e) => e.kind === "tool_call");
    assert.equal(call?.sql, sql);
    const res = events.find((e) => e.kind === "tool_result");
    assert.equal(res?.statement?.status, "success");
    assert.equal(result.statements.length, 1);
    const st = result.statements[0];
    assert.equal(st.status, "success");
    assert.deepEqual(st.columns, ["status", "n"]);
    // The page went once, in the tool_result; the response refers to it (rowsOnce).
    assert.equal(st.rowsSent, true);
    assert.equal(st.rows, undefined);
    assert.equal(st.callId, res?.callId);
    const rows = res?.statement?.rows;
    assert.ok((rows?.length ?? 0) > 0, "rows from the demo");
    const total = rows!.reduce((sum, r) => sum + Number(r[1]), 0);
    assert.ok(total > 0, "the orders are counted");
    const toolMsg = model.requests[1].body.messages.find((m) => m.role === "tool");
    assert.match(String(toolMsg?.content), /"success"/, "the model got the result");
  });

  it("asks chat/confirm before a write: reject changes nothing, allow_once changes", async () => {
    const decisions: ConfirmDecision[] = ["reject", "allow_once"];
    const asked: ConfirmParams[] = [];
    const count = "SELECT count(*) AS n FROM order_items";
    const del = "DELETE FROM order_items";
    const { client } = await setup(
      [
        { toolCalls: [{ id: "c1", name: "execute_sql", arguments: { sql: del } }] },
        { toolCalls: [{ id: "c2", name: "execute_sql", arguments: { sql: count } }] },
        { text: ["Nothing ", "deleted."] },
        { toolCalls: [{ id: "c3", name: "execute_sql", arguments: { sql: del } }] },
        { toolCalls: [{ id: "c4", name: "execute_sql", arguments: { sql: count } }] },
        { text: ["All ", "gone."] },
      ],
      {
        confirm: (p) => {
          asked.push(p);
          return decisions.shift()!;
        },
      },
    );
    const s = await client.newSession();

    const first = await ask(client, s.sessionId, "Delete the order items");
    assert.equal(asked.length, 1);
    assert.equal(asked[0].sql, del);
    assert.equal(asked[0].sessionId, s.sessionId);
    assert.equal(first.result.statements[0].status, "rejected");
    const rowsOf = (events: ProgressEvent[], callId: string) => events.find((e) => e.kind === "tool_result" && e.callId === callId)?.statement?.rows;
    const before = Number(rowsOf(first.events, "c2")![0][0]);
    assert.ok(before > 0, "the rows are still there after a reject");

    const second = await ask(client, s.sessionId, "Delete them, really");
    assert.equal(asked.length, 2);
    assert.equal(second.result.statements[0].status, "success");
    assert.equal(second.result.statements[0].rowCount, before, "every row deleted");
    assert.equal(Number(rowsOf(second.events, "c4")![0][0]), 0);
  });

  it("allow_always covers the same shape only; chat/allowances lists it and chat/revoke ends it", async () => {
    const asked: ConfirmParams[] = [];
    const call = (id: string, sql: string) => ({ toolCalls: [{ id, name: "execute_sql", arguments: { sql } }] });
    const { client } = await setup(
      [
        call("c1", "DELETE FROM order_items WHERE order_id = 1"),
        call("c2", "DELETE FROM order_items WHERE order_id = 2"),
        call("c3", "DELETE FROM order_items"),
        { text: ["Done."] },
      ],
      {
        confirm: (p) => {
          asked.push(p);
          return asked.length === 1 ? "allow_always" : "reject";
        },
      },
    );
    const s = await client.newSession();
    const { result } = await ask(client, s.sessionId, "Delete some order items");
    assert.deepEqual(result.statements.map((st) => st.status), ["success", "success", "rejected"]);
    assert.deepEqual(asked.map((p) => [p.sql, p.scope]), [
      ["DELETE FROM order_items WHERE order_id = 1", "Allow DELETE on order_items, up to 10 rows at a time, for this conversation"],
      ["DELETE FROM order_items", undefined],
    ]);
    assert.equal(asked[1].dryRun, "ok", "the DELETE was counted before it was asked about");
    assert.ok((asked[1].affectedRows ?? 0) > 0, `rows counted: ${asked[1].affectedRows}`);
    const list = await client.allowances(s.sessionId);
    assert.deepEqual(list.map((a) => a.scope), ["Allow DELETE on order_items, up to 10 rows at a time, for this conversation"]);
    assert.deepEqual(await client.revoke(s.sessionId, list[0].id), []);
    assert.deepEqual(await client.allowances(s.sessionId), []);
  });

  it("cancels a held turn: $/cancelRequest gives stopReason cancelled", async () => {
    const { client, model } = await setup([{ hold: true }]);
    const s = await client.newSession();
    const cts = new CancellationTokenSource();
    const turn = client.turn({ sessionId: s.sessionId, query: "Take your time" }, { token: cts.token });
    await waitFor(() => model.requests.length === 1, "the model to be asked");
    cts.cancel();
    // The model holds its answer until the stream closes: any answer at
    // all means the cancel reached it. How fast is the benchmarks' business.
    const result = await within(turn, WAIT_MS, "the cancelled turn's answer");
    assert.equal(result.stopReason, "cancelled");
    await within(model.heldClosed, WAIT_MS, "the model stream to close");
    const history = await client.history(s.sessionId);
    assert.equal(history.length, 0, "a cancelled turn leaves the session as it was");
  });

  it("gives the history, clears it, and a save loads in a new process", async () => {
    const { client, home } = await setup([{ text: ["Hello ", "there."] }]);
    const s = await client.newSession();
    const { result } = await ask(client, s.sessionId, "Say hello");
    assert.ok(result.savedTo.startsWith(path.join(home, "sessions")), `saved in the home: ${result.savedTo}`);

    const history = await client.history(s.sessionId);
    assert.deepEqual(history.map((t) => [t.role, t.content]), [["user", "Say hello"], ["assistant", "Hello there."]]);

    const saved = await client.save(s.sessionId);
    assert.equal(saved.path, result.savedTo);
    assert.match(saved.hint, /aiq -s/);
    const listed = await client.list();
    assert.equal(listed[0]?.path, saved.path);
    assert.equal(listed[0]?.firstQuestion, "Say hello");
    const latest = await client.list(listed[0]?.source);
    assert.deepEqual(latest.map((l) => [l.path, l.latest]), [[saved.path, true]]);
    assert.deepEqual(await client.list("no such source"), []);
    await client.shutdown();

    const other = await start(home);
    const loaded = await other.load(saved.path);
    assert.equal(loaded.sourceAvailable, true);
    assert.equal(loaded.turns, 1);
    const again = await other.history(loaded.sessionId);
    assert.deepEqual(again.map((t) => t.content), ["Say hello", "Hello there."]);

    const cleared = await other.clear(loaded.sessionId);
    assert.equal(cleared.path, saved.path);
    assert.deepEqual(await other.history(loaded.sessionId), []);
  });

  it("lists the endpoint's models, picks one for the session, and hears config/changed", async () => {
    const changes: ConfigChangedParams[] = [];
    const { client, model, home } = await setup([{ text: ["From b."] }, { text: ["From the new one."] }], {
      configChanged: (p) => changes.push(p),
    });
    model.models = ["b-model", "test-model"];
    const s = await client.newSession();
    const list = await client.models(s.sessionId);
    assert.deepEqual(list.models, ["test-model", "b-model"]);
    assert.equal(list.current, "test-model");
    assert.equal((await client.setModel(s.sessionId, "b-model")).current, "b-model");
    await ask(client, s.sessionId, "hi?");
    assert.equal(model.requests[0].body.model, "b-model");
    await assert.rejects(client.setModel(s.sessionId, "gpt-9"), /test-model, b-model/);

    fs.writeFileSync(path.join(home, "config", "config.yaml"), `llm:\n  url: ${model.url}\n  api_key: sk-test-never-shown\n  model: new-model\n`);
    const second = await client.newSession();
    await ask(client, second.sessionId, "and now?");
    assert.equal(model.requests[1].body.model, "new-model", "the changed config.yaml is used without a restart");
    assert.ok(changes.some((c) => c.modelConfigured), "config/changed arrived");
  });

  it("lists the sources: the demo when none is configured", async () => {
    const { client } = await setup([]);
    const sources = await client.sources();
    assert.deepEqual(sources.map((s) => s.name), ["demo"]);
    assert.equal(sources[0].type, "sqlite");
    const s = await client.newSession();
    const changed = await client.setSource(s.sessionId, "");
    assert.equal(changed.source, "");
  });

  it("reports the server's exit when it is killed, and later calls fail with ServerExitedError", async () => {
    const exits: ExitInfo[] = [];
    const { client, model } = await setup([{ hold: true }], { exit: (i) => exits.push(i) });
    const s = await client.newSession();
    const turn = client.turn({ sessionId: s.sessionId, query: "Wait" });
    await waitFor(() => model.requests.length === 1, "the model to be asked");
    process.kill(client.pid!, "SIGKILL");
    await assert.rejects(within(turn, WAIT_MS, "the turn to fail"), (err: unknown) => {
      assert.ok(err instanceof ServerExitedError);
      assert.match(err.message, /killed by SIGKILL/);
      assert.match(err.message, /next command restarts it/);
      return true;
    });
    const info = await client.exited;
    assert.equal(info.phase, "running");
    assert.equal(info.signal, "SIGKILL");
    assert.equal(exits.length, 1, "exit reported once");
    assert.equal(client.alive, false);
    await assert.rejects(client.sources(), ServerExitedError);
  });
});

describe("AiqClient start failures", () => {
  it("names a missing absolute path and the install command", async () => {
    const missing = path.join(tempDir("aiq-vscode-missing-"), "no-such-aiq-rpc");
    await assert.rejects(AiqClient.start({ spawn: { command: missing, args: [] } }), (err: unknown) => {
      assert.ok(err instanceof StartError);
      assert.ok(err.message.includes(`"${missing}" was not found`), err.message);
      assert.ok(err.message.includes(INSTALL_COMMAND));
      assert.ok(err.message.includes("aiq.serverPath"));
      assert.equal(err.info?.spawnError?.code, "ENOENT");
      return true;
    });
  });

  it("says a bare name was looked up on PATH", async () => {
    await assert.rejects(
      AiqClient.start({ spawn: { command: "aiq-rpc-not-installed-here", args: [], env: { PATH: "/nonexistent" } } }),
      /"aiq-rpc-not-installed-here" \(looked up on PATH\) was not found/,
    );
  });

  it("shows what a server that dies at start printed on stderr", async () => {
    const dir = tempDir("aiq-vscode-script-");
    after(() => fs.rmSync(dir, { recursive: true, force: true }));
    const script = path.join(dir, "fake-aiq-rpc");
    fs.writeFileSync(script, "#!/bin/sh\necho 'aiq-rpc: read config: yaml: line 3: did not find expected key' >&2\nexit 1\n", { mode: 0o755 });
    await assert.rejects(AiqClient.start({ spawn: { command: script, args: [] } }), (err: unknown) => {
      assert.ok(err instanceof StartError);
      assert.ok(err.message.includes(`"${script}" exited with status 1 before it was ready`), err.message);
      assert.ok(err.message.includes("yaml: line 3: did not find expected key"), err.message);
      assert.ok(err.message.includes(INSTALL_COMMAND));
      return true;
    });
  });

  it("says a file that is not executable is not executable", async () => {
    const dir = tempDir("aiq-vscode-noexec-");
    after(() => fs.rmSync(dir, { recursive: true, force: true }));
    const file = path.join(dir, "aiq-rpc");
    fs.writeFileSync(file, "not a program", { mode: 0o644 });
    await assert.rejects(AiqClient.start({ spawn: { command: file, args: [] } }), /is not executable/);
  });
});
