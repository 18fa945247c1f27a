// Sessions in a real VS Code: Save, Load, Show History and Clear, with the
// SQL and tables a conversation ran, and dialogs whose Enter is the safe
// answer. Run with `npm run e2e` (after install-code-server.sh).

import * as assert from "node:assert/strict";
import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, afterEach, before, it } from "node:test";
import { promisify } from "node:util";
import type { Locator } from "playwright-core";
import { aiqRpcBinary, childEnv, WAIT_MS } from "../support/aiqRpc";
import type { Step } from "../support/scriptedModel";
import { ask, dialog, e2eSuite, notification, openPanel, runCommand, startVsCode, testFailed, turn, type VsCode } from "./codeServer";

const STATUS_Q = "How many orders per status?";
const STATUS_SQL = "SELECT status, count(*) AS orders FROM orders GROUP BY status ORDER BY orders DESC";
const CITY_Q = "Which cities have the most customers?";
const CITY_SQL = "SELECT city, count(*) AS customers FROM customers GROUP BY city ORDER BY customers DESC LIMIT 5";

const FOLLOW_SQL_AFTER_LOAD = "SELECT city, count(*) AS customers FROM customers GROUP BY city ORDER BY customers LIMIT 5";
const MASKED_Q = "Who are the first 100 customers?";
const MASKED_SQL = "SELECT id, name, email FROM customers ORDER BY id LIMIT 100";

const turnSteps = (sql: string, answer: string): Step[] => [
  { toolCalls: [{ id: "q", name: "execute_sql", arguments: { sql } }] },
  { text: [answer] },
];

