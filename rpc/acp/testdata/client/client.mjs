// An ACP client built on the official TypeScript SDK, run against the
// built `aiq-rpc acp` by cmd/aiq-rpc's TestACPClient, which scripts the
// model, owns the database and checks what this script cannot see. Each
// step prints "ok - ..."; a failed check throws and exits non-zero. The
// last line is the result, as JSON.
//
// Environment: AIQ_RPC (the binary), AIQ_TEST_HOME, AIQ_TEST_TMP (where the
// model writes "held" when it holds an answer) and AIQ_TEST_CLI_SESSION (a
// session file the AIQ CLI wrote).

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk";

const env = (name) => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: run this through TestACPClient`);
  return value;
};
const tmp = env("AIQ_TEST_TMP");

const agentProcess = spawn(env("AIQ_RPC"), ["acp", "--home", env("AIQ_TEST_HOME"), "--source", "db"], {
  stdio: ["pipe", "pipe", "inherit"],
});
const exited = new Promise((resolve) => agentProcess.on("exit", (code) => resolve(code)));

// What the agent sent, and how permission requests are answered.
const updates = [];
const permissions = [];
let answer = null; // the option id to pick; null cancels the request

const app = acp
  .client()
  .onNotification(acp.methods.client.session.update, ({ params }) => {
    updates.push(params);
  })
  .onRequest(acp.methods.client.session.requestPermission, ({ params }) => {
    permissions.push(params);
    if (answer === null) return { outcome: { outcome: "cancelled" } };
    return { outcome: { outcome: "selected", optionId: answer } };
  });
const connection = app.connect(acp.ndJsonStream(Writable.toWeb(agentProcess.stdin), Readable.toWeb(agentProcess.stdout)));
const agent = connection.agent;

const ok = (what) => console.log(`ok - ${what}`);

// take returns the updates of a session received so far and forgets them.
function take(sessionId) {
  const mine = updates.filter((u) => u.sessionId === sessionId).map((u) => u.update);
  for (let i = updates.length - 1; i >= 0; i--) if (updates[i].sessionId === sessionId) updates.splice(i, 1);
  return mine;
}

const textOf = (list) =>
  list
    .filter((u) => u.sessionUpdate === "agent_message_chunk" && u.content.type === "text")
    .map((u) => u.content.text)
    .join("");

const toolText = (u) => (u.content ?? []).map((c) => c.content?.text ?? "").join("");

// until waits for check to hold; its deadline only stops a hang, since a
// loaded machine can take seconds for what a quiet one does at once.
async function until(what, check, ms = 120000) {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`waited ${ms} ms for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

async function prompt(sessionId, ...blocks) {
  const res = await agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: blocks });
  return { stopReason: res.stopReason, updates: take(sessionId) };
}

const text = (t) => ({ type: "text", text: t });

async function command(sessionId, line) {
  const res = await prompt(sessionId, text(line));
  assert.equal(res.stopReason, "end_turn", `${line} ended with ${res.stopReason}`);
  return textOf(res.updates);
}

// initialize
const init = await agent.request(acp.methods.agent.initialize, {
  protocolVersion: acp.PROTOCOL_VERSION,
  clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
  clientInfo: { name: "aiq-acp-client-test", version: "1.0.0" },
});
assert.equal(init.protocolVersion, 1);
assert.equal(init.agentInfo.title, "AIQ");
assert.equal(init.agentCapabilities.loadSession, true);
assert.equal(init.agentCapabilities.promptCapabilities.embeddedContext, true);
assert.ok(!init.agentCapabilities.promptCapabilities.image, "images are not taken");
assert.deepEqual(init.authMethods, []);
ok("initialize");

// session/new: the id is the session's file
const created = await agent.request(acp.methods.agent.session.new, { cwd: tmp, mcpServers: [] });
const sessionId = created.sessionId;
assert.ok(fs.existsSync(sessionId), `the session id ${sessionId} is not a file`);
assert.equal(created.modes.currentModeId, "db");
await until("the available commands", () =>
  updates.some((u) => u.sessionId === sessionId && u.update.sessionUpdate === "available_commands_update"),
);
const commands = take(sessionId).find((u) => u.sessionUpdate === "available_commands_update");
assert.deepEqual(
  commands.availableCommands.map((c) => c.name),
  ["history", "clear", "source", "save", "sql", "allowances"],
);
ok("session/new");

