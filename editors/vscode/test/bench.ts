// How the chat panel copes with the biggest result aiq-rpc sends (500 rows,
// its cap) and a long streamed answer. It measures and prints; it asserts no
// timings, since those depend on the machine. Run with `npm run bench`.
//
// Part 1 times media/view.js alone in Node. Part 2 serves the real page
// (chatHtml + media/*) to Debian's headless Chromium, as test/renderCheck.ts
// does (test/support/chatPage.ts), and times from posting a message to the
// result being drawn. It runs in about a minute on 2 cores; set
// AIQ_BENCH_NODE_RUNS and AIQ_BENCH_PAGE_RUNS for more runs.

import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { performance } from "perf_hooks";
import type { CDPSession, Page } from "playwright-core";
import { CHROMIUM, extensionRoot, openChat, post, serve } from "./support/chatPage";

// eslint-disable-next-line @typescript-eslint/no-var-requires
const V = require(path.join(extensionRoot, "media", "view.js"));

const ROWS = 500; // aiq-rpc's cap on the rows of one result
/** Streamed text pieces of ~20 characters: `npm run bench -- --chunks 1000` (or AIQ_BENCH_CHUNKS). */
const PIECES = chunkCount(process.argv, process.env.AIQ_BENCH_CHUNKS);

function chunkCount(argv: string[], env: string | undefined): number {
  const at = argv.indexOf("--chunks");
  const raw = at >= 0 ? argv[at + 1] : env;
  const n = raw === undefined ? 2000 : Number(raw);
  if (!Number.isInteger(n) || n < 2) {
    console.error(`bench: --chunks takes a whole number of at least 2, not ${JSON.stringify(raw)}`);
    process.exit(2);
  }
  return n;
}
const PER_FRAME = 4; // pieces a frame in the paced cases: aiq-rpc sends one about every 40 ms, a frame is 16 ms
const MARKER = "END-OF-ANSWER";
const NODE_RUNS = Number(process.env.AIQ_BENCH_NODE_RUNS || 10);
const PAGE_RUNS = Number(process.env.AIQ_BENCH_PAGE_RUNS || 3);

// ---- The data: a 500-row x 8-column result and a long answer ----

/** A small deterministic generator, so every run sees the same data. */
function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const SQL = "SELECT o.ordered_at, o.id AS order_id, c.name AS customer, o.status,\n       o.total, o.quantity, o.discount, o.note\nFROM orders o JOIN customers c ON c.id = o.customer_id\nORDER BY o.ordered_at\nLIMIT 500";
const COLUMNS = ["ordered_at", "order_id", "customer", "status", "total", "quantity", "discount", "note"];
const NAMES = ["Müller", "García", "Østergaard", "Nakamura", "O'Brien", "Dubois", "Kowalski", "Silva", "Nguyen", "Schmidt"];
const STATUSES = ["delivered", "shipped", "pending", "cancelled", "returned"];

function isoMinute(ms: number): string {
  return new Date(ms).toISOString().slice(0, 19).replace("T", " ");
}

/** Dates ascending, ints, text, decimals as text (as drivers send DECIMAL), NULLs. */
function bigStatement(): any {
  const rnd = seeded(42);
  const start = Date.UTC(2025, 0, 1, 8);
  const rows: unknown[][] = [];
  for (let i = 0; i < ROWS; i++) {
    rows.push([
      isoMinute(start + i * 97 * 60000),
      10000 + i,
      `${NAMES[i % NAMES.length]} ${String.fromCharCode(65 + (i % 26))}. #${Math.floor(rnd() * 9000) + 1000}`,
      STATUSES[Math.floor(rnd() * STATUSES.length)],
      i % 37 === 0 ? null : (rnd() * 2000).toFixed(2),
      i % 7 === 0 ? null : Math.floor(rnd() * 12) + 1,
      rnd() < 0.8 ? null : Math.round(rnd() * 30) / 100,
      rnd() < 0.6 ? null : `gift wrap, leave at the door ${"(ring twice) ".repeat(Math.floor(rnd() * 4))}`.trim(),
    ]);
  }
  return { sql: SQL, status: "success", rowCount: ROWS, columns: COLUMNS, rows, truncated: false };
}