e2eSuite("AIQ sessions in code-server", () => {
  let vs: VsCode;

  before(async () => {
    vs = await startVsCode();
    await openPanel(vs);
    vs.model.reset(...turnSteps(STATUS_SQL, "Most orders are delivered."));
    await ask(vs, STATUS_Q);
    await turnEnd(STATUS_Q, "Most orders are delivered.");
  });
  after(async () => {
    await vs?.close();
  });
  afterEach(async (t) => {
    if (testFailed(t)) await vs?.failed(t.name);
    await vs.page.keyboard.press("Escape");
  });

  /**
   * Waits for the turn of question to end with answer. The turn must be there first: before the panel
   * draws it, its spinner is "detached" too, and a test would go on while the model still answers.
   */
  async function turnEnd(question: string, answer: string): Promise<void> {
    const t = turn(vs, question);
    await t.locator(".answer", { hasText: answer }).waitFor();
    await t.locator(".status").waitFor({ state: "detached" });
  }

  /** A turn as history shows it: question, answer, and the SQL with its table. */
  async function assertTurnWithSql(t: Locator, sql: string, columns: string[], answer: RegExp): Promise<void> {
    await t.waitFor();
    assert.match((await t.locator(".answer").textContent()) ?? "", answer);
    assert.equal((await t.locator(".code-block.statement").textContent())?.includes(sql), true, "the SQL it ran is shown");
    assert.deepEqual(await t.locator("table.data thead th").allTextContents(), columns, "and its table");
    // A panel drawn from its saved state (after a reload) has no rows until the history brings them.
    await t.locator("table.data tbody tr").first().waitFor();
    assert.ok((await t.locator("table.data tbody tr").count()) > 0, "with rows");
  }

  it("saves the conversation to a file the AIQ CLI continues", async () => {
    await runCommand(vs.page, "AIQ: Save Session");
    const toast = notification(vs.page, "AIQ saved the conversation to");
    await toast.waitFor();
    const file = /saved the conversation to (\S+?\.json)/.exec((await toast.textContent()) ?? "")?.[1];
    assert.ok(file && fs.existsSync(file), `the saved file exists: ${file}`);
    assert.match((await toast.textContent()) ?? "", /aiq -s /, "the message says how to continue");
    const saved = JSON.parse(fs.readFileSync(file, "utf8"));
    assert.equal(saved.metadata.data_source, "demo");
    assert.ok(JSON.stringify(saved.raw_messages).includes(STATUS_SQL), "with the SQL that ran");
  });

  it("loads a session started in the terminal, listed by its first question", async () => {
    // A session of `aiq-rpc ask`, as a terminal user leaves one.
    vs.model.reset(...turnSteps(CITY_SQL, "Berlin has the most customers."));
    await promisify(execFile)(await aiqRpcBinary(), ["ask", "--home", vs.home, CITY_Q], { env: childEnv() });

    await runCommand(vs.page, "AIQ: Load Session...");
    await vs.page.locator(".quick-input-list .monaco-list-row", { hasText: CITY_Q }).click();
    await assertTurnWithSql(turn(vs, CITY_Q), CITY_SQL, ["city", "customers"], /Berlin has the most customers\./);
    assert.equal(await turn(vs, STATUS_Q).count(), 0, "the loaded session replaces the conversation");
  });

  it("shows the history of the loaded session and the turn asked since, each with its SQL and table", async () => {
    const FOLLOW_Q = "And which cities have the fewest?";
    const FOLLOW_SQL = FOLLOW_SQL_AFTER_LOAD;
    vs.model.reset(...turnSteps(FOLLOW_SQL, "Lyon has the fewest."));
    await ask(vs, FOLLOW_Q);
    await turnEnd(FOLLOW_Q, "Lyon has the fewest.");

    await runCommand(vs.page, "AIQ: Show History");
    await assertTurnWithSql(turn(vs, CITY_Q), CITY_SQL, ["city", "customers"], /Berlin has the most customers\./);
    await assertTurnWithSql(turn(vs, FOLLOW_Q), FOLLOW_SQL, ["city", "customers"], /Lyon has the fewest\./);
    assert.deepEqual(await vs.chat.locator("section.turn .question").allTextContents(), [`You${CITY_Q}`, `You${FOLLOW_Q}`]);
  });

  it("brings the last conversation back after a window reload, scrolled to its end, each result as the user saw it", async () => {
    const FOLLOW_Q = "And which cities have the fewest?";
    // A masked column: the model reads tokens, the panel shows the real values, and so must the panel after the reload.
    const demo = path.join(vs.home, "demo.sqlite");
    fs.writeFileSync(path.join(vs.home, "config", "sources.yaml"), `- name: demo\n  type: sqlite\n  database: ${JSON.stringify(demo)}\n  mask:\n    - customers.email\n`);
    vs.model.reset(...turnSteps(MASKED_SQL, "Here are the first 100."));
    await ask(vs, MASKED_Q);
    await turnEnd(MASKED_Q, "Here are the first 100.");
    const toModel = JSON.stringify(vs.model.requests[vs.model.requests.length - 1]);
    assert.match(toModel, /<masked:email:[0-9a-f]+>/, "the model read tokens for the masked column");
    const masked = turn(vs, MASKED_Q);
    const emails = async () => masked.locator("table.data tbody tr td:nth-child(3)").allTextContents();
    const seenEmails = await emails();
    assert.ok(seenEmails.length > 0 && seenEmails.every((e) => e.includes("@") && !e.includes("<masked:")), `the panel shows real values: ${seenEmails.slice(0, 3)}`);
    assert.ok(seenEmails.every((e) => !toModel.includes(e)), "no value the panel shows reached the model");
    const seenMeta = (await masked.locator(".result-rows").textContent()) ?? "";
    assert.equal(seenMeta, "100 rows");

    await turn(vs, FOLLOW_Q).locator("button.open-result").first().click();
    const tab = vs.page.frameLocator('iframe.webview[src*="extensionId=aiq.aiq"]:not([src*="purpose=webviewView"])').last().frameLocator("#active-frame");
    await tab.locator("table.grid thead th", { hasText: /^city$/ }).waitFor();
    const tabRows = async () => (await tab.locator("table.grid tbody").textContent()) ?? "";
    const shownInTab = await tabRows();
    await runCommand(vs.page, "Developer: Reload Window");
    await vs.page.locator(".monaco-workbench .part.activitybar").waitFor();
    // VS Code shows the side bar's last view, AIQ, again by itself.
    await vs.chat.locator("textarea.ask-input").waitFor();
    await assertTurnWithSql(turn(vs, FOLLOW_Q), FOLLOW_SQL_AFTER_LOAD, ["city", "customers"], /Lyon has the fewest\./);
    assert.deepEqual(await vs.chat.locator("section.turn .question").allTextContents(), [`You${CITY_Q}`, `You${FOLLOW_Q}`, `You${MASKED_Q}`]);
    // The masked result as it was seen: the real values, every row, and the count (the session file keeps tokens and fewer rows).
    await masked.locator("table.data").waitFor();
    assert.deepEqual(await emails(), seenEmails, "the restored result shows the real values the user saw");
    assert.equal(await masked.locator(".result-rows").textContent(), seenMeta, "and says the same row count");
    const atEnd = async () =>
      vs.chat.locator("main.conversation").evaluate((c) => c.scrollHeight - c.scrollTop - c.clientHeight < 2 || c.scrollHeight <= c.clientHeight);
    // The panel draws once the replay pauses: wait for that (a hang trips the deadline).
    const deadline = Date.now() + WAIT_MS;
    while (!(await atEnd()) && Date.now() < deadline) await vs.page.waitForTimeout(200);
    assert.equal(await atEnd(), true, "the panel shows the end of the conversation");

    // The server holds the restored session: its own history is the same turns.
    await runCommand(vs.page, "AIQ: Show History");
    await vs.page.waitForTimeout(1000);
    assert.deepEqual(await vs.chat.locator("section.turn .question").allTextContents(), [`You${CITY_Q}`, `You${FOLLOW_Q}`, `You${MASKED_Q}`]);
    // The result tab came back too, its rows from the server (its state keeps no rows), as they were.
    await tab.locator("table.grid thead th", { hasText: /^city$/ }).waitFor();
    await waitUntil(async () => (await tabRows()) === shownInTab, "the tab's rows to come back");
    // Its Run again runs the statement and shows the new result in it: one more customer in the city of its first row changes it.
    const city = ((await tab.locator("table.grid tbody tr").first().locator("td").first().textContent()) ?? "").replace(/'/g, "''");
    const ADD_Q = "Add a customer in that city";
    vs.model.reset(
      { toolCalls: [{ id: "w", name: "execute_sql", arguments: { sql: `INSERT INTO customers (name, email, city, country, created_at) VALUES ('Ann New', 'ann.new@example.org', '${city}', 'Nowhere', '2026-01-01')` } }] },
      { text: ["Added."] },
    );
    await ask(vs, ADD_Q);
    await vs.chat.locator(".confirm").getByRole("button", { name: "Allow once" }).click();
    await turnEnd(ADD_Q, "Added.");
    const turns = vs.chat.locator("section.turn");
    const before = await turns.count();
    await tab.locator("button.run-again").click();
    await waitUntil(async () => (await turns.count()) === before + 1, "the Run again turn in the panel");
    await turns.nth(before).locator(".status").waitFor({ state: "detached" });
    await waitUntil(async () => (await tabRows()) !== shownInTab, "the tab to show the new result");
    assert.notEqual(await tabRows(), shownInTab, "Run again refreshed the tab");
    await runCommand(vs.page, "View: Close All Editors");
  });

  /** Polls cond until it holds; fails with what after WAIT_MS (only a hang reaches it). */
  async function waitUntil(cond: () => Promise<boolean>, what: string): Promise<void> {
    const deadline = Date.now() + WAIT_MS;
    while (!(await cond())) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await vs.page.waitForTimeout(50);
    }
  }

  it("keeps the conversation when the Clear dialog gets Enter or Escape, and clears on Clear", async () => {
    const confirm = dialog(vs.page);
    const turns = await vs.chat.locator("section.turn").count();
    for (const key of ["Enter", "Escape"]) {
      await runCommand(vs.page, "AIQ: Clear Conversation");
      await confirm.waitFor();
      await vs.page.keyboard.press(key);
      await confirm.waitFor({ state: "hidden" });
      // Let a clear, if one was wrongly started, reach the panel.
      await vs.page.waitForTimeout(500);
      assert.equal(await vs.chat.locator("section.turn").count(), turns, `${key} keeps the conversation`);
    }
    await runCommand(vs.page, "AIQ: Clear Conversation");
    await confirm.getByRole("button", { name: "Clear" }).click();
    await vs.chat.locator(".empty").waitFor();
    assert.equal(await vs.chat.locator("section.turn").count(), 0, "Clear empties the panel");
  });
});