// a prompt with a text block and an embedded resource
{
  const res = await prompt(sessionId, text("what does this do?"), {
    type: "resource",
    resource: { uri: "file:///work/orders.sql", mimeType: "text/x-sql", text: "SELECT status, count(*) FROM orders GROUP BY status;" },
  });
  assert.equal(res.stopReason, "end_turn");
  const chunks = res.updates.filter((u) => u.sessionUpdate === "agent_message_chunk");
  assert.ok(chunks.length > 1, "the answer did not stream in chunks");
  assert.equal(textOf(res.updates), "Two are delivered, one is pending and one shipped.");
  const call = res.updates.find((u) => u.sessionUpdate === "tool_call");
  assert.equal(call.toolCallId, "call_count");
  assert.equal(call.kind, "read");
  assert.equal(call.title, "SELECT from orders", "the title summarises the statement");
  assert.deepEqual(Object.keys(call.rawInput), ["sql"], "rawInput is the arguments only");
  assert.match(call.rawInput.sql, /GROUP BY status/);
  const done = res.updates.find((u) => u.sessionUpdate === "tool_call_update" && u.status);
  assert.equal(done.toolCallId, "call_count");
  assert.equal(done.status, "completed");
  assert.match(toolText(done), /\| delivered \| 2 \|/);
  assert.match(toolText(done), /\(3 rows\)/);
  assert.ok(toolText(done).startsWith("```sql\nSELECT status, count(*) AS n\nFROM orders"), "the card starts with the SQL");
  const info = res.updates.filter((u) => u.sessionUpdate === "session_info_update");
  assert.deepEqual(info.map((u) => u.title), ["what does this do?"], "the first turn names the session");
  ok("session/prompt streams text, a tool_call and its tool_call_update with the SQL and its rows; the session gets a title");

  // The model gives the same call id in the next turn: the call gets one of
  // its own, in the session and on the card.
  const again = await prompt(sessionId, text("what does this do? once more"));
  const second = again.updates.find((u) => u.sessionUpdate === "tool_call");
  assert.match(second.toolCallId, /^call_aiq_\d+$/);
  assert.equal(again.updates.filter((u) => u.sessionUpdate === "session_info_update").length, 0, "the title is sent once");
  ok("a tool call id is unique across turns");
}

// a write the client rejects, then one it allows
{
  answer = "reject_once";
  const rejected = await prompt(sessionId, text("add order 100"));
  assert.equal(rejected.stopReason, "end_turn");
  assert.equal(permissions.length, 1, "no permission was asked");
  assert.equal(permissions[0].toolCall.toolCallId, "call_100");
  assert.deepEqual(
    permissions[0].options.map((o) => o.kind),
    ["reject_once", "allow_once", "allow_always", "reject_always"],
  );
  assert.equal(
    permissions[0].options.find((o) => o.kind === "allow_always").name,
    "Allow INSERT on orders, up to 10 rows at a time, for this conversation",
    "the always option says what it covers",
  );
  const failed = rejected.updates.find((u) => u.sessionUpdate === "tool_call_update" && u.status);
  assert.equal(failed.status, "failed");
  assert.match(toolText(failed), /Not run/);
  ok("a rejected write does not run");

  answer = "allow_once";
  const allowed = await prompt(sessionId, text("add order 101"));
  assert.equal(allowed.stopReason, "end_turn");
  assert.equal(permissions.length, 2);
  const completed = allowed.updates.find((u) => u.sessionUpdate === "tool_call_update" && u.status);
  assert.equal(completed.status, "completed");
  assert.match(toolText(completed), /1 row\(s\) affected/);
  ok("an allowed write runs");
}