/** The rows grouped by customer, the first 40 groups: a bar chart (the largest a default chart draws). */
function barStatement(st: any): any {
  const totals = new Map<string, number>();
  for (const r of st.rows) totals.set(r[2], (totals.get(r[2]) ?? 0) + Number(r[4] ?? 0));
  const rows = [...totals].slice(0, 40).map(([customer, total]) => [customer, total.toFixed(2)]);
  return { sql: "SELECT customer, sum(total) AS revenue FROM orders GROUP BY customer LIMIT 40", status: "success", rowCount: rows.length, columns: ["customer", "revenue"], rows, truncated: false };
}

/** Markdown in PIECES pieces of ~20 characters (2,000 by default: about 40,000), the last one ending in MARKER. */
function answerPieces(): string[] {
  const rnd = seeded(7);
  const words = "the orders revenue per customer grew by month while returns fell slightly and pending orders cleared within two days of".split(" ");
  let text = "";
  for (let para = 0; text.length < PIECES * 21; para++) {
    if (para % 4 === 3) {
      for (let i = 0; i < 4; i++) text += `- \`${NAMES[i]}\`: ${(rnd() * 5000).toFixed(2)} across ${Math.floor(rnd() * 40)} orders\n`;
      text += "\n";
      continue;
    }
    const n = 40 + Math.floor(rnd() * 30);
    for (let i = 0; i < n; i++) text += words[Math.floor(rnd() * words.length)] + (i === n - 1 ? ".\n\n" : " ");
  }
  const pieces: string[] = [];
  let at = 0;
  for (let i = 0; i < PIECES - 1; i++) {
    const len = 15 + Math.floor(rnd() * 11);
    pieces.push(text.slice(at, at + len));
    at += len;
  }
  pieces.push(` ${MARKER}.`);
  return pieces;
}

// ToView messages, as the extension posts them (src/messages.ts).
const ev = (turnId: number, event: Record<string, unknown>) => ({ type: "progress", turnId, event: { sessionId: "s1", requestId: 2, ...event } });
const turnStart = (turnId: number) => ({ type: "turnStart", turnId, query: "Show me the last 500 orders with their customers" });
const sqlCall = (turnId: number) => ev(turnId, { kind: "tool_call", tool: "execute_sql", callId: "call_1", arguments: { sql: SQL }, sql: SQL });
const sqlResult = (turnId: number, st: any) =>
  ev(turnId, { kind: "tool_result", tool: "execute_sql", callId: "call_1", summary: `Query executed successfully. Returned ${ROWS} row(s).`, statement: st });
const textPiece = (turnId: number, text: string) => ev(turnId, { kind: "text", text });
const turnEnd = (turnId: number, st: any, answer: string) => ({
  type: "turnEnd",
  turnId,
  result: { sessionId: "s1", stopReason: "end_turn", answer, statements: [st], savedTo: "", warnings: [] },
});

// ---- Numbers ----

