// The chat view in a real browser: serves the page chatHtml makes, with a
// stand-in for VS Code's webview API, replays a recorded conversation into
// it in headless Chromium, checks what the user sees and can do, and saves
// a screenshot. Run with `npm run render-check`.

import * as fs from "fs";
import * as path from "path";
import type { Page } from "playwright-core";
import { WAIT_MS } from "./support/aiqRpc";
import { CHROMIUM, extensionRoot as root, openChat, post as postAll, posted, serve } from "./support/chatPage";

const fixture = JSON.parse(fs.readFileSync(path.join(root, "test", "fixtures", "conversation.json"), "utf8"));
const HOSTILE = "<img src=x onerror=alert(1)>";

// A dark theme, as VS Code sets its variables (Dark Modern).
const DARK_THEME: Record<string, string> = {
  "--vscode-font-family": "system-ui, 'Segoe UI', Ubuntu, 'Droid Sans', sans-serif",
  "--vscode-font-size": "13px",
  "--vscode-editor-font-family": "'DejaVu Sans Mono', 'Droid Sans Mono', monospace",
  "--vscode-editor-font-size": "12px",
  "--vscode-foreground": "#cccccc",
  "--vscode-editor-background": "#1f1f1f",
  "--vscode-descriptionForeground": "#9d9d9d",
  "--vscode-panel-border": "#2b2b2b",
  "--vscode-widget-border": "#313131",
  "--vscode-editorWidget-background": "#202020",
  "--vscode-textCodeBlock-background": "#2b2b2b",
  "--vscode-focusBorder": "#0078d4",
  "--vscode-button-background": "#0078d4",
  "--vscode-button-foreground": "#ffffff",
  "--vscode-button-hoverBackground": "#026ec1",
  "--vscode-button-secondaryBackground": "#313131",
  "--vscode-button-secondaryForeground": "#cccccc",
  "--vscode-input-background": "#313131",
  "--vscode-input-foreground": "#cccccc",
  "--vscode-input-border": "#3c3c3c",
  "--vscode-input-placeholderForeground": "#989898",
  "--vscode-list-hoverBackground": "#2a2d2e",
  "--vscode-charts-blue": "#3794ff",
  "--vscode-charts-orange": "#d18616",
  "--vscode-charts-green": "#89d185",
  "--vscode-charts-purple": "#b180d7",
  "--vscode-charts-yellow": "#cca700",
  "--vscode-charts-red": "#f14c4c",
  "--vscode-charts-lines": "rgba(204, 204, 204, 0.2)",
  "--vscode-errorForeground": "#f85149",
};

// The part of VS Code 1.100's default webview style (webview/browser/pre/
// index.html) that reaches the panel's elements: it comes before the
// panel's own stylesheet, as in VS Code.
const VSCODE_DEFAULT_STYLES = `
code {
  font-family: var(--monaco-monospace-font);
  color: var(--vscode-textPreformat-foreground);
  background-color: var(--vscode-textPreformat-background);
  padding: 1px 3px;
  border-radius: 4px;
}
pre code { padding: 0; }
body { padding: 0 20px; }
`;
DARK_THEME["--vscode-textPreformat-foreground"] = "#d7ba7d";
DARK_THEME["--vscode-textPreformat-background"] = "#ffffff1a";

// Loaded before view.js, after the stand-in for VS Code's API: CSP
// violations, the theme on body, VS Code's default style.
const BEFORE = `(function () {
  var link = document.createElement("link");
  link.rel = "stylesheet";
  link.href = "/vscode-defaults.css";
  document.head.prepend(link);
  var rec = (window.__aiq = { violations: [] });
  document.addEventListener("securitypolicyviolation", function (e) {
    rec.violations.push(e.violatedDirective + " blocked " + (e.blockedURI || "inline") + " " + (e.sample || ""));
  });
  var theme = ${JSON.stringify(DARK_THEME)};
  for (var k in theme) document.body.style.setProperty(k, theme[k]);
  document.body.classList.add("vscode-dark");
})();
`;

class CheckFailed extends Error {}

function check(ok: unknown, message: string): void {
  if (!ok) throw new CheckFailed(message);
  console.log(`ok - ${message}`);
}

/** Waits until the view has posted a message like want. */
async function waitPosted(page: Page, want: Record<string, unknown>, what: string): Promise<void> {
  try {
    await page.waitForFunction(
      (w) => (globalThis as any).__vscode.posted.some((m: any) => Object.keys(w).every((k) => m[k] === (w as any)[k])),
      want,
      { timeout: WAIT_MS },
    );
  } catch {
    throw new CheckFailed(`${what}: the view did not post ${JSON.stringify(want)}; it posted ${JSON.stringify(await posted(page))}`);
  }
  console.log(`ok - ${what}`);
}

const turn = (n: number) => `section.turn[data-turn-id="${n}"]`;

async function texts(page: Page, selector: string): Promise<string[]> {
  return page.locator(selector).allTextContents();
}

