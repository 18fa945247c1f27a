// The chat view in a real browser: serves the page chatHtml makes, with a
// stand-in for VS Code's webview API, replays a recorded conversation into
// it in headless Chromium, checks what the user sees and can do, and saves
// a screenshot. Run with `npm run render-check`.

import * as fs from "fs";
import * as http from "http";
import * as os from "os";
import * as path from "path";
import type { AddressInfo } from "net";
import { chromium, type BrowserContext, type Page } from "playwright-core";
import { chatHtml, newNonce } from "../src/chatHtml";

const CHROMIUM = "/usr/bin/chromium";
const root = path.join(__dirname, "..", "..");
const mediaDir = path.join(root, "media");
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

// Loaded before chat.js: VS Code's acquireVsCodeApi, recording what the
// view posts; the state kept in sessionStorage as VS Code keeps it across
// hides; CSP violations; and the theme on body.
const STUB = `(function () {
  var rec = (window.__aiq = { posted: [], violations: [] });
  document.addEventListener("securitypolicyviolation", function (e) {
    rec.violations.push(e.violatedDirective + " blocked " + (e.blockedURI || "inline") + " " + (e.sample || ""));
  });
  var acquired = false;
  window.acquireVsCodeApi = function () {
    if (acquired) throw new Error("acquireVsCodeApi may be called once");
    acquired = true;
    return {
      postMessage: function (m) { rec.posted.push(JSON.parse(JSON.stringify(m))); },
      getState: function () { var s = sessionStorage.getItem("state"); return s ? JSON.parse(s) : undefined; },
      setState: function (s) { sessionStorage.setItem("state", JSON.stringify(s)); },
    };
  };
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

interface Served {
  origin: string;
  unexpected: string[];
  close(): void;
}

/** The page, the stub and the media files, nothing else. */
async function serve(): Promise<Served> {
  const unexpected: string[] = [];
  let origin = "";
  const files: Record<string, [string, string]> = {
    "/stub.js": ["text/javascript", STUB],
    "/media/view.js": ["text/javascript", ""],
    "/media/chat.js": ["text/javascript", ""],
    "/media/chat.css": ["text/css", ""],
  };
  const server = http.createServer((req, res) => {
    const url = (req.url || "/").split("?")[0];
    if (url === "/") {
      const html = chatHtml({
        cspSource: origin,
        nonce: newNonce(),
        scriptUris: [`${origin}/stub.js`, `${origin}/media/view.js`, `${origin}/media/chat.js`],
        styleUri: `${origin}/media/chat.css`,
      });
      res.writeHead(200, { "Content-Type": "text/html; charset=utf-8" });
      res.end(html);
      return;
    }
    if (url === "/favicon.ico") {
      // The browser asks for it on its own; a VS Code webview has none.
      res.writeHead(204);
      res.end();
      return;
    }
    const file = files[url];
    if (!file) {
      unexpected.push(url);
      res.writeHead(404);
      res.end();
      return;
    }
    const body = file[1] || fs.readFileSync(path.join(mediaDir, path.basename(url)), "utf8");
    res.writeHead(200, { "Content-Type": `${file[0]}; charset=utf-8`, "Cache-Control": "no-store" });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { origin, unexpected, close: () => server.close() };
}

async function posted(page: Page): Promise<any[]> {
  return page.evaluate(() => (globalThis as any).__aiq.posted);
}

/** Waits until the view has posted a message like want. */
async function waitPosted(page: Page, want: Record<string, unknown>, what: string): Promise<void> {
  try {
    await page.waitForFunction(
      (w) => (globalThis as any).__aiq.posted.some((m: any) => Object.keys(w).every((k) => m[k] === (w as any)[k])),
      want,
      { timeout: 5000 },
    );
  } catch {
    throw new CheckFailed(`${what}: the view did not post ${JSON.stringify(want)}; it posted ${JSON.stringify(await posted(page))}`);
  }
  console.log(`ok - ${what}`);
}

async function postAll(page: Page, messages: unknown[]): Promise<void> {
  await page.evaluate((ms) => {
    for (const m of ms) (globalThis as any).postMessage(m, "*");
  }, messages);
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
  await page.locator(".notice").waitFor({ timeout: 5000 });

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

  check((await page.locator(`${turn(1)} figure.chart svg rect.bar`).count()) === 9, "the chart event draws 9 bars");
  check((await page.locator(`${turn(1)} figure.chart`).count()) === 1, "a result the model charted gets no second, default chart");
  check((await texts(page, `${turn(1)} figure.chart svg text.tick`)).some((t) => t.startsWith("Electronics")), "the bar chart labels its x axis");
  check((await texts(page, `${turn(1)} figure.chart svg text.tick`)).some((t) => t === "120K"), "the bar chart labels its y axis");
  check((await page.locator(`${turn(2)} figure.chart svg circle.point`).count()) === 14, "orders per day (text day + number) get a default line chart with 14 points");
  check((await page.locator(`${turn(2)} figure.chart svg path.line`).count()) === 1, "the line is drawn");
  check((await page.locator(`${turn(3)} figure.chart svg path.slice`).count()) === 5, "orders per status get a default pie chart with 5 slices");

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
  check((await texts(page, `${turn(3)} svg text`)).some((t) => t.startsWith("<img src=x")), "and as literal text in the chart's legend");
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
  await page.locator("button.stop").waitFor({ state: "visible", timeout: 5000 });
  check(await page.locator(".running").isVisible(), "the header shows that a turn runs");
  await page.locator("button.stop").click();
  await waitPosted(page, { type: "cancel" }, "Stop posts cancel");
  await postAll(page, [{ type: "state", source: "demo", running: false }]);
  await page.locator("button.stop").waitFor({ state: "hidden", timeout: 5000 });
  check(true, "Stop hides when the turn ends");
}

async function checkRestore(page: Page): Promise<void> {
  await page.waitForFunction(() => {
    const s = JSON.parse((globalThis as any).sessionStorage.getItem("state") || "{}");
    return s.model && s.model.entries.length === 4 && Object.keys(s.model.sorts).length === 1;
  }, undefined, { timeout: 5000 });
  check(true, "the view saved the conversation and the sort with setState");
  await page.reload();
  await waitPosted(page, { type: "ready" }, "the view posts ready after a reload");
  check((await page.locator("section.turn").count()) === 3, "the conversation comes back from getState after the view was hidden");
  const firstCol = await texts(page, `${turn(1)} table.data tbody tr td:first-child`);
  check(firstCol[0] === "Electronics" && firstCol[8] === "Grocery", "so does the table's sort order");

  // Then the extension sends the state and the whole conversation again;
  // the view redraws once it pauses: wait until no section from before is left.
  await page.evaluate(() => (globalThis as any).document.querySelectorAll("section.turn, .notice").forEach((e: any) => (e.dataset.before = "1")));
  await postAll(page, fixture.messages);
  await page.waitForFunction(() => {
    const doc = (globalThis as any).document;
    return doc.querySelectorAll("[data-before]").length === 0 && doc.querySelectorAll("section.turn").length > 0;
  }, undefined, { timeout: 5000 });
  check((await page.locator("section.turn").count()) === 3, "the replayed conversation replaces the saved one: still three turns");
  check((await page.locator(".notice").count()) === 1, "and one notice, not two");
  const again = await texts(page, `${turn(1)} table.data tbody tr td:first-child`);
  check(again[0] === "Electronics" && again[8] === "Grocery", "the table keeps its sort through the replay");
}

async function run(outFile: string): Promise<void> {
  const served = await serve();
  const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), "aiq-chromium-"));
  let context: BrowserContext | undefined;
  try {
    context = await chromium.launchPersistentContext(userDataDir, {
      executablePath: CHROMIUM,
      headless: true,
      args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
      viewport: { width: 480, height: 900 },
      timeout: 30000,
    });
    const page = context.pages()[0] || (await context.newPage());
    page.setDefaultTimeout(10000);
    const problems: string[] = [];
    page.on("console", (m) => {
      if (m.type() === "error" || m.type() === "warning") problems.push(`console ${m.type()}: ${m.text()}`);
    });
    page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
    page.on("dialog", (d) => {
      problems.push(`a dialog opened: ${d.message()}`);
      void d.dismiss();
    });

    await page.goto(`${served.origin}/`);
    await waitPosted(page, { type: "ready" }, "the view posts ready when loaded");
    check((await page.locator(".empty").count()) === 1, "an empty conversation says what to do");

    await checkConversation(page);
    await checkInput(page);
    await checkRestore(page);

    const violations: string[] = await page.evaluate(() => (globalThis as any).__aiq.violations);
    check(violations.length === 0, `no CSP violations${violations.length ? ": " + violations.join("; ") : ""}`);
    check(problems.length === 0, `no console errors or page errors${problems.length ? ": " + problems.join("; ") : ""}`);
    check(served.unexpected.length === 0, `no request beyond the page and its media${served.unexpected.length ? ": " + served.unexpected.join(", ") : ""}`);

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
  } finally {
    await context?.close();
    served.close();
    fs.rmSync(userDataDir, { recursive: true, force: true });
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
  const dir = process.env.AIQ_SCREENSHOT_DIR || path.join(root, "test-output");
  const started = Date.now();
  const deadline = setTimeout(() => {
    console.error("render check FAILED: it took more than 120 s");
    process.exit(1);
  }, 120000);
  try {
    await run(path.join(dir, "vscode-chat.png"));
    console.log(`render check passed in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  } catch (e) {
    console.error(`render check FAILED: ${e instanceof CheckFailed ? e.message : e instanceof Error ? e.stack : String(e)}`);
    process.exitCode = 1;
  } finally {
    clearTimeout(deadline);
  }
}

void main();