interface Row {
  name: string;
  samples: number[];
  note?: string;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const max = (xs: number[]) => Math.max(...xs);
const fmt = (ms: number) => (ms >= 100 ? ms.toFixed(0) : ms >= 10 ? ms.toFixed(1) : ms.toFixed(2));
const mb = (bytes: number) => `${(bytes / 1048576).toFixed(1)} MB`;

function printTable(title: string, rows: Row[]): void {
  const w = Math.max(...rows.map((r) => r.name.length), 4);
  console.log(`\n${title}`);
  console.log(`${"case".padEnd(w)}  runs  median ms     max ms  notes`);
  console.log(`${"-".repeat(w)}  ----  ---------  ---------  -----`);
  for (const r of rows) {
    console.log(`${r.name.padEnd(w)}  ${String(r.samples.length).padStart(4)}  ${fmt(median(r.samples)).padStart(9)}  ${fmt(max(r.samples)).padStart(9)}  ${r.note || ""}`);
  }
}

// ---- Part 1: view.js in Node ----

/** One warm-up call, then runs timed calls; setup runs untimed before each. */
function timeIt<T>(runs: number, setup: () => T, fn: (x: T) => unknown): number[] {
  fn(setup());
  const out: number[] = [];
  for (let i = 0; i < runs; i++) {
    const x = setup();
    const t0 = performance.now();
    fn(x);
    out.push(performance.now() - t0);
  }
  return out;
}

function reduceResultTurn(st: any): any {
  const model = V.emptyModel();
  for (const m of [turnStart(1), sqlCall(1), sqlResult(1, st), turnEnd(1, st, "Here they are.")]) V.apply(model, m);
  return model;
}

function nodeBench(): Row[] {
  const st = bigStatement();
  const bar = barStatement(st);
  const pieces = answerPieces();
  const full = pieces.join("");
  const col = (name: string) => COLUMNS.indexOf(name);
  const resultTurn = reduceResultTurn(st).entries[0];
  const streamSetup = () => {
    const model = V.emptyModel();
    V.apply(model, turnStart(1));
    return { model, msgs: pieces.map((p) => textPiece(1, p)) };
  };
  // The default chart takes one category and one measure: the total per minute.
  const perMinute = { ...st, sql: "SELECT ordered_at, sum(total) AS total FROM orders GROUP BY ordered_at", columns: ["ordered_at", "total"], rows: st.rows.map((r: unknown[]) => [r[0], r[4]]) };
  const line = V.chooseChart(perMinute);
  const barChart = V.chooseChart(bar);
  return [
    { name: "reduce turn: start, tool_call, 500x8 tool_result, turnEnd", samples: timeIt(NODE_RUNS, () => st, reduceResultTurn) },
    { name: "structuredClone of the 500x8 tool_result (postMessage copy)", samples: timeIt(NODE_RUNS, () => sqlResult(1, st), (m) => structuredClone(m)) },
    { name: "turnBlocks of that turn (chart choice; per turn redraw)", samples: timeIt(NODE_RUNS, () => resultTurn, (t) => V.turnBlocks(t)) },
    { name: "sortRows 500 by total (decimal text, NULLs)", samples: timeIt(NODE_RUNS, () => st.rows, (r) => V.sortRows(r, col("total"), "desc")) },
    { name: "sortRows 500 by quantity (int, NULLs)", samples: timeIt(NODE_RUNS, () => st.rows, (r) => V.sortRows(r, col("quantity"), "asc")) },
    { name: "sortRows 500 by customer (text, localeCompare)", samples: timeIt(NODE_RUNS, () => st.rows, (r) => V.sortRows(r, col("customer"), "asc")) },
    { name: "chooseChart 500 rows -> line", samples: timeIt(NODE_RUNS, () => perMinute, (s) => V.chooseChart(s)), note: `${line.chartType}, ${line.labels.length} points` },
    { name: "chartPlan line, 500 points", samples: timeIt(NODE_RUNS, () => line, (c) => V.chartPlan(c)) },
    { name: "chooseChart + chartPlan 40 groups -> bar", samples: timeIt(NODE_RUNS, () => bar, (s) => V.chartPlan(V.chooseChart(s))), note: `${barChart.chartType}, ${barChart.labels.length} bars` },
    { name: `reduce ${PIECES} text pieces (~20 chars)`, samples: timeIt(NODE_RUNS, streamSetup, ({ model, msgs }) => msgs.forEach((m: unknown) => V.apply(model, m))), note: `${full.length} chars` },
    { name: `parseMarkdown of the whole answer once`, samples: timeIt(NODE_RUNS, () => full, (t) => V.parseMarkdown(t)) },
    {
      name: `parseMarkdown of the answer so far, after each of ${PIECES} pieces`,
      samples: timeIt(Math.min(NODE_RUNS, 5), () => pieces, (ps) => {
        let text = "";
        for (const p of ps) V.parseMarkdown((text += p));
      }),
      note: "what chat.js did per streamed piece until it parsed incrementally: quadratic in the answer's length",
    },
    {
      name: `settledEnd + parseMarkdown of the open part, after each of ${PIECES} pieces`,
      samples: timeIt(NODE_RUNS, () => pieces, (ps) => {
        let text = "";
        let cut = 0;
        for (const p of ps) {
          text += p;
          const next = V.settledEnd(text, cut);
          if (next > cut) V.parseMarkdown(text.slice(cut, next));
          V.parseMarkdown(text.slice((cut = next)));
        }
      }),
      note: "what chat.js does per streamed piece now: linear",
    },
  ];
}

// ---- Part 2: the page in headless Chromium ----

// Loaded before view.js, after chatPage's stand-in for VS Code's API: the
// start of each message's handling, the time of each frame callback (the
// view draws in requestAnimationFrame), long tasks, and the helpers the
// cases run in the page.
const BEFORE = `(function () {
  var B = (window.__bench = { starts: [], handler: [], draws: [], longtasks: [] });
  window.addEventListener("message", function () { B.starts.push(performance.now()); });
  var raf = window.requestAnimationFrame.bind(window);
  window.requestAnimationFrame = function (cb) {
    return raf(function (t) {
      var t0 = performance.now();
      cb(t);
      B.draws.push(performance.now() - t0);
    });
  };
  B.longtaskSupported = typeof PerformanceObserver !== "undefined" &&
    (PerformanceObserver.supportedEntryTypes || []).indexOf("longtask") >= 0;
  if (B.longtaskSupported) {
    B.observer = new PerformanceObserver(function (list) { B.keep(list.getEntries()); });
    B.observer.observe({ type: "longtask" });
  }
  B.keep = function (entries) {
    entries.forEach(function (e) { B.longtasks.push({ start: e.startTime, duration: e.duration }); });
  };
  B.frame = function () { return new Promise(function (r) { raf(function () { r(); }); }); };
  B.until = async function (pred, ms) {
    var end = performance.now() + ms;
    while (!pred()) {
      if (performance.now() > end) throw new Error("bench: the page did not get there within " + ms + " ms");
      await B.frame();
    }
  };
  // Without long task entries: the longest gap between ticks of a 1 ms interval.
  B.gapProbe = function () {
    var last = performance.now(), longest = 0;
    var id = setInterval(function () { var now = performance.now(); longest = Math.max(longest, now - last); last = now; }, 1);
    return function () { clearInterval(id); return Math.max(longest, performance.now() - last); };
  };
  // Posts, waits until pred holds and two frames more, and says how long it took.
  B.measure = async function (post, pred, timeoutMs) {
    if (B.observer) B.keep(B.observer.takeRecords());
    var setStates = window.__vscode.setStateMs;
    var h0 = B.handler.length, s0 = setStates.length, d0 = B.draws.length;
    var stopGap = B.longtaskSupported ? null : B.gapProbe();
    var t0 = performance.now();
    await post();
    await B.until(pred, timeoutMs);
    var shown = performance.now();
    await B.frame();
    await B.frame();
    var t1 = performance.now();
    var longest;
    if (B.observer) {
      B.keep(B.observer.takeRecords());
      longest = B.longtasks.filter(function (e) { return e.start >= t0 - 1 && e.start < t1; })
        .reduce(function (m, e) { return Math.max(m, e.duration); }, 0);
    } else longest = stopGap();
    return { ms: t1 - t0, shownMs: shown - t0, longest: longest, handler: B.handler.slice(h0), setState: setStates.slice(s0), draws: B.draws.slice(d0) };
  };
  // Posts the messages, perFrame of them a frame, or all at once when 0.
  B.stream = async function (msgs, perFrame) {
    for (var i = 0; i < msgs.length; i++) {
      window.postMessage(msgs[i], "*");
      if (perFrame && i % perFrame === perFrame - 1) await B.frame();
    }
  };
})();
`;

// Loaded after chat.js, so its message listener runs after chat.js's.
const AFTER = `window.addEventListener("message", function () {
  var B = window.__bench;
  B.handler.push(performance.now() - B.starts[B.starts.length - 1]);
});
`;

interface Measured {
  ms: number;
  shownMs: number;
  longest: number;
  handler: number[];
  setState: number[];
  /** The frame callbacks in the case: the view's draws (and the bench's own, which do nothing). */
  draws: number[];
  /** Where the renderer's main thread spent the time, from CDP Performance.getMetrics: ms of script, style, layout. */
  split?: { script: number; style: number; layout: number };
}

const SPLIT = { ScriptDuration: "script", RecalcStyleDuration: "style", LayoutDuration: "layout" } as const;

async function mainThreadTimes(cdp: CDPSession): Promise<Record<string, number>> {
  const { metrics } = await cdp.send("Performance.getMetrics");
  return Object.fromEntries(metrics.map((m: { name: string; value: number }) => [m.name, m.value * 1000]));
}

/** Runs a case in the page and adds the main thread's split to its numbers. */
async function withSplit(cdp: CDPSession, run: () => Promise<Measured>): Promise<Measured> {
  const before = await mainThreadTimes(cdp);
  const m = await run();
  const after = await mainThreadTimes(cdp);
  const d = (k: keyof typeof SPLIT) => after[k] - before[k];
  m.split = { script: d("ScriptDuration"), style: d("RecalcStyleDuration"), layout: d("LayoutDuration") };
  return m;
}

/** Samples of one page case across runs. */
class PageCase {
  runs: Measured[] = [];
  heap = "";
  constructor(readonly name: string) {}
  add(m: Measured): void {
    this.runs.push(m);
  }
  row(): Row {
    const longest = max(this.runs.map((r) => r.longest));
    const handlerMax = max(this.runs.map((r) => max([0, ...r.handler])));
    const handlers = median(this.runs.map((r) => r.handler.length));
    const notes = [`longest task ${longest > 0 ? fmt(longest) + " ms" : "< 50 ms (none reported)"}`];
    if (handlers > 0) notes.push(`handler max ${fmt(handlerMax)} ms${handlers > 1 ? ` over ${handlers} msgs` : ""}`);
    const split = this.runs.filter((r) => r.split).map((r) => r.split!);
    if (split.length) {
      const m = (k: "script" | "style" | "layout") => fmt(median(split.map((x) => x[k])));
      notes.push(`main thread: script ${m("script")}, style ${m("style")}, layout ${m("layout")} ms`);
    }
    const setState = this.runs.flatMap((r) => r.setState);
    if (setState.length) notes.push(`setState max ${fmt(max(setState))} ms`);
    if (handlers >= 200) {
      const first = median(this.runs.map((r) => mean(r.handler.slice(0, 100))));
      const last = median(this.runs.map((r) => mean(r.handler.slice(-100))));
      notes.push(`per msg: first 100 ${fmt(first)} ms, last 100 ${fmt(last)} ms`);
    }
    const draws = this.runs.map((r) => r.draws.filter((d) => d >= 0.05));
    const drawCount = median(draws.map((d) => d.length));
    if (drawCount > 0) {
      let note = `draws ${drawCount}, max ${fmt(max(draws.map((d) => max([0, ...d]))))} ms`;
      if (drawCount >= 100) {
        const first = median(draws.map((d) => mean(d.slice(0, 50))));
        const last = median(draws.map((d) => mean(d.slice(-50))));
        note += `, first 50 ${fmt(first)} ms, last 50 ${fmt(last)} ms each`;
      }
      notes.push(note);
    }
    if (this.heap) notes.push(`heap ${this.heap}`);
    return { name: this.name, samples: this.runs.map((r) => r.ms), note: notes.join("; ") };
  }
}

const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);