async function checkConversation(page: Page): Promise<void> {
  const messages: any[] = fixture.messages;
  const ends = messages.filter((m) => m.type === "turnEnd");
  const starts = messages.filter((m) => m.type === "turnStart");

  await postAll(page, messages);
  await page.locator(".notice").waitFor({ timeout: WAIT_MS });

  check((await page.locator("section.turn").count()) === 3, "three turns are shown");
  check((await page.locator(`${turn(1)} .question`).textContent())?.includes(starts[0].query), "the first question is shown");
  const answer1 = (await page.locator(`${turn(1)} .answer .md`).allTextContents()).join("");
  check(answer1.includes("Electronics brings in the most") && answer1.includes("To see it per month"), "the streamed answer is shown");
  check((await page.locator(".source-name").textContent()) === "demo", "the header shows the source");
  check(await page.locator(".running").isHidden(), "no running indicator after the turns");

  const table = `${turn(1)} table.data`;
  check(JSON.stringify(await texts(page, `${table} thead th`)) === JSON.stringify(["category", "revenue"]), "the result table has the columns category, revenue");
  check((await page.locator(`${table} tbody tr`).count()) === ends[0].result.statements[0].rows.length, "the result table has all 9 rows");
  check((await page.locator(`${table} tbody td.num`).count()) === 9, "the numeric column is marked numeric (right-aligned)");

  await page.locator(`${table} thead th`, { hasText: "revenue" }).click();
  let firstCol = await texts(page, `${table} tbody tr td:first-child`);
  check(firstCol[0] === "Grocery" && firstCol[8] === "Electronics", `clicking revenue sorts ascending (got ${firstCol.join(", ")})`);
  check((await page.locator(`${table} thead th`, { hasText: "revenue" }).getAttribute("aria-sort")) === "ascending", "the header says it sorts ascending");
  await page.locator(`${table} thead th`, { hasText: "revenue" }).click();
  firstCol = await texts(page, `${table} tbody tr td:first-child`);
  check(firstCol[0] === "Electronics" && firstCol[8] === "Grocery", "clicking it again sorts descending");

  const [bars] = await charts(page, turn(1));
  check(bars?.type === "bar" && bars.count === 9, "the chart event draws 9 bars");
  check((await page.locator(`${turn(1)} figure.chart`).count()) === 1, "a result the model charted gets no second, default chart");
  check(bars.x.some((b) => b.text.startsWith("Electronics")), "the bar chart labels its x axis");
  check(bars.y.some((b) => b.text === "120K"), `the bar chart labels its y axis in the editor's locale (${bars.y.map((b) => b.text).join(" ")})`);
  const [line] = await charts(page, turn(2));
  check(line?.type === "line" && line.count === 14, "orders per day (text day + number) get a default line chart with 14 points");
  check(line.xType === "time", "on a time axis");
  const [pie] = await charts(page, turn(3));
  check(pie?.type === "pie" && pie.count === 5, "orders per status get a default pie chart with 5 slices");

  const blocks = page.locator(".code-block.statement");
  check((await blocks.count()) === 3, "each turn's SQL is shown as a statement block");
  for (let i = 0; i < 3; i++) {
    const b = blocks.nth(i);
    check((await b.locator("button.copy").count()) === 1 && (await b.locator("button.insert").count()) === 1, `SQL block ${i + 1} has Copy and Insert`);
  }
  check((await page.locator(`${turn(1)} .code-block.statement .tok-keyword`).first().textContent()) === "SELECT", "the SQL is highlighted");
  const sql1 = ends[0].result.statements[0].sql;
  await blocks.nth(0).locator("button.insert").click();
  await waitPosted(page, { type: "insert", text: sql1 }, "Insert posts the statement's SQL");
  await blocks.nth(0).locator("button.copy").click();
  await waitPosted(page, { type: "copy", text: sql1 }, "Copy posts the statement's SQL");
  check((await page.locator(`${turn(1)} .code-block.fenced button.insert`).count()) === 1, "a SQL block in the answer text can be inserted too");

  check((await page.locator("img").count()) === 0, "no img element exists");
  check((await texts(page, `${turn(3)} td`)).includes(HOSTILE), "the database's <img ...> value shows as literal text in the table");
  check(pie.legend.some((t) => t.startsWith("<img src=x")), "and as literal text in the chart's legend");
  check((await texts(page, `${turn(3)} .answer .md code`)).includes(HOSTILE), "and in the answer's inline code");
}

async function checkInput(page: Page): Promise<void> {
  const input = page.locator("textarea.ask-input");
  await input.fill("How many customers are there?");
  await input.press("Shift+Enter");
  check((await input.inputValue()).includes("\n"), "Shift+Enter adds a new line");
  check(!(await posted(page)).some((m) => m.type === "ask"), "Shift+Enter does not ask");
  await input.fill("How many customers are there?");
  await input.press("Enter");
  await waitPosted(page, { type: "ask", query: "How many customers are there?" }, "Enter asks the question");
  check((await input.inputValue()) === "", "the input is emptied after asking");

  await postAll(page, [{ type: "state", source: "demo", running: true }]);
  await page.locator("button.stop").waitFor({ state: "visible", timeout: WAIT_MS });
  check(await page.locator(".running").isVisible(), "the header shows that a turn runs");
  await page.locator("button.stop").click();
  await waitPosted(page, { type: "cancel" }, "Stop posts cancel");
  await postAll(page, [{ type: "state", source: "demo", running: false }]);
  await page.locator("button.stop").waitFor({ state: "hidden", timeout: WAIT_MS });
  check(true, "Stop hides when the turn ends");
}

