// The chat panel in a real VS Code: what a user does with the demo database
// and the scripted model, from the panel, the Command Palette and the
// dialogs. Run with `npm run e2e` (after install-code-server.sh).

import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, afterEach, before, it } from "node:test";
import type { Locator } from "playwright-core";
import { extensionRoot } from "../support/chatPage";
import type { RecordedRequest, Step } from "../support/scriptedModel";
import { aiqRpcBinary, WAIT_MS } from "../support/aiqRpc";
import { ask, dialog, e2eSuite, notification, openFile, openPanel, runCommand, startVsCode, testFailed, turn, type VsCode } from "./codeServer";

const REVENUE_SQL =
  "SELECT p.category, round(sum(oi.quantity * oi.unit_price_cents) / 100.0, 2) AS revenue\n" +
  "FROM order_items oi JOIN products p ON p.id = oi.product_id\nGROUP BY p.category ORDER BY revenue DESC";
const COUNT_SQL = "SELECT count(*) AS orders FROM orders";
const DELETE_SQL = "DELETE FROM orders WHERE status = 'cancelled'";

const BY_STATUS_SQL = "SELECT status, count(*) AS n FROM orders GROUP BY status ORDER BY status";
/** The user's own SQL files, run with AIQ. */
const SQL_FILES = {
  "report.sql": `-- Orders\n${COUNT_SQL};\n\n${BY_STATUS_SQL};\n`,
  "cleanup.sql": `${DELETE_SQL};\n`,
  "touch.sql": "UPDATE orders SET status = status WHERE id = 1;\nUPDATE orders SET status = status WHERE id = 2;\n",
};

const sql = (id: string, statement: string): Step => ({ toolCalls: [{ id, name: "execute_sql", arguments: { sql: statement } }] });

/** What the model got back for its last tool call, as the tool's JSON. */
function lastToolResult(req: RecordedRequest): any {
  const tool = req.body.messages.filter((m) => m.role === "tool").pop();
  assert.ok(tool, "the request carries a tool result");
  // The model gets the result fenced as data (tools.Fence): a sentence, then the JSON between <data-TOKEN> lines.
  const m = /\n<data-([0-9a-f]{16})>\n([\s\S]*)\n<\/data-\1>$/.exec(String(tool.content));
  assert.ok(m, `the tool result is fenced as data: ${String(tool.content).slice(0, 80)}`);
  return JSON.parse(m[2]);
}

// A relative AIQ_SCREENSHOT_DIR is from where npm was started (npm --prefix runs us in editors/vscode).
const screenshotDir = process.env.AIQ_SCREENSHOT_DIR
  ? path.resolve(process.env.INIT_CWD || process.cwd(), process.env.AIQ_SCREENSHOT_DIR)
  : path.join(extensionRoot, "test-output");

/** The ids of the processes running binary (the extension's aiq-rpc; this test process starts no other). */
function processesOf(binary: string): number[] {
  const real = fs.realpathSync(binary);
  return fs.readdirSync("/proc").filter((d) => /^\d+$/.test(d)).filter((d) => {
    try {
      return fs.readlinkSync(`/proc/${d}/exe`) === real;
    } catch {
      return false; // gone, or not ours to read
    }
  }).map(Number);
}