/** Starts each run from an empty conversation, garbage collected. */
async function fresh(page: Page, cdp: CDPSession): Promise<void> {
  await post(page, [{ type: "clear" }, { type: "state", source: "bench", running: true }]);
  await page.waitForFunction(() => (globalThis as any).document.querySelector(".empty") !== null, undefined, { timeout: 10000 });
  await cdp.send("HeapProfiler.collectGarbage");
}

/** JS heap in use right after a case, and what stays after a GC. */
async function heapAfter(cdp: CDPSession): Promise<string> {
  const before = (await cdp.send("Runtime.getHeapUsage")).usedSize;
  await cdp.send("HeapProfiler.collectGarbage");
  const after = (await cdp.send("Runtime.getHeapUsage")).usedSize;
  return `${mb(before)} used, ${mb(after)} after GC`;
}

const turnSel = (id: number) => `section.turn[data-turn-id="${id}"]`;

async function resultCases(page: Page, cdp: CDPSession, st: any): Promise<PageCase[]> {
  const shown = new PageCase("tool_result 500x8 -> table + chart drawn");
  const ended = new PageCase("turnEnd with the 500 rows -> turn redrawn");
  const byTotal = new PageCase("click 'total' header -> 500 rows re-sorted");
  const byCustomer = new PageCase("click 'customer' header -> 500 rows re-sorted");
  for (let run = 0; run < PAGE_RUNS; run++) {
    await fresh(page, cdp);
    await post(page, [turnStart(1), sqlCall(1)]);
    await page.waitForSelector(turnSel(1), { timeout: 10000 });
    await page.evaluate((msgs) => ((globalThis as any).__bench.msgs = msgs), { result: sqlResult(1, st), end: turnEnd(1, st, "Here are the last 500 orders.") });
    shown.add(await withSplit(cdp, () => page.evaluate(([sel, rows]) => {
      const g = globalThis as any;
      const drawn = () => g.document.querySelectorAll(`${sel} table.data tbody tr`).length === rows && g.document.querySelector(`${sel} figure.chart canvas`) !== null;
      return g.__bench.measure(() => g.postMessage(g.__bench.msgs.result, "*"), drawn, 30000);
    }, [turnSel(1), ROWS] as const)));
    ended.add(await withSplit(cdp, () => page.evaluate((sel) => {
      const g = globalThis as any;
      const done = () => g.document.querySelector(`${sel} .status`) === null && g.document.querySelector(`${sel} table.data`) !== null;
      return g.__bench.measure(() => g.postMessage(g.__bench.msgs.end, "*"), done, 30000);
    }, turnSel(1))));
    for (const [c, column] of [[byTotal, "total"], [byCustomer, "customer"]] as const) c.add(await withSplit(cdp, () => clickSort(page, column)));
  }
  shown.heap = await heapAfter(cdp);
  return [shown, ended, byTotal, byCustomer];
}