async function checkRestore(page: Page): Promise<void> {
  await page.waitForFunction(() => {
    const s = JSON.parse((globalThis as any).sessionStorage.getItem("state") || "{}");
    return s.model && s.model.entries.length === 4 && Object.keys(s.model.sorts).length === 1;
  }, undefined, { timeout: WAIT_MS });
  check(true, "the view saved the conversation and the sort with setState");
  const state = (await page.evaluate(() => (globalThis as any).sessionStorage.getItem("state"))) as string;
  // A value only the rows hold (the answer's text and the summaries name others).
  check(!state.includes('"rows"') && !state.includes("2026-10-31"), "the saved state holds no result rows (the workspace storage is no place for masked values)");
  await page.reload();
  await waitPosted(page, { type: "ready" }, "the view posts ready after a reload");
  check((await page.locator("section.turn").count()) === 3, "the conversation comes back from getState after the view was hidden");
  const names = (await texts(page, `${turn(1)} table.data thead th`)).map((t) => t.replace(/[▲▼]/g, ""));
  check(JSON.stringify(names) === JSON.stringify(["category", "revenue"]), `its table's columns too, until the replay brings the rows (got ${names.join(", ")})`);
  check((await page.locator(`${turn(1)} table.data tbody tr`).count()) === 0 && (await texts(page, `${turn(1)} .result-rows`)).join("") === "9 rows", "with the row count, no rows");

  // After a window reload the extension first says it is reopening the last
  // conversation: the saved view stays, its header updated, however long the
  // server takes. A replay's redraw is due 30 ms after the message, the save
  // 150 ms after it, and timers fire in the order they are due: once the
  // save has happened, a redraw would have too.
  await page.evaluate(() => (globalThis as any).document.querySelectorAll("section.turn, .notice").forEach((e: any) => (e.dataset.before = "1")));
  await postAll(page, [{ type: "state", source: "warehouse", running: false, sourceKnown: true, server: "starting", restoring: true }]);
  await page.locator(".source-name", { hasText: /^warehouse$/ }).waitFor({ timeout: WAIT_MS });
  await page.waitForFunction(() => {
    const s = JSON.parse((globalThis as any).sessionStorage.getItem("state") || "{}");
    return s.model && s.model.source === "warehouse";
  }, undefined, { timeout: WAIT_MS });
  check((await page.locator("section.turn[data-before]").count()) === 3, "a state saying the conversation is being reopened keeps the saved view up");
  check(JSON.parse((await page.evaluate(() => (globalThis as any).sessionStorage.getItem("state"))) as string).model.entries.length === 4, "and saved, so another reload still has it");

  // Then the extension sends the state and the whole conversation again;
  // the view redraws once it pauses: wait until no section from before is left.
  await postAll(page, fixture.messages);
  await page.waitForFunction(() => {
    const doc = (globalThis as any).document;
    return doc.querySelectorAll("[data-before]").length === 0 && doc.querySelectorAll("section.turn").length > 0;
  }, undefined, { timeout: WAIT_MS });
  check((await page.locator("section.turn").count()) === 3, "the replayed conversation replaces the saved one: still three turns");
  check((await page.locator(".notice").count()) === 1, "and one notice, not two");
  const again = await texts(page, `${turn(1)} table.data tbody tr td:first-child`);
  check(again[0] === "Electronics" && again[8] === "Grocery", "the table keeps its sort through the replay");
}

// ---- Streaming after a big result: drawn in place, not rebuilt ----

const BIG_ROWS = 500;
const PIECES = 200;
const END = "END-OF-ANSWER";

/** 500 rows over ascending days: a table and a default line chart of 500 points. */
function bigStatement(): any {
  const rows: unknown[][] = [];
  for (let i = 0; i < BIG_ROWS; i++) {
    const day = new Date(Date.UTC(2024, 0, 1) + i * 86400000).toISOString().slice(0, 10);
    rows.push([day, 1000 + i, `C-${(i * 7919) % 500}`, ((i * 37) % 1000) + 0.5, i % 9 === 0 ? null : "B-7"]);
  }
  // One category (day) and one measure (amount); the others name rows, so the default chart is amount by day.
  return {
    sql: "SELECT day, id, customer_code, amount, batch_no FROM orders LIMIT 500", status: "success", rowCount: BIG_ROWS,
    columns: ["day", "id", "customer_code", "amount", "batch_no"], rows,
  };
}

/** An answer with paragraphs, a list and a SQL block, cut into PIECES pieces. */
function answerPieces(): string[] {
  let text = "The first paragraph is finished early and must keep its node.\n\n";
  for (let i = 0; text.length < 6000; i++) {
    if (i % 5 === 2) text += "- `a` one\n- two\n  continued\n\n";
    else if (i % 5 === 4) text += "```sql\nSELECT day, count(*)\n\nFROM orders GROUP BY day;\n```\n";
    else text += `Paragraph ${i} says the amounts ${"grow by day and ".repeat(6)}fall.\n\n`;
  }
  text += `Last words ${END}.`;
  const size = Math.ceil(text.length / PIECES);
  const pieces: string[] = [];
  for (let at = 0; at < text.length; at += size) pieces.push(text.slice(at, at + size));
  return pieces;
}

const progress = (turnId: number, event: Record<string, unknown>) => ({ type: "progress", turnId, event: { sessionId: "s1", requestId: 9, ...event } });

/** The answer box's blocks as tag, class and text, to compare two drawings. */
async function mdShape(page: Page, turnId: number): Promise<string[]> {
  return page.locator(`${turn(turnId)} .answer .md > *`).evaluateAll((els: any[]) => els.map((e) => `${e.tagName}.${e.className}: ${e.textContent}`));
}