// cancel during a held model answer
{
  const before = await command(sessionId, "/history");
  const held = prompt(sessionId, text("hold this answer"));
  await until("the model to hold its answer", () => fs.existsSync(path.join(tmp, "held")));
  await agent.notify(acp.methods.agent.session.cancel, { sessionId });
  const res = await held;
  assert.equal(res.stopReason, "cancelled");
  assert.equal(await command(sessionId, "/history"), before, "the cancelled turn changed the history");
  ok("session/cancel ends the turn as cancelled, the history unchanged");

  // A prompt sent right after session/cancel is queued, not refused.
  const heldAgain = agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [text("hold this answer too")] });
  await until("the model to hold its answer again", () => fs.existsSync(path.join(tmp, "held2")));
  await agent.notify(acp.methods.agent.session.cancel, { sessionId });
  const next = await agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [text("how many orders now?")] });
  assert.equal(next.stopReason, "end_turn");
  assert.equal((await heldAgain).stopReason, "cancelled");
  take(sessionId);
  const after = await command(sessionId, "/history");
  assert.match(after, /There are five orders\./);
  assert.doesNotMatch(after, /hold this answer too/);
  ok("a prompt right after session/cancel runs once the cancelled one ends");
}

// the slash commands
{
  const history = await command(sessionId, "/history");
  assert.match(history, /\*\*You\*\* · \d{4}-\d\d-\d\d \d\d:\d\d:\d\d/);
  assert.match(history, /what does this do\?/);
  assert.match(history, /Order 101 was added\./);
  ok("/history");

  const sources = await command(sessionId, "/source");
  assert.match(sources, /- `db`: sqlite \(this session's\)/);
  assert.match(sources, /\/source NAME/);
  assert.equal(await command(sessionId, "/source db"), "The data source is now db (sqlite).");
  ok("/source");

  const saved = path.join(tmp, "acp-saved.json");
  assert.equal(await command(sessionId, `/save ${saved}`), `Saved to ${saved}. Run 'aiq -s ${saved}' to continue.`);
  assert.ok(fs.existsSync(saved));
  ok("/save");

  // Loaded again, the conversation replays with every tool call id once.
  await agent.request(acp.methods.agent.session.load, { sessionId: saved, cwd: tmp, mcpServers: [] });
  const ids = take(saved).filter((u) => u.sessionUpdate === "tool_call").map((u) => u.toolCallId);
  assert.ok(ids.includes("call_count") && ids.some((id) => /^call_aiq_\d+$/.test(id)), `replayed ids: ${ids}`);
  assert.equal(new Set(ids).size, ids.length, `a replayed id is used twice: ${ids}`);
  ok("tool call ids stay unique when the session is loaded and replayed");

  const other = (await agent.request(acp.methods.agent.session.new, { cwd: tmp, mcpServers: [] })).sessionId;
  assert.equal(await command(other, "how many orders now?"), "There are five orders.");
  answer = null;
  assert.equal(await command(other, "/clear"), "The conversation was kept.");
  answer = "clear";
  assert.equal(await command(other, "/clear"), `The conversation was cleared and saved to ${other}.`);
  assert.equal(await command(other, "/history"), "The conversation is empty.");
  ok("/clear asks first, then empties the conversation");

  // session/list gives the saved sessions with their first question
  const listed = await agent.request(acp.methods.agent.session.list, { cwd: tmp });
  const mine = listed.sessions.find((s) => s.sessionId === sessionId);
  assert.ok(mine, `session/list does not give ${sessionId}`);
  assert.equal(mine.title, "what does this do?");
  assert.ok(!Number.isNaN(Date.parse(mine.updatedAt)), `updatedAt ${mine.updatedAt} is not a time`);
  ok("session/list");

  // session/load of a file the AIQ CLI wrote replays its history
  const cli = env("AIQ_TEST_CLI_SESSION");
  await agent.request(acp.methods.agent.session.load, { sessionId: cli, cwd: tmp, mcpServers: [] });
  const replay = take(cli);
  const users = replay.filter((u) => u.sessionUpdate === "user_message_chunk");
  const calls = replay.filter((u) => u.sessionUpdate === "tool_call");
  assert.ok(users.length > 0, "no question was replayed");
  assert.ok(textOf(replay).length > 0, "no answer was replayed");
  assert.ok(calls.length > 0, "no tool call was replayed");
  for (const c of calls) {
    assert.ok(["completed", "failed"].includes(c.status), `a replayed call is ${c.status}`);
    assert.ok(toolText(c).length > 0, "a replayed call has no result");
  }
  ok(`session/load replays ${users.length} questions and ${calls.length} tool calls`);

  connection.close();
  agentProcess.stdin.end();
  assert.equal(await exited, 0, "the agent did not exit cleanly");
  ok("the agent exits 0 when its input ends");
  console.log(JSON.stringify({ saved }));
}