/** Early rows: a running SELECT's first page, then its result replacing it. */
async function earlyRowsCases(page: Page, cdp: CDPSession, st: any): Promise<PageCase[]> {
  const early = new PageCase("rows 500x8 (running) -> early table drawn");
  const replaced = new PageCase("tool_result 500x8 -> early table replaced, chart drawn");
  const running = { ...st, status: "running", rowCount: 20000, truncated: true };
  for (let run = 0; run < PAGE_RUNS; run++) {
    await fresh(page, cdp);
    await post(page, [turnStart(3), sqlCall(3)]);
    await page.waitForSelector(turnSel(3), { timeout: 10000 });
    await page.evaluate((msgs) => ((globalThis as any).__bench.msgs = msgs), { rows: ev(3, { kind: "rows", tool: "execute_sql", callId: "call_1", statement: running }), result: sqlResult(3, st) });
    early.add(await withSplit(cdp, () => page.evaluate(([sel, rows]) => {
      const g = globalThis as any;
      const drawn = () => g.document.querySelectorAll(`${sel} table.data tbody tr`).length === rows && g.document.querySelector(`${sel} .running-mark`) !== null;
      return g.__bench.measure(() => g.postMessage(g.__bench.msgs.rows, "*"), drawn, 30000);
    }, [turnSel(3), ROWS] as const)));
    replaced.add(await withSplit(cdp, () => page.evaluate(([sel, rows]) => {
      const g = globalThis as any;
      const drawn = () =>
        g.document.querySelector(`${sel} .running-mark`) === null &&
        g.document.querySelectorAll(`${sel} table.data tbody tr`).length === rows &&
        g.document.querySelector(`${sel} figure.chart canvas`) !== null;
      return g.__bench.measure(() => g.postMessage(g.__bench.msgs.result, "*"), drawn, 30000);
    }, [turnSel(3), ROWS] as const)));
  }
  return [early, replaced];
}