async function checkStreaming(page: Page): Promise<void> {
  const st = bigStatement();
  const sql = st.sql;
  await postAll(page, [
    { type: "clear" },
    { type: "state", source: "demo", running: true },
    { type: "turnStart", turnId: 10, query: "The last 500 orders, and what they say" },
    progress(10, { kind: "tool_call", tool: "execute_sql", callId: "big", sql }),
    progress(10, { kind: "tool_result", tool: "execute_sql", callId: "big", summary: "500 rows", statement: st }),
  ]);
  const t = turn(10);
  await page.locator(`${t} table.data tbody tr:nth-child(${BIG_ROWS})`).waitFor({ timeout: WAIT_MS });
  const [big] = await charts(page, t);
  check(big?.type === "line" && big.count === BIG_ROWS, "a 500-row result is drawn as a table and a default line chart of 500 points");
  await page.evaluate((sel) => {
    const doc = (globalThis as any).document;
    (globalThis as any).__kept = { section: doc.querySelector(sel), table: doc.querySelector(`${sel} table.data`), chart: doc.querySelector(`${sel} figure.chart`) };
  }, t);

  // The pieces come in many frames, as from aiq-rpc, not all in one.
  const pieces = answerPieces();
  const answer = pieces.join("");
  await page.evaluate(async ([sel, ms]) => {
    const g = globalThis as any;
    for (let i = 0; i < ms.length; i++) {
      g.postMessage(ms[i], "*");
      if (i % 4 === 3) await new Promise((r) => g.requestAnimationFrame(r));
      if (i === 40) g.__kept.firstPara = g.document.querySelector(`${sel} .answer .md > p`);
    }
  }, [t, pieces.map((p) => progress(10, { kind: "text", text: p }))] as const);
  await page.waitForFunction(([sel, end]) => ((globalThis as any).document.querySelector(`${sel} .answer .md`)?.textContent || "").includes(end), [t, END] as const, { timeout: WAIT_MS });

  const same = (what: string) => page.evaluate(([sel, w]) => {
    const g = globalThis as any;
    const now: Record<string, any> = {
      section: g.document.querySelector(sel),
      table: g.document.querySelector(`${sel} table.data`),
      chart: g.document.querySelector(`${sel} figure.chart`),
      firstPara: g.document.querySelector(`${sel} .answer .md > p`),
    };
    return !!g.__kept[w] && now[w] === g.__kept[w] && now[w].isConnected;
  }, [t, what] as const);
  check(await same("section"), `after ${PIECES} streamed pieces the turn's section is the same element`);
  check(await same("table"), "the 500-row table is the same element: not rebuilt for each piece");
  check(await same("chart"), "the default chart is the same element too");
  check(await same("firstPara"), "a finished paragraph keeps its element while the answer streams on");

  // The answer drawn piece by piece is the answer drawn at once.
  await postAll(page, [{ type: "turnStart", turnId: 11, query: "again" }, progress(11, { kind: "text", text: answer })]);
  await page.locator(`${turn(11)} .answer .md`).waitFor({ timeout: WAIT_MS });
  const streamed = await mdShape(page, 10);
  const whole = await mdShape(page, 11);
  check(streamed.length > 10 && JSON.stringify(streamed) === JSON.stringify(whole), `the streamed answer arrived complete: its ${streamed.length} blocks are those of the whole text drawn at once`);
  check(streamed.filter((b) => b.startsWith("UL")).length > 0 && streamed.filter((b) => b.includes("code-block fenced")).length > 0, "with its lists and SQL blocks");

  const nearBottom = () => page.locator("main.conversation").evaluate((c: any) => c.scrollHeight - c.scrollTop - c.clientHeight < 60);
  check(await nearBottom(), "a panel scrolled to the bottom stays there while the answer grows");
  await page.locator("main.conversation").evaluate((c: any) => (c.scrollTop = 0));
  await postAll(page, [progress(11, { kind: "text", text: "\n\nOne more paragraph." })]);
  await page.waitForFunction((sel) => ((globalThis as any).document.querySelector(`${sel} .answer .md`)?.textContent || "").includes("One more paragraph."), turn(11), { timeout: WAIT_MS });
  check((await page.locator("main.conversation").evaluate((c: any) => c.scrollTop)) === 0, "a panel the user scrolled up is not scrolled down by new text");

  // The turn's end brings the same statement again, as a new object.
  await postAll(page, [{ type: "turnEnd", turnId: 10, result: { sessionId: "s1", stopReason: "end_turn", answer, statements: [st], warnings: [] } }]);
  await page.locator(`${t} .status`).waitFor({ state: "detached", timeout: WAIT_MS });
  check((await same("table")) && (await same("chart")), "the turn's end keeps the table and the chart");

  const amount = page.locator(`${t} table.data thead th`, { hasText: "amount" });
  await amount.click();
  check((await amount.getAttribute("aria-sort")) === "ascending", "a header click sorts the big table");
  const amounts = (await texts(page, `${t} table.data tbody tr td:nth-child(4)`)).map(Number);
  check(amounts.length === BIG_ROWS && amounts.every((v, i) => i === 0 || amounts[i - 1] <= v), "all 500 rows, in ascending amount");
  check(await same("table"), "and redraws the table's rows only: the table is the same element");
}

/** The write dialog in the panel: Reject focused, Enter and Escape reject, Allow once allows, a close leaves a line. */
async function checkConfirm(page: Page): Promise<void> {
  const prompt = {
    message: "AIQ wants to run a statement that writes. DELETE removes rows.",
    sql: "DELETE FROM orders WHERE status = 'cancelled'",
    masked: [] as string[],
    note: 'Reject (Enter, Escape) does not run it. "Allow always" covers only this: Allow DELETE on orders for this conversation.',
    buttons: [{ label: "Reject", decision: "reject" }, { label: "Allow once", decision: "allow_once" }, { label: "Allow always", decision: "allow_always" }],
  };
  const dialog = page.locator(`${turn(40)} .confirm`);
  const isFocused = (label: string) => dialog.locator("button", { hasText: label }).evaluate((b: any) => b.ownerDocument.activeElement === b);
  await postAll(page, [{ type: "turnStart", turnId: 40, query: "Delete the cancelled orders" }]);
  for (const [id, key] of [[1, "Enter"], [2, "Escape"]] as const) {
    await postAll(page, [{ type: "confirm", turnId: 40, id, prompt }]);
    await dialog.waitFor({ timeout: WAIT_MS });
    await page.waitForFunction(() => (globalThis as any).document.activeElement?.textContent === "Reject", undefined, { timeout: WAIT_MS });
    check(await isFocused("Reject"), `dialog ${id}: Reject has the focus when it opens`);
    await page.keyboard.press(key);
    await waitPosted(page, { type: "confirmAnswer", id, decision: "reject" }, `${key} rejects`);
    // The answer is posted at once and the dialog drawn again in the next frame: wait for that frame.
    const disabled = await page.waitForFunction((sel) => [...(globalThis as any).document.querySelectorAll(`${sel} button[data-decision]`)].every((b: any) => b.disabled),
      `${turn(40)} .confirm`, { timeout: WAIT_MS }).then(() => true, () => false);
    check(disabled, "the answered dialog's buttons are disabled until it closes");
    await postAll(page, [{ type: "confirmEnd", turnId: 40, id, decision: "reject" }]);
    await dialog.waitFor({ state: "detached", timeout: WAIT_MS });
  }
  // A statement with masked tokens: a line each under the SQL, the value as text.
  const masked = ["<masked:email:3f2a…> is ann@example.com", `<masked:name:0b1c…> is ${HOSTILE}`];
  await postAll(page, [{ type: "confirm", turnId: 40, id: 3, prompt: { ...prompt, masked } }]);
  await dialog.waitFor({ timeout: WAIT_MS });
  const order = await dialog.evaluate((d: any) => [...d.children].map((c: any) => c.className.split(" ")[0]));
  check(order.join(" ") === "confirm-message code-block confirm-masked confirm-masked confirm-note confirm-buttons",
    `the masked lines follow the SQL and come before the note: ${order.join(", ")}`);
  check(JSON.stringify(await texts(page, `${turn(40)} .confirm-masked`)) === JSON.stringify(masked), "each masked line shows as literal text");
  check((await dialog.locator("img").count()) === 0, "a value's <img ...> is not an element");
  await dialog.locator("button", { hasText: "Allow once" }).focus();
  await page.keyboard.press("Enter");
  await waitPosted(page, { type: "confirmAnswer", id: 3, decision: "allow_once" }, "Enter on Allow once allows once");
  await postAll(page, [{ type: "confirmEnd", turnId: 40, id: 3, decision: "allow_once" }]);
  await dialog.waitFor({ state: "detached", timeout: WAIT_MS });

  await postAll(page, [
    { type: "confirm", turnId: 40, id: 4, prompt },
    { type: "confirmEnd", turnId: 40, id: 4, decision: "closed", message: "The statement did not run: the question was stopped before you answered." },
  ]);
  await page.locator(`${turn(40)} .confirm-closed`).waitFor({ timeout: WAIT_MS });
  check((await dialog.count()) === 0, "a dialog closed by the extension goes");
  check((await texts(page, `${turn(40)} .confirm-closed`)).join("") === "The statement did not run: the question was stopped before you answered.", "and says in its place that the statement did not run");
  await postAll(page, [{ type: "turnEnd", turnId: 40, result: { stopReason: "cancelled", answer: "", statements: [], warnings: [] } }]);
}