e2eSuite("the AIQ panel in code-server", () => {
  let vs: VsCode;

  before(async () => {
    vs = await startVsCode(SQL_FILES);
    await openPanel(vs);
  });
  after(async () => {
    await vs?.close();
  });
  afterEach(async (t) => {
    if (testFailed(t)) await vs?.failed(t.name);
    // A failed test must not leave a dialog or a question behind for the next one.
    await vs.page.keyboard.press("Escape");
    await vs.page.keyboard.press("Escape");
  });

  /** Asks in the panel and waits for that turn's end; returns the turn. */
  async function askAndWait(question: string, ...steps: Step[]): Promise<Locator> {
    vs.model.reset(...steps);
    const turns = vs.chat.locator("section.turn");
    const t = turns.nth(await turns.count()); // the same question may have been asked before
    await ask(vs, question);
    await t.locator(".question", { hasText: question }).waitFor();
    await t.locator(".status").waitFor({ state: "detached" }); // the turn's spinner goes at its end
    assert.equal(vs.model.remaining, 0, "the model answered every step");
    return t;
  }

  /** The number of orders, asked as a user would: the panel's table cell. */
  async function countOrders(): Promise<number> {
    const t = await askAndWait("How many orders are there?", sql("count", COUNT_SQL), { text: ["Counted."] });
    return Number((await t.locator("table.data tbody td").first().textContent())?.replace(/\D/g, ""));
  }

  it("opens from the activity bar without errors", async () => {
    assert.deepEqual(workbenchErrors(), []);
  });

  it("names the demo database and the model before any question", async () => {
    await vs.chat.locator(".source-name", { hasText: /^demo$/ }).waitFor();
    await vs.chat.locator(".source-model", { hasText: /^· test-model$/ }).waitFor();
  });

  it("shows the model's reasoning as a collapsed Thinking block, and says when the answer was cut short", async () => {
    const t = await askAndWait("Think it over?", { reasoning: ["Counting the ", "orders first."], text: ["The first part of"], finish: "length" });
    const thought = t.locator("details.thought");
    await thought.waitFor();
    assert.equal(await thought.getAttribute("open"), null, "the Thinking block starts collapsed");
    assert.equal((await thought.locator("summary").textContent())?.trim(), "Thinking");
    assert.ok(!(await t.locator(".md").first().textContent())?.includes("Counting"), "the reasoning is not in the answer");
    await thought.locator("summary").click();
    await thought.locator(".thought-text", { hasText: "Counting the orders first." }).waitFor();
    await t.locator(".warning", { hasText: "The model stopped at its output limit; the answer is cut short." }).waitFor();
  });

  it("answers a question about the demo database with tool calls, a table and a chart", async () => {
    const question = "What is the revenue per category?";
    const t = await askAndWait(question,
      { toolCalls: [{ id: "tables", name: "list_tables", arguments: {} }] },
      sql("revenue", REVENUE_SQL),
      { toolCalls: [{ id: "chart", name: "render_chart", arguments: { chart_type: "bar", x: "category", y: "revenue", title: "Revenue per category" } }] },
      { text: ["Electronics brings in ", "the most revenue, ", "Grocery the least."], paceMs: 50 },
    );
    const [, afterTables, afterQuery] = vs.model.requests.slice(-4);
    assert.ok(lastToolResult(afterTables).tables.includes("order_items"), "the model got the demo's tables");
    const result = lastToolResult(afterQuery);
    assert.deepEqual(result.columns, ["category", "revenue"]);

    assert.deepEqual(await t.locator("table.data thead th").allTextContents(), ["category", "revenue"]);
    assert.equal(await t.locator("table.data tbody tr").count(), result.row_count, "a row per category");
    assert.equal(await t.locator("table.data tbody td").first().textContent(), result.rows[0][0]);
    // Chart.js, loaded from the packaged extension under the webview's CSP, draws a bar per category.
    const drawn = await t.locator("figure.chart canvas").evaluate((c) => {
      const chart = (globalThis as any).Chart.getChart(c);
      return { type: chart.config.type, bars: chart.getDatasetMeta(0).data.length };
    });
    assert.deepEqual(drawn, { type: "bar", bars: result.row_count }, "a bar per category");
    assert.match((await t.locator(".code-block.statement").textContent()) ?? "", /GROUP BY p\.category/);
    assert.match((await t.locator(".answer").textContent()) ?? "", /Electronics brings in the most revenue, Grocery the least\./);

    await t.evaluate((el) => el.scrollIntoView({ block: "start" }));
    await shoot("vscode-panel.png", "panel");
    await t.locator(".answer .md").last().evaluate((el) => el.scrollIntoView({ block: "end" }));
    await shoot("vscode-chart.png", "panel");
  });

  /** The write dialog, in the panel. */
  const writeDialog = () => vs.chat.locator(".confirm");

  it("asks before a write in the panel: Escape and Enter reject it, Allow once runs it", async () => {
    const before = await countOrders();
    assert.ok(before > 0);
    const confirm = writeDialog();

    const asked = { Escape: "Please delete the cancelled orders.", Enter: "Delete the cancelled orders now." };
    for (const key of ["Escape", "Enter"] as const) {
      const question = asked[key];
      vs.model.reset(sql("delete", DELETE_SQL), { text: ["Left as it is."] });
      await ask(vs, question);
      await confirm.waitFor();
      assert.match((await confirm.textContent()) ?? "", /DELETE FROM orders WHERE status = 'cancelled'/);
      // The allowance is bounded by the rows its dry run counted, and at least 10.
      const counted = Number(/would remove ([\d,]+) rows?/.exec((await confirm.textContent()) ?? "")?.[1]?.replace(/,/g, ""));
      const bound = Math.max(counted, 10).toLocaleString("en-US");
      assert.ok((await confirm.textContent())?.includes(`"Allow always" covers only this: Allow DELETE on orders, up to ${bound} rows at a time, for this conversation.`), `the scope names ${bound} rows`);
      assert.deepEqual(await confirm.locator(".confirm-buttons button").allTextContents(), ["Reject", "Allow once", "Allow always"]);
      await waitUntil(() => confirm.locator("button", { hasText: "Reject" }).evaluate((b) => b.ownerDocument.activeElement === b), "Reject to have the focus");
      if (key === "Escape") {
        await confirm.evaluate((el) => el.scrollIntoView({ block: "end" }));
        await shoot("vscode-confirm.png", "panel");
      }
      await vs.page.keyboard.press(key);
      await confirm.waitFor({ state: "detached" });
      await turn(vs, question).locator(".answer", { hasText: "Left as it is." }).waitFor();
      assert.equal(lastToolResult(vs.model.requests[vs.model.requests.length - 1]).status, "rejected", `${key} rejects the write`);
    }
    assert.equal(await countOrders(), before, "no order was deleted");

    vs.model.reset(sql("delete", DELETE_SQL), { text: ["Deleted."] });
    const really = "Delete the cancelled orders, really";
    await ask(vs, really);
    await confirm.getByRole("button", { name: "Allow once" }).click();
    await turn(vs, really).locator(".answer", { hasText: "Deleted." }).waitFor();
    const deleted = lastToolResult(vs.model.requests[vs.model.requests.length - 1]);
    assert.equal(deleted.status, "success");
    assert.ok(deleted.row_count > 0, "some orders were cancelled");
    assert.equal(await countOrders(), before - deleted.row_count, "Allow once ran the DELETE");
  });

  it("closes an open write dialog when aiq-rpc dies: one message says the statement did not run and AIQ restarted it", async () => {
    const before = await countOrders();
    const question = "Delete the shipped orders";
    vs.model.reset(sql("delete-shipped", "DELETE FROM orders WHERE status = 'shipped'"), { text: ["Never said."] });
    await ask(vs, question);
    const confirm = writeDialog();
    await confirm.waitFor();
    const pids = processesOf(await aiqRpcBinary());
    assert.equal(pids.length, 1, `one aiq-rpc runs: ${pids}`);
    process.kill(pids[0], "SIGKILL");

    await confirm.waitFor({ state: "detached" });
    const t = turn(vs, question);
    const error = t.locator(".error");
    await error.waitFor();
    assert.match((await error.textContent()) ?? "", /stopped unexpectedly.*AIQ restarted it\..*statement waiting for your answer did not run/s);
    assert.equal(await t.locator(".error, .confirm-closed").count(), 1, "one message");
    assert.equal(await t.locator("button", { hasText: /^Allow/ }).count(), 0, "no Allow button is left");
    await vs.chat.locator("button.stop").waitFor({ state: "hidden" });
    assert.equal(await countOrders(), before, "the DELETE did not run, and the restarted server answers");
    assert.notDeepEqual(processesOf(await aiqRpcBinary()), pids, "a new aiq-rpc");
  });

  it("stops a held answer with AIQ: Cancel or the panel's Stop, and answers the next question", async () => {
    const ways: [string, () => Promise<void>][] = [
      ["A question the model never answers", () => runCommand(vs.page, "AIQ: Cancel")],
      ["Another one it never answers", () => vs.chat.locator("button.stop").click()],
    ];
    for (const [held, stop] of ways) {
      vs.model.reset({ hold: true });
      await ask(vs, held);
      await vs.chat.locator("button.stop").waitFor();
      await stop();
      await vs.model.heldClosed;
      await vs.chat.locator("button.stop").waitFor({ state: "hidden" });
      assert.match((await turn(vs, held).textContent()) ?? "", /Stopped\./, "the turn says it was stopped");
    }
    await askAndWait("Still there?", { text: ["Yes."] });
  });

  it("asks about the editor's selection, with a question the user adds", async () => {
    const editor = await openFile(vs.page, "query.sql");
    await editor.locator(".view-lines").click();
    await vs.page.keyboard.press("Control+A");

    vs.model.reset({ text: ["It counts the products of each category."] });
    await runCommand(vs.page, "AIQ: Ask About Selection");
    const input = vs.page.locator(".quick-input-widget input.input");
    await input.waitFor();
    assert.notEqual(await input.inputValue(), "", "the input box comes prefilled");
    await input.fill("What does this count?");
    await input.press("Enter");
    await turn(vs, "What does this count?").locator(".answer", { hasText: "It counts the products" }).waitFor();
    const user = vs.model.requests[vs.model.requests.length - 1].body.messages.filter((m) => m.role === "user").pop();
    assert.match(String(user?.content), /What does this count\?/);
    assert.match(String(user?.content), /SELECT category, count\(\*\) FROM products GROUP BY category;/);
  });

  it("shows the database's values as text, sorts a table by a header, and inserts the SQL into the editor", async () => {
    const hostile = "<img src=x onerror=alert(1)>";
    const statement = `SELECT '${hostile}' AS label, 2 AS n UNION ALL SELECT 'plain', 1`;
    const question = "Show me a value that looks like HTML";
    const t = await askAndWait(question, sql("html", statement), { text: [`It is \`${hostile}\`.`] });
    assert.equal(await vs.chat.locator("img").count(), 0, "no img element exists");
    assert.ok((await t.locator("table.data td").allTextContents()).includes(hostile), "the value is text in the table");
    assert.ok((await t.locator(".answer .md code").allTextContents()).includes(hostile), "and in the answer");

    await t.getByRole("columnheader", { name: "n", exact: true }).click();
    assert.deepEqual(await t.locator("table.data tbody td:first-child").allTextContents(), ["plain", hostile], "sorted by n, ascending");

    const editor = await openFile(vs.page, "query.sql");
    await editor.locator(".view-lines").click();
    await vs.page.keyboard.press("Control+End");
    await t.locator(".code-block.statement button.insert").click();
    await editor.locator(".view-lines", { hasText: "UNION ALL SELECT 'plain', 1" }).waitFor();
  });

  it("runs a statement again from its block, without the model", async () => {
    const t = await askAndWait("How many orders are there now?", sql("count-again", COUNT_SQL), { text: ["Counted."] });
    const turns = vs.chat.locator("section.turn");
    const before = await turns.count();
    const asked = vs.model.requests.length;
    await t.locator(".code-block.statement button.run-again").click();
    const again = turns.nth(before);
    await again.locator(".code-block", { hasText: COUNT_SQL }).first().waitFor();
    await again.locator("table.data tbody td").first().waitFor();
    await again.locator(".status").waitFor({ state: "detached" });
    assert.equal(vs.model.requests.length, asked, "the model was not asked");
    assert.equal(
      await again.locator("table.data tbody td").first().textContent(),
      await t.locator("table.data tbody td").first().textContent(),
      "the same count",
    );
  });

  it("edits a statement in an untitled SQL editor and runs it with the CodeLens, without the model", async () => {
    const t = await askAndWait("How many orders are there, to edit?", sql("count-edit", COUNT_SQL), { text: ["Counted."] });
    const turns = vs.chat.locator("section.turn");
    const before = await turns.count();
    const asked = vs.model.requests.length;
    await t.locator(".code-block.statement button.edit-sql").click();
    const editor = vs.page.locator(".editor-instance", { has: vs.page.locator(".view-lines", { hasText: COUNT_SQL }) });
    await editor.waitFor();
    await editor.locator(".view-lines").click();
    await vs.page.keyboard.press("Control+End");
    await vs.page.keyboard.type(" WHERE status = 'delivered'");
    await editor.locator(".codelens-decoration a", { hasText: "Run with AIQ" }).click();
    const again = turns.nth(before);
    await again.locator(".code-block", { hasText: "WHERE status = 'delivered'" }).first().waitFor();
    await again.locator("table.data tbody td").first().waitFor();
    await again.locator(".status").waitFor({ state: "detached" });
    assert.equal(vs.model.requests.length, asked, "the model was not asked");
    const delivered = Number((await again.locator("table.data tbody td").first().textContent())?.replace(/\D/g, ""));
    const all = Number((await t.locator("table.data tbody td").first().textContent())?.replace(/\D/g, ""));
    assert.ok(delivered > 0 && delivered < all, `the edited statement ran: ${delivered} of ${all}`);
    await runCommand(vs.page, "View: Revert and Close Editor");
    await runCommand(vs.page, "View: Close All Editors"); // its result tab
  });

  /** The result tab's document (the newest AIQ webview that is not the panel). */
  const resultTab = () => vs.page.frameLocator('iframe.webview[src*="extensionId=aiq.aiq"]:not([src*="purpose=webviewView"])').last().frameLocator("#active-frame");

  it("runs the statement under the cursor of a .sql file with Ctrl+Enter, and each statement with its CodeLens, into the result tab", async () => {
    const editor = await openFile(vs.page, "report.sql");
    await vs.page.locator(".statusbar-item", { hasText: "demo" }).first().waitFor(); // the source it runs on
    const turns = vs.chat.locator("section.turn");
    const before = await turns.count();
    const asked = vs.model.requests.length;

    await editor.locator(".view-line", { hasText: "GROUP BY status" }).click();
    await vs.page.keyboard.press("Control+Enter");
    const byKey = turns.nth(before);
    await byKey.locator(".code-block", { hasText: "GROUP BY status" }).first().waitFor();
    await byKey.locator(".status").waitFor({ state: "detached" });
    await resultTab().locator("table.grid thead th", { hasText: /^status$/ }).waitFor();
    assert.ok((await resultTab().locator("table.grid tbody tr").count()) > 1, "a row per status");
    assert.equal(await editor.locator(".view-line", { hasText: "GROUP BY" }).count(), 1, "Ctrl+Enter ran; it did not insert a line");

    const lenses = editor.locator(".codelens-decoration a", { hasText: "Run with AIQ" });
    assert.equal(await lenses.count(), 2, "a lens above each statement");
    await lenses.first().click();
    const byLens = turns.nth(before + 1);
    await byLens.locator(".code-block", { hasText: COUNT_SQL }).first().waitFor();
    await byLens.locator(".status").waitFor({ state: "detached" });
    await resultTab().locator("table.grid thead th", { hasText: /^orders$/ }).waitFor(); // the same tab, its new result
    assert.equal(vs.model.requests.length, asked, "the model was not asked");
    await shoot("vscode-run-sql-file.png", "window");
    await runCommand(vs.page, "View: Close All Editors");
  });

  it("asks in the panel before a write run from a .sql file, and runs nothing on Reject", async () => {
    const before = await countOrders();
    const editor = await openFile(vs.page, "cleanup.sql");
    await editor.locator(".view-line", { hasText: "DELETE" }).click();
    await vs.page.keyboard.press("Control+Enter");
    const confirm = writeDialog();
    await confirm.waitFor();
    assert.match((await confirm.textContent()) ?? "", /DELETE FROM orders WHERE status = 'cancelled'/);
    const pending = vs.chat.locator("section.turn").last();
    assert.equal(await pending.locator(".code-block.statement").count(), 0, "the statement shows once, in the dialog");
    assert.match((await pending.locator(".status").textContent()) ?? "", /Waiting for your answer/);
    await confirm.getByRole("button", { name: "Reject" }).click();
    await confirm.waitFor({ state: "detached" });
    await pending.locator(".status").waitFor({ state: "detached" });
    assert.equal(await pending.locator("button.run-again").count(), 0, "no Run again for a write that never ran");
    assert.equal(await countOrders(), before, "nothing was deleted");

    // Allow always, then a statement it covers runs without asking, and says so.
    const touch = await openFile(vs.page, "touch.sql");
    await touch.locator(".view-line", { hasText: "id = 1" }).click();
    await vs.page.keyboard.press("Control+Enter");
    await confirm.getByRole("button", { name: "Allow always" }).click();
    const first = vs.chat.locator("section.turn").last();
    await first.locator(".status").waitFor({ state: "detached" });
    assert.equal(await first.locator(".allowed-mark").count(), 0, "the answered one is not marked");
    const turns = vs.chat.locator("section.turn");
    const n = await turns.count();
    await touch.locator(".view-line", { hasText: "id = 2" }).click();
    await vs.page.keyboard.press("Control+Enter");
    const covered = turns.nth(n);
    await covered.locator(".allowed-mark", { hasText: "Allow UPDATE on orders" }).waitFor();
    await covered.locator(".status").waitFor({ state: "detached" });
    assert.equal(await covered.locator(".confirm").count(), 0, "it did not ask");
    await runCommand(vs.page, "AIQ: Show Allowances..."); // picked, it is revoked
    await vs.page.locator(".quick-input-list .monaco-list-row", { hasText: "Allow UPDATE on orders" }).first().click();
    await notification(vs.page, /^Revoked|Revoked\./).first().waitFor();
    await runCommand(vs.page, "View: Close All Editors");
  });

  it("recalls earlier questions with Up and Down in the empty input", async () => {
    await askAndWait("First recalled question?", { text: ["One."] });
    await askAndWait("Second recalled question?", { text: ["Two."] });
    const input = vs.chat.locator("textarea.ask-input");
    await input.click();
    await input.press("ArrowUp");
    assert.equal(await input.inputValue(), "Second recalled question?");
    await input.press("ArrowUp");
    assert.equal(await input.inputValue(), "First recalled question?");
    await input.press("ArrowDown");
    assert.equal(await input.inputValue(), "Second recalled question?");
    await input.press("ArrowDown");
    assert.equal(await input.inputValue(), "", "past the newest, the input is empty again");
    await input.fill("typed");
    await input.press("ArrowUp");
    assert.equal(await input.inputValue(), "typed", "a question being typed is not replaced");
    await input.fill("");
  });

  it("opens a 12-column result in an editor tab, column 12 in view, and exports every row to CSV", async () => {
    const cols = ["one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve"];
    const wide = `SELECT ${cols.map((c, i) => (i === 0 ? "id AS c1" : `'${c}-' || id AS c${i + 1}`)).join(", ")} FROM orders ORDER BY id`;
    const t = await askAndWait("Show every order with twelve columns", sql("wide", wide), { text: ["Here they are."] });
    const shown = Number((await t.locator(".result-meta").first().textContent())?.match(/[\d,]+/)?.[0]?.replace(/,/g, ""));
    // The side bar shows a few of the 12 columns: the panel says there are 12.
    await t.locator(".result-columns", { hasText: /^12 columns/ }).waitFor();
    // Each button's label is one line at the side bar's width.
    for (const b of await t.locator(".code-bar button, .result-meta button").all()) {
      const [height, font] = await b.evaluate((e) => [e.getBoundingClientRect().height, parseFloat((e.ownerDocument.defaultView as any).getComputedStyle(e).fontSize)]);
      assert.ok(height < 2 * font, `${await b.textContent()} is ${height}px high at a ${font}px font: its label wrapped`);
    }
    await t.locator("button.open-result").click();
    const tab = vs.page.frameLocator('iframe.webview[src*="extensionId=aiq.aiq"]:not([src*="purpose=webviewView"])').last().frameLocator("#active-frame");
    const twelfth = tab.locator("table.grid thead th", { hasText: /^c12$/ });
    await twelfth.waitFor();
    assert.equal(await tab.locator("table.grid thead th").count(), 12, "every column");
    await twelfth.scrollIntoViewIfNeeded();
    assert.ok(await twelfth.isVisible(), "column 12 can be brought into view");
    assert.equal(await tab.locator("table.grid tbody td", { hasText: /^twelve-1$/ }).count(), 1, "its values");
    await shoot("vscode-result-tab.png", "window");

    await tab.locator("button.export").click();
    await vs.page.locator(".quick-input-list .monaco-list-row", { hasText: "CSV" }).click();
    // The save dialog offers the workspace folder; Enter takes it.
    const target = path.join(vs.workspace, "result.csv");
    await vs.page.locator(".quick-input-box input").waitFor();
    await vs.page.keyboard.press("Enter");
    const deadline = Date.now() + WAIT_MS;
    while (!fs.existsSync(target) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    const lines = fs.readFileSync(target, "utf8").trimEnd().split("\r\n");
    assert.equal(lines[0], cols.map((_, i) => `c${i + 1}`).join(","), "the header");
    assert.ok(lines.length - 1 >= shown && shown > 0, `every row: ${lines.length - 1} written, ${shown} shown`);
    assert.match(lines[1], /^\d+,two-\d+,.*,twelve-\d+$/);
    await shoot("vscode-export.png", "window");
    await runCommand(vs.page, "View: Close All Editors");
  });

  it("asks in a modal before exporting a read costlier than the source allows: Enter and Escape reject, Allow once exports", async () => {
    const t = await askAndWait("Every order, to export", sql("all-orders", "SELECT id, status FROM orders ORDER BY id"), { text: ["Here."] });
    // The same demo database, with a cost limit every full scan is above; the open session follows it.
    const demo = path.join(vs.home, "demo.sqlite");
    fs.writeFileSync(path.join(vs.home, "config", "sources.yaml"), `- name: demo\n  type: sqlite\n  database: ${JSON.stringify(demo)}\n  max_estimated_rows: 1\n`);
    const target = path.join(vs.workspace, "result.csv");
    const confirm = dialog(vs.page);
    const exportIt = async () => {
      fs.rmSync(target, { force: true });
      await t.locator("button.export-result").click();
      await vs.page.locator(".quick-input-list .monaco-list-row", { hasText: "CSV" }).click();
      await vs.page.locator(".quick-input-box input").waitFor();
      await vs.page.keyboard.press("Enter");
      await confirm.waitFor();
      assert.match((await confirm.textContent()) ?? "", /estimates/, "the modal says why it asks");
    };
    for (const key of ["Enter", "Escape"]) {
      await exportIt();
      await vs.page.keyboard.press(key);
      await confirm.waitFor({ state: "hidden" });
      await notification(vs.page, /declined/).first().waitFor(); // a warning: no console error, as the last test checks
      assert.equal(fs.existsSync(target), false, `${key} exports nothing`);
    }
    await exportIt();
    await confirm.getByRole("button", { name: "Allow once" }).click();
    const deadline = Date.now() + WAIT_MS;
    while (!fs.existsSync(target) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    assert.ok(fs.existsSync(target), "Allow once exports");
  });

  it("shows a label added to sources.yaml in the header and the status bar, with no request", async () => {
    const sources = path.join(vs.home, "config", "sources.yaml");
    const demo = path.join(vs.home, "demo.sqlite");
    const asked = vs.model.requests.length;
    const written = Date.now();
    fs.writeFileSync(sources, `- name: demo\n  type: sqlite\n  database: ${JSON.stringify(demo)}\n  label: production\n`);
    // The wait is generous, so that a hang is told apart from a slow change; the time taken is checked after.
    await vs.chat.locator(".source-badge", { hasText: /^production$/ }).waitFor({ timeout: WAIT_MS });
    await vs.page.locator(".statusbar-item", { hasText: "[production]" }).first().waitFor({ timeout: WAIT_MS });
    const took = Date.now() - written;
    // Issue 30 asks for 2 s; 5 s leaves 3 s for CI, which runs the suite beside a CPU load.
    assert.ok(took < 5000, `the label showed ${took} ms after sources.yaml was written: more than 2 s and CI's margin`);
    assert.equal(vs.model.requests.length, asked, "nothing was asked");
    await shoot("vscode-production.png", "panel");
    fs.writeFileSync(sources, `- name: demo\n  type: sqlite\n  database: ${JSON.stringify(demo)}\n`);
    await vs.chat.locator(".source-badge").waitFor({ state: "hidden", timeout: WAIT_MS });
  });

  it("selects another data source for the conversation", async () => {
    const scratch = path.join(vs.home, "scratch.sqlite");
    fs.writeFileSync(scratch, ""); // SQLite takes an empty file for an empty database
    fs.writeFileSync(path.join(vs.home, "config", "sources.yaml"), `- name: scratch\n  type: sqlite\n  database: ${scratch}\n`);
    await runCommand(vs.page, "AIQ: Select Data Source");
    await vs.page.locator(".quick-input-list .monaco-list-row", { hasText: "scratch" }).click();
    await vs.chat.locator(".source-name", { hasText: /^scratch$/ }).waitFor();
    await askAndWait("Which tables are there?", { toolCalls: [{ id: "t", name: "list_tables", arguments: {} }] }, { text: ["None yet."] });
    const tables = lastToolResult(vs.model.requests[vs.model.requests.length - 1]);
    assert.deepEqual(tables, { tables: [] }, "the tools run on the new, empty source");
  });

  it("logged no errors in the workbench or the panel", async () => {
    assert.deepEqual(workbenchErrors(), []);
  });

  /** Polls cond until it holds; fails with what after WAIT_MS. */
  async function waitUntil(cond: () => Promise<boolean>, what: string): Promise<void> {
    const deadline = Date.now() + WAIT_MS;
    while (!(await cond())) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await vs.page.waitForTimeout(50);
    }
  }

  /** Console errors but code-server's own: it does not ship vsda, which VS Code asks for. */
  function workbenchErrors(): string[] {
    return vs.problems.filter((p) => !/\/vsda[/_]/.test(p));
  }

  /** Saves a screenshot of the window, or of its activity and side bars: the panel as wide as users have it. */
  async function shoot(name: string, part: "window" | "panel"): Promise<void> {
    await vs.page.mouse.move(800, 600); // no hover tooltip in the picture
    const sidebar = await vs.page.locator(".part.sidebar").boundingBox();
    const clip = part === "panel" && sidebar ? { x: 0, y: 0, width: sidebar.x + sidebar.width, height: vs.page.viewportSize()!.height } : undefined;
    fs.mkdirSync(screenshotDir, { recursive: true });
    await vs.page.screenshot({ path: path.join(screenshotDir, name), clip });
  }
});