/** Clicks a column's header; done when the header says it sorts another way. */
async function clickSort(page: Page, column: string): Promise<Measured> {
  return page.evaluate(([sel, col]) => {
    const g = globalThis as any;
    const header = () => [...g.document.querySelectorAll(`${sel} table.data thead th`)].find((th: any) => th.textContent.includes(col));
    const before = header();
    const was = before.getAttribute("aria-sort");
    const sorted = () => header().getAttribute("aria-sort") !== was;
    return g.__bench.measure(() => before.click(), sorted, 30000);
  }, [turnSel(1), column] as const);
}

/** PIECES text pieces, posted in one loop or perFrame a frame, until the last one is shown. */
async function streamCase(page: Page, cdp: CDPSession, name: string, runs: number, perFrame: number, before: (turnId: number) => unknown[]): Promise<PageCase> {
  const c = new PageCase(name);
  const pieces = answerPieces();
  for (let run = 0; run < runs; run++) {
    await fresh(page, cdp);
    await post(page, [turnStart(2), ...before(2)]);
    await page.waitForSelector(turnSel(2), { timeout: 10000 });
    await page.evaluate((msgs) => ((globalThis as any).__bench.msgs = msgs), pieces.map((p) => textPiece(2, p)));
    c.add(await withSplit(cdp, () => page.evaluate(([sel, marker, n]) => {
      const g = globalThis as any;
      const shown = () => {
        const md = g.document.querySelectorAll(`${sel} .answer .md`);
        return md.length > 0 && md[md.length - 1].textContent.includes(marker);
      };
      return g.__bench.measure(() => g.__bench.stream(g.__bench.msgs, n), shown, 600000);
    }, [turnSel(2), MARKER, perFrame] as const)));
  }
  c.heap = await heapAfter(cdp);
  return c;
}