/** Early rows (issue 11): a running SELECT's first page shows at once, marked, and its result replaces it. */
async function checkEarlyRows(page: Page): Promise<void> {
  const st = bigStatement();
  const early = { sql: st.sql, status: "running", rowCount: 120, columns: st.columns, rows: st.rows.slice(0, 100), truncated: true };
  await postAll(page, [
    { type: "turnStart", turnId: 30, query: "All the orders" },
    progress(30, { kind: "tool_call", tool: "execute_sql", callId: "early", sql: st.sql }),
    progress(30, { kind: "rows", tool: "execute_sql", callId: "early", statement: early }),
  ]);
  const t = turn(30);
  await page.locator(`${t} table.data tbody tr:nth-child(100)`).waitFor({ timeout: WAIT_MS });
  check((await page.locator(`${t} .running-mark`).textContent())?.includes("Running: the first 100 rows (120 read so far)"), "early rows show at once with a running mark");
  check((await page.locator(`${t} figure.chart`).count()) === 0, "and no chart while the rows still come");
  await postAll(page, [progress(30, { kind: "tool_result", tool: "execute_sql", callId: "early", statement: st })]);
  await page.locator(`${t} table.data tbody tr:nth-child(${BIG_ROWS})`).waitFor({ timeout: WAIT_MS });
  check((await page.locator(`${t} .running-mark`).count()) === 0 && (await page.locator(`${t} table.data`).count()) === 1, "the result replaces the early table: one table, no running mark");
  await postAll(page, [{ type: "turnEnd", turnId: 30, result: { stopReason: "end_turn", answer: "", statements: [st], warnings: [] } }]);
}

/** The default sidebar: about 290 px. Tables scroll within themselves, charts keep their text size. */
async function checkNarrow(page: Page, shot: string): Promise<void> {
  const wide = bigStatement();
  wide.rows = wide.rows.slice(0, 20);
  await postAll(page, [
    { type: "turnStart", turnId: 20, query: "The last orders" },
    progress(20, { kind: "tool_call", tool: "execute_sql", callId: "wide", sql: wide.sql }),
    progress(20, { kind: "tool_result", tool: "execute_sql", callId: "wide", statement: wide }),
    { type: "turnEnd", turnId: 20, result: { stopReason: "end_turn", answer: "", statements: [wide], warnings: [] } },
  ]);
  await page.setViewportSize({ width: 290, height: 900 });
  // Chart.js draws the charts again at the new width on the next frame.
  await page.waitForFunction(() => [...(globalThis as any).document.querySelectorAll("figure.chart canvas")].every((c: any) => (globalThis as any).Chart.getChart(c).width <= 290), undefined, { timeout: WAIT_MS });
  const panel = await page.locator("main.conversation").evaluate((c: any) => ({ scroll: c.scrollWidth, client: c.clientWidth }));
  check(panel.scroll <= panel.client, `at 290 px the panel does not scroll sideways (${panel.scroll} <= ${panel.client})`);
  const sizes = await page.locator("figure.chart canvas").evaluateAll((els: any[]) =>
    els.map((c) => ({ drawn: (globalThis as any).Chart.getChart(c).width, shown: c.getBoundingClientRect().width, right: c.getBoundingClientRect().right, fig: c.closest("figure").getBoundingClientRect().right })),
  );
  check(sizes.length > 0 && sizes.every((s) => Math.abs(s.drawn - s.shown) < 1 && s.right <= s.fig + 1), `each chart is drawn at the width it is shown at, inside its box: its 11px labels are not scaled down (${JSON.stringify(sizes)})`);
  for (const c of await charts(page, "")) labelsFit(c, `at 290 px, the ${c.type} chart "${c.title}"`);
  const wrap = page.locator(`${turn(20)} .table-wrap`);
  const dims = await wrap.evaluate((w: any) => ({ scroll: w.scrollWidth, client: w.clientWidth }));
  check(dims.scroll > dims.client, "a wide table is wider than its box");
  const sticky = await wrap.evaluate((w: any) => {
    w.scrollLeft = 150;
    const left = w.getBoundingClientRect().left;
    const first = w.querySelector("tbody tr td").getBoundingClientRect().left;
    const second = w.querySelector("tbody tr td:nth-child(2)").getBoundingClientRect().left;
    return { left, first, second, scrolled: w.scrollLeft };
  });
  check(sticky.scrolled > 0 && Math.abs(sticky.first - sticky.left - 1) <= 1 && sticky.second < sticky.first + 60, `it scrolls within its box and keeps its first column in view (${JSON.stringify(sticky)})`);
  const code = await page.locator(".code-block.statement code").first().evaluate((c: any) => {
    const s = (globalThis as any).getComputedStyle(c);
    return { bg: s.backgroundColor, pad: s.paddingLeft, color: s.color };
  });
  check(code.bg === "rgba(0, 0, 0, 0)" && code.pad === "0px" && code.color !== "rgb(215, 186, 125)", `SQL lines have no grey box, though VS Code's default style gives code one (${JSON.stringify(code)})`);
  await page.locator(turn(3)).evaluate((el: any) => el.scrollIntoView({ block: "start" }));
  await page.screenshot({ path: shot });
  console.log(`screenshot: ${shot}`);
  await page.setViewportSize({ width: 480, height: 900 });
}