async function pageBench(): Promise<{ rows: Row[]; info: string }> {
  const served = await serve({ before: BEFORE, after: AFTER });
  let browser: Awaited<ReturnType<typeof openChat>> | undefined;
  try {
    browser = await openChat(served);
    const page = browser.page;
    // The first messages are a replay, drawn once they pause; after this
    // turn is drawn, each message is drawn as it comes.
    await post(page, [{ type: "state", source: "bench", running: false }, turnStart(99)]);
    await page.waitForSelector(turnSel(99), { timeout: 10000 });
    const cdp = await browser.context.newCDPSession(page);
    await cdp.send("Performance.enable");
    const st = bigStatement();
    const afterResult = (id: number) => [sqlCall(id), sqlResult(id, st)];
    const cases = [
      ...(await resultCases(page, cdp, st)),
      ...(await earlyRowsCases(page, cdp, st)),
      await streamCase(page, cdp, `${PIECES} text pieces at once, text-only turn`, PAGE_RUNS, 0, () => []),
      await streamCase(page, cdp, `${PIECES} text pieces at once, after a 500x8 result`, PAGE_RUNS, 0, afterResult),
      await streamCase(page, cdp, `${PIECES} text pieces, ${PER_FRAME} a frame, after a 500x8 result`, 1, PER_FRAME, afterResult),
    ];
    if (browser.problems.length) throw new Error(`the page reported: ${browser.problems.join("; ")}`);
    const lt = await page.evaluate(() => (globalThis as any).__bench.longtaskSupported);
    const ua: string = await page.evaluate(() => (globalThis as any).navigator.userAgent);
    const info = `${/Chrom\S+/.exec(ua)?.[0] ?? "Chromium"}; longest task from ${lt ? "PerformanceObserver 'longtask' (reports tasks >= 50 ms)" : "the longest gap of a 1 ms setInterval"}`;
    return { rows: cases.map((c) => c.row()), info };
  } finally {
    await browser?.close();
    served.close();
  }
}

async function main(): Promise<void> {
  const deadline = setTimeout(() => {
    console.error("bench FAILED: it took more than 10 minutes");
    process.exit(1);
  }, 10 * 60000);
  try {
    console.log(`aiq chat view bench: ${ROWS} rows x ${COLUMNS.length} columns, ${PIECES} streamed pieces; Node ${process.version}, ${os.cpus().length} cores`);
    printTable(`view.js in Node (${NODE_RUNS} runs after a warm-up)`, nodeBench());
    if (!fs.existsSync(CHROMIUM)) {
      console.log(`\npage part not run: ${CHROMIUM} is missing (install it with: apt-get install chromium)`);
      return;
    }
    const { rows, info } = await pageBench();
    printTable(`the panel in headless Chromium: post -> drawn + 2 frames (${info})`, rows);
  } catch (e) {
    console.error(`bench FAILED: ${e instanceof Error ? e.stack : String(e)}`);
    process.exitCode = 1;
  } finally {
    clearTimeout(deadline);
  }
}

void main();