/** A tick label as Chart.js laid it out, in the canvas's CSS pixels. */
interface LabelBox {
  text: string;
  /** Its box in its own (rotated) frame, relative to the axis's first label: for the overlap test. */
  rx0: number; ry0: number; rx1: number; ry1: number;
  /** Its axis-aligned box in the canvas: for the edge test. */
  x0: number; y0: number; x1: number; y1: number;
}

interface DrawnChart {
  title: string;
  type: string;
  count: number;
  xType: string;
  width: number;
  height: number;
  tickColor: string;
  x: LabelBox[];
  y: LabelBox[];
  legend: string[];
  legendBoxes: LabelBox[];
  labels: string[];
}

/**
 * The charts under sel as Chart.js drew them: kind, values, and each axis's
 * tick labels as boxes measured from Chart.js's own label layout
 * (getLabelItems: position, rotation, alignment, font) and the canvas's
 * text metrics, since a canvas has no label elements to measure.
 */
async function charts(page: Page, sel: string): Promise<DrawnChart[]> {
  await page.locator(`${sel} figure.chart canvas`).first().waitFor({ timeout: WAIT_MS });
  return page.locator(`${sel} figure.chart canvas`).evaluateAll((els: any[]) =>
    els.map((canvas) => {
      const chart = (globalThis as any).Chart.getChart(canvas);
      const ctx = canvas.getContext("2d");
      const boxes = (scale: any): any[] => {
        if (!scale) return [];
        let first: [number, number] | undefined;
        return scale.getLabelItems().map((it: any) => {
          const text = String(it.label);
          ctx.save();
          ctx.font = it.font.string;
          const w = ctx.measureText(text).width;
          ctx.restore();
          const h = it.font.size;
          const o = it.options;
          const [tx, ty] = o.translation;
          const rot = o.rotation || 0;
          const lx = o.textAlign === "right" || o.textAlign === "end" ? -w : o.textAlign === "center" ? -w / 2 : 0;
          const base = it.textOffset;
          const ly = o.textBaseline === "middle" ? base - h / 2 : o.textBaseline === "bottom" ? base - h : base;
          const cos = Math.cos(rot), sin = Math.sin(rot);
          const corners = [[lx, ly], [lx + w, ly], [lx, ly + h], [lx + w, ly + h]].map(([x, y]) => [tx + x * cos - y * sin, ty + x * sin + y * cos]);
          first = first || [tx, ty];
          // This label's origin in the rotated frame of the axis's first label.
          const dx = tx - first[0], dy = ty - first[1];
          const ox = dx * cos + dy * sin, oy = -dx * sin + dy * cos;
          return {
            text,
            rx0: ox + lx, ry0: oy + ly, rx1: ox + lx + w, ry1: oy + ly + h,
            x0: Math.min(...corners.map((c) => c[0])), x1: Math.max(...corners.map((c) => c[0])),
            y0: Math.min(...corners.map((c) => c[1])), y1: Math.max(...corners.map((c) => c[1])),
          };
        });
      };
      const legend = chart.legend?.legendItems?.map((l: any) => String(l.text)) || [];
      // Chart.js's own boxes of the legend's entries: the swatch and its text.
      const legendBoxes = (chart.legend?.legendHitBoxes || []).map((b: any, i: number) => ({
        text: legend[i], rx0: b.left, ry0: b.top, rx1: b.left + b.width, ry1: b.top + b.height, x0: b.left, y0: b.top, x1: b.left + b.width, y1: b.top + b.height,
      }));
      return {
        title: canvas.getAttribute("aria-label"),
        type: chart.config.type,
        count: chart.data.datasets[0].data.length,
        xType: chart.scales.x?.type || "",
        width: chart.width,
        height: chart.height,
        tickColor: String(chart.options.scales?.x?.ticks?.color || ""),
        x: boxes(chart.scales.x),
        y: boxes(chart.scales.y),
        legend,
        legendBoxes,
        labels: (chart.data.labels || []).map(String),
      };
    }),
  );
}

/** Checks that no two tick labels of an axis overlap and none is cut at the canvas's edge. */
function labelsFit(c: DrawnChart, what: string): void {
  for (const [axis, boxes] of [["x", c.x], ["y", c.y], ["legend", c.legendBoxes]] as const) {
    const overlaps: string[] = [];
    for (let i = 1; i < boxes.length; i++) {
      const a = boxes[i - 1], b = boxes[i];
      if (a.rx0 < b.rx1 - 0.5 && b.rx0 < a.rx1 - 0.5 && a.ry0 < b.ry1 - 0.5 && b.ry0 < a.ry1 - 0.5) overlaps.push(`${a.text} / ${b.text}`);
    }
    check(overlaps.length === 0, `${what}: no two ${axis} labels overlap (${boxes.length} shown${overlaps.length ? "; overlapping: " + overlaps.join(", ") : ""})`);
    const cut = boxes.filter((b) => b.x0 < -0.5 || b.y0 < -0.5 || b.x1 > c.width + 0.5 || b.y1 > c.height + 0.5);
    check(cut.length === 0, `${what}: no ${axis} label is cut at an edge${cut.length ? ": " + JSON.stringify(cut) : ""}`);
  }
}

/** A chart event of a turn of its own. */
function chartTurn(id: number, chart: Record<string, unknown>): any[] {
  return [
    { type: "turnStart", turnId: id, query: String(chart.title) },
    progress(id, { kind: "chart", tool: "render_chart", callId: `c${id}`, chart }),
    { type: "turnEnd", turnId: id, result: { stopReason: "end_turn", answer: "", statements: [], warnings: [] } },
  ];
}

const CATEGORIES = [
  "Electronics and Computers", "Home & Kitchen", "Sports and Outdoors", "Clothing, Shoes and Jewelry", "Books", "Toys & Games",
  "Health and Household", "Beauty & Personal Care", "Garden and Patio", "Automotive Parts & Accessories", "Grocery & Gourmet Food", "Office Products",
];

/**
 * Twelve long category names, sixty days, near-equal and differing shares:
 * the labels are thinned or turned, never overlap nor leave the canvas; a
 * pie only where its shares differ; the chart follows a theme change.
 */
async function checkLabels(page: Page, shot: string): Promise<void> {
  const days = Array.from({ length: 60 }, (_, i) => new Date(Date.UTC(2026, 7, 1 + i)).toISOString().slice(0, 10));
  await postAll(page, [
    ...chartTurn(40, { chartType: "bar", x: "category", y: "revenue", title: "Revenue by category", labels: CATEGORIES, values: CATEGORIES.map((_, i) => 1000 * (i + 1) ** 2 + 0.5) }),
    ...chartTurn(41, { chartType: "line", x: "day", y: "orders", title: "Orders by day", labels: days, values: days.map((_, i) => 40 + ((i * 7) % 23)) }),
    ...chartTurn(42, { chartType: "pie", x: "region", y: "orders", title: "Orders by region (even)", labels: ["North", "South", "East", "West", "Centre"], values: [201, 199, 200, 198, 202] }),
  ]);
  const [cats] = await charts(page, turn(40));
  check(cats?.type === "bar" && cats.count === 12 && cats.xType === "category", "twelve categories get twelve bars on a category axis");
  check(cats.labels.join("|") === CATEGORIES.join("|"), "the chart keeps the whole names for its tooltips");
  check(cats.x.length >= 4, `at least a third of the categories are labelled (${cats.x.length})`);
  check(cats.x.every((b) => b.text.length <= 18), "long names are cut on the axis");
  // The pointer on a bar whose name is cut: the tooltip has the whole name and the value in the locale.
  const canvas = page.locator(`${turn(40)} figure.chart canvas`);
  await canvas.scrollIntoViewIfNeeded();
  const bar = await canvas.evaluate((c: any) => {
    const el = (globalThis as any).Chart.getChart(c).getDatasetMeta(0).data[3];
    return { x: el.x, y: (el.y + el.base) / 2 };
  });
  const box = await canvas.boundingBox();
  if (!box) throw new CheckFailed("the 12-category chart has no box");
  await page.mouse.move(box.x + bar.x, box.y + bar.y);
  await page.waitForFunction((c: any) => (globalThis as any).Chart.getChart(c).tooltip.opacity > 0, await canvas.elementHandle(), { timeout: WAIT_MS });
  const tip = await canvas.evaluate((c: any) => {
    const t = (globalThis as any).Chart.getChart(c).tooltip;
    return { title: t.title, body: t.body.map((b: any) => b.lines.join(" ")) };
  });
  check(tip.title.join("") === CATEGORIES[3] && tip.body.join("").trim() === "16,000.5", `hovering a cut name's bar shows it whole with its value (${JSON.stringify(tip)})`);
  await page.mouse.move(0, 0);
  labelsFit(cats, "12 categories");
  const [daily] = await charts(page, turn(41));
  check(daily?.type === "line" && daily.count === 60 && daily.xType === "time", "sixty days get a line on a time axis");
  check(daily.x.length >= 3, `the time axis has dates on it (${daily.x.map((b) => b.text).join(", ")})`);
  labelsFit(daily, "60 days");
  const [even] = await charts(page, turn(42));
  check(even?.type === "bar", "five near-equal shares get bars, not a pie");
  // The two charts, from the first's question to the second's figure.
  await page.locator(turn(40)).evaluate((el: any) => el.scrollIntoView({ block: "start" }));
  const top = await page.locator(`${turn(40)} figure.chart`).boundingBox();
  const bottom = await page.locator(`${turn(41)} figure.chart`).boundingBox();
  if (!top || !bottom) throw new CheckFailed("the two charts have no boxes to take a screenshot of");
  await page.screenshot({ path: shot, clip: { x: 0, y: top.y - 8, width: page.viewportSize()?.width || 480, height: bottom.y + bottom.height - top.y + 16 } });
  console.log(`screenshot: ${shot}`);

  // A light theme: VS Code changes the variables and body's class.
  const before = cats.tickColor;
  await page.evaluate(() => {
    const b = (globalThis as any).document.body;
    b.style.setProperty("--vscode-descriptionForeground", "#717171");
    b.style.setProperty("--vscode-foreground", "#3b3b3b");
    b.classList.replace("vscode-dark", "vscode-light");
  });
  await page.waitForFunction((sel) => {
    const c = (globalThis as any).document.querySelector(`${sel} figure.chart canvas`);
    return (globalThis as any).Chart.getChart(c).options.scales.x.ticks.color === "#717171";
  }, turn(40), { timeout: WAIT_MS });
  check(before === "#9d9d9d", `the chart follows the theme: its labels turn from ${before} to the light theme's #717171`);
  await page.evaluate((theme) => {
    const b = (globalThis as any).document.body;
    for (const k of ["--vscode-descriptionForeground", "--vscode-foreground"]) b.style.setProperty(k, theme[k]);
    b.classList.replace("vscode-light", "vscode-dark");
  }, DARK_THEME);
}

/** In a German editor, the charts' numbers are German: 1.500, 0,5. */
async function checkLocale(): Promise<void> {
  const served = await serve({ before: BEFORE, defaultStyles: VSCODE_DEFAULT_STYLES, locale: "de-DE" });
  let browser: Awaited<ReturnType<typeof openChat>> | undefined;
  try {
    browser = await openChat(served);
    const page = browser.page;
    await waitPosted(page, { type: "ready" }, "a German page posts ready");
    await postAll(page, chartTurn(50, { chartType: "bar", x: "k", y: "v", title: "Mengen", labels: ["a", "b", "c"], values: [1500, 700.5, 2200] }));
    const [c] = await charts(page, turn(50));
    const ticks = c.y.map((b) => b.text);
    check(ticks.includes("1.500") && ticks.includes("2.000"), `the y axis groups digits as German does (${ticks.join(" ")})`);
    // A cleared conversation frees its charts' canvases.
    await postAll(page, [{ type: "clear" }]);
    await page.waitForFunction(() => Object.keys((globalThis as any).Chart.instances).length === 0, undefined, { timeout: WAIT_MS })
      .then(() => console.log("ok - a cleared conversation frees its charts"))
      .catch(async () => { throw new CheckFailed(`a cleared conversation keeps ${await page.evaluate(() => Object.keys((globalThis as any).Chart.instances).length)} charts`); });
    check(browser.problems.length === 0, `no console errors or page errors${browser.problems.length ? ": " + browser.problems.join("; ") : ""}`);
  } finally {
    await browser?.close();
    served.close();
  }
}

async function run(outFile: string): Promise<void> {
  const served = await serve({ before: BEFORE, defaultStyles: VSCODE_DEFAULT_STYLES });
  let browser: Awaited<ReturnType<typeof openChat>> | undefined;
  try {
    browser = await openChat(served);
    const page = browser.page;
    await waitPosted(page, { type: "ready" }, "the view posts ready when loaded");
    check((await page.locator(".empty").count()) === 1, "an empty conversation says what to do");

    await checkConversation(page);
    await checkInput(page);
    await checkRestore(page);

    // The first turn: question, SQL, table, chart and answer in one view.
    await page.locator(turn(1)).evaluate((el: any) => el.scrollIntoView({ block: "start" }));
    fs.mkdirSync(path.dirname(outFile), { recursive: true });
    await page.screenshot({ path: outFile });
    console.log(`screenshot: ${outFile}`);
    // The end: the line and pie charts, the hostile value, the notice.
    const endFile = outFile.replace(/\.png$/, "-end.png");
    await page.locator(".notice").evaluate((el: any) => el.scrollIntoView({ block: "end" }));
    await page.screenshot({ path: endFile });
    console.log(`screenshot: ${endFile}`);

    await checkLabels(page, path.join(path.dirname(outFile), "vscode-chart-labels.png"));
    await checkNarrow(page, outFile.replace(/\.png$/, "-narrow.png"));
    await checkEarlyRows(page);
    await checkConfirm(page);
    await checkStreaming(page);

    const violations: string[] = await page.evaluate(() => (globalThis as any).__aiq.violations);
    check(violations.length === 0, `no CSP violations${violations.length ? ": " + violations.join("; ") : ""}`);
    check(browser.problems.length === 0, `no console errors or page errors${browser.problems.length ? ": " + browser.problems.join("; ") : ""}`);
    check(served.unexpected.length === 0, `no request beyond the page and its media${served.unexpected.length ? ": " + served.unexpected.join(", ") : ""}`);
  } finally {
    await browser?.close();
    served.close();
  }
}

async function main(): Promise<void> {
  if (process.env.NODE_TEST_CONTEXT) {
    // `node --test out/test/` picks up every file here; the check is not a
    // unit test and runs once, from `npm run render-check`.
    console.log("render check: not run by node --test; run it with npm run render-check");
    return;
  }
  if (!fs.existsSync(CHROMIUM)) {
    const why = `${CHROMIUM} is missing (install it with: apt-get install chromium)`;
    if (process.env.AIQ_DBTEST_REQUIRE === "1") {
      console.error(`render check FAILED: ${why}, and AIQ_DBTEST_REQUIRE=1`);
      process.exit(1);
    }
    console.log(`skipped: render check: ${why}`);
    return;
  }
  // A relative AIQ_SCREENSHOT_DIR is from where npm was started (npm --prefix runs us in editors/vscode).
  const dir = process.env.AIQ_SCREENSHOT_DIR
    ? path.resolve(process.env.INIT_CWD || process.cwd(), process.env.AIQ_SCREENSHOT_DIR)
    : path.join(root, "test-output");
  const started = Date.now();
  // Only a hang trips this: each wait has its own deadline, and a loaded machine is slow.
  const deadline = setTimeout(() => {
    console.error("render check FAILED: it took more than 10 minutes");
    process.exit(1);
  }, 10 * 60_000);
  try {
    await run(path.join(dir, "vscode-chat.png"));
    await checkLocale();
    console.log(`render check passed in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  } catch (e) {
    console.error(`render check FAILED: ${e instanceof CheckFailed ? e.message : e instanceof Error ? e.stack : String(e)}`);
    process.exitCode = 1;
  } finally {
    clearTimeout(deadline);
  }
}

void main();
