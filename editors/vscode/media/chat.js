// @ts-check
// The chat panel's DOM: draws media/view.js's model and sends the user's
// actions to the extension. Everything from the database or the model goes
// in as textContent or an SVG attribute, never as HTML.
(function () {
  "use strict";

  /** @type {{ postMessage(msg: unknown): void, getState(): any, setState(s: unknown): void }} */
  // @ts-ignore: VS Code defines it in the webview.
  const vscode = acquireVsCodeApi();
  /** @type {any} */
  const V = /** @type {any} */ (window).aiqView;
  const SVG_NS = "http://www.w3.org/2000/svg";

  const saved = vscode.getState() || {};
  /** @type {any} */
  let model = saved.model && Array.isArray(saved.model.entries) ? saved.model : V.emptyModel();
  if (!model.sorts) model.sorts = {};
  model.running = false; // the extension says so again after "ready"
  // After "ready" the extension sends the state and then the whole
  // conversation again, so the first message starts the model anew; until
  // then the saved one is shown, so a view shown again does not flash empty.
  let replayPending = true;

  // ---- Small element helpers ----

  /** @param {string} tag @param {string} [cls] @param {string} [text] @returns {HTMLElement} */
  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  /** @param {string} tag @param {Record<string, string | number>} attrs @param {string} [text] */
  function svg(tag, attrs, text) {
    const e = document.createElementNS(SVG_NS, tag);
    for (const k of Object.keys(attrs)) e.setAttribute(k, String(attrs[k]));
    if (text !== undefined) e.textContent = text;
    return e;
  }

  /** A tooltip on an SVG shape. @param {Element} parent @param {string} text */
  function svgTitle(parent, text) {
    parent.appendChild(svg("title", {}, text));
    return parent;
  }

  /** @param {string} label @param {() => void} onClick @param {string} [cls] */
  function button(label, onClick, cls) {
    const b = /** @type {HTMLButtonElement} */ (el("button", cls, label));
    b.type = "button";
    b.addEventListener("click", onClick);
    return b;
  }

  // ---- The page's frame ----

  const app = /** @type {HTMLElement} */ (document.getElementById("app"));
  const header = el("header", "aiq-header");
  const sourceLabel = el("span", "source");
  const runningLabel = el("span", "running", "Running");
  runningLabel.prepend(el("span", "spinner"));
  header.append(sourceLabel, runningLabel);

  const conversation = el("main", "conversation");
  conversation.setAttribute("aria-live", "polite");

  const composer = el("footer", "composer");
  const input = /** @type {HTMLTextAreaElement} */ (el("textarea", "ask-input"));
  input.rows = 1;
  input.placeholder = "Ask about your data, or paste SQL (Enter to ask, Shift+Enter for a new line)";
  input.setAttribute("aria-label", "Question");
  input.value = typeof saved.draft === "string" ? saved.draft : "";
  const askButton = button("Ask", ask, "primary ask");
  const stopButton = button("Stop", () => vscode.postMessage({ type: "cancel" }), "secondary stop");
  composer.append(input, askButton, stopButton);
  app.append(header, conversation, composer);

  function ask() {
    const query = input.value.trim();
    if (!query || model.running) return;
    vscode.postMessage({ type: "ask", query });
    input.value = "";
    fitInput();
    save();
  }

  input.addEventListener("keydown", (e) => {
    if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      ask();
    }
  });
  input.addEventListener("input", () => {
    fitInput();
    saveSoon();
  });

  // The box grows with its text up to a third of the panel.
  function fitInput() {
    input.style.height = "auto";
    input.style.height = Math.min(input.scrollHeight + 2, Math.max(60, window.innerHeight / 3)) + "px";
  }

  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let saveTimer;

  function save() {
    clearTimeout(saveTimer);
    saveTimer = undefined;
    vscode.setState({ model, draft: input.value });
  }

  // A streamed answer changes the model many times a second, and the state
  // holds every result's rows: save at most every 150 ms.
  function saveSoon() {
    if (saveTimer === undefined) saveTimer = setTimeout(save, 150);
  }

  // ---- Drawing ----

  function renderFrame() {
    sourceLabel.textContent = "";
    sourceLabel.append(el("span", "source-caption", "Source"), el("span", "source-name", model.source || "no database"));
    runningLabel.hidden = !model.running;
    stopButton.hidden = !model.running;
    askButton.disabled = !!model.running;
  }

  function renderAll() {
    const keepBottom = nearBottom();
    conversation.textContent = "";
    if (model.entries.length === 0) conversation.append(emptyState());
    for (const entry of model.entries) conversation.append(entry.kind === "turn" ? renderTurn(entry) : renderNotice(entry));
    renderFrame();
    if (keepBottom) scrollToBottom();
  }

  /** @param {number} id */
  function renderTurnById(id) {
    const keepBottom = nearBottom();
    const turn = model.entries.find((/** @type {any} */ e) => e.kind === "turn" && e.id === id);
    const old = conversation.querySelector(`section.turn[data-turn-id="${CSS.escape(String(id))}"]`);
    if (!turn) return;
    const fresh = renderTurn(turn);
    if (old) old.replaceWith(fresh);
    else {
      conversation.querySelector(".empty")?.remove();
      conversation.append(fresh);
    }
    renderFrame();
    if (keepBottom) scrollToBottom();
  }

  function nearBottom() {
    return conversation.scrollHeight - conversation.scrollTop - conversation.clientHeight < 60;
  }

  function scrollToBottom() {
    conversation.scrollTop = conversation.scrollHeight;
  }

  function emptyState() {
    const box = el("div", "empty");
    box.append(
      el("p", "empty-title", "Ask your database a question."),
      el("p", undefined, "Type below, or select a question or SQL in an editor and run “AIQ: Ask”. Results show as tables and charts."),
    );
    return box;
  }

  /** @param {any} n */
  function renderNotice(n) {
    const box = el("div", `notice notice-${n.level}`);
    box.setAttribute("role", n.level === "error" ? "alert" : "status");
    box.append(el("span", "notice-level", n.level === "error" ? "Error" : n.level === "warning" ? "Warning" : "Info"), el("span", "notice-text", n.message));
    return box;
  }

  /** @param {any} turn */
  function renderTurn(turn) {
    const section = el("section", "turn");
    section.dataset.turnId = String(turn.id);

    const q = el("div", "question");
    q.append(el("div", "role", "You"));
    if (turn.query) q.append(renderMarkdown(turn.query));
    if (turn.selection) q.append(codeBlock(turn.selection.text, turn.selection.languageId, "selection"));
    section.append(q);

    const a = el("div", "answer");
    a.append(el("div", "role", "AIQ"));
    for (const block of V.turnBlocks(turn)) a.append(block.autoChart ? chartFigure(block.autoChart, true) : renderItem(turn, block.item, block.index));
    if (!turn.done) {
      const s = el("div", "status", turn.status || "Thinking");
      s.prepend(el("span", "spinner"));
      a.append(s);
    }
    if (turn.cancelled) a.append(el("div", "cancelled", "Stopped. The answer so far is shown; the conversation is as it was before this question."));
    if (turn.error) {
      const err = el("div", "error", turn.error);
      err.setAttribute("role", "alert");
      a.append(err);
    }
    for (const w of turn.warnings || []) a.append(el("div", "warning", w));
    section.append(a);
    return section;
  }

  // Blocks already drawn, by item, so streaming text does not redraw
  // every table of the turn 25 times a second.
  /** @type {WeakMap<object, { key: string, node: Node }>} */
  const drawn = new WeakMap();

  /** @param {any} turn @param {any} item @param {number} index */
  function renderItem(turn, item, index) {
    const sortKey = V.sortKey(turn.id, index);
    const key = item.kind === "text" ? item.text : JSON.stringify([item.summary, model.sorts[sortKey], !!item.statement, turn.done]);
    const hit = drawn.get(item);
    if (hit && hit.key === key) return hit.node;
    const node = buildItem(turn, item, sortKey);
    drawn.set(item, { key, node });
    return node;
  }

  /** @param {any} turn @param {any} item @param {string} sortKey @returns {Node} */
  function buildItem(turn, item, sortKey) {
    switch (item.kind) {
      case "text":
        return renderMarkdown(item.text);
      case "sql":
        return sqlItem(turn, item, sortKey);
      case "chart":
        return chartFigure(item.chart, false);
      default: {
        const line = el("div", "tool-line", item.tool);
        if (item.summary) line.append(el("span", "tool-summary", " · " + item.summary));
        return line;
      }
    }
  }

  /** @param {string} text */
  function renderMarkdown(text) {
    const box = el("div", "md");
    for (const b of V.parseMarkdown(text)) {
      if (b.type === "para") box.append(inlines(el("p"), b.inlines));
      else if (b.type === "list") {
        const ul = el("ul");
        for (const item of b.items) ul.append(inlines(el("li"), item));
        box.append(ul);
      } else box.append(codeBlock(b.text, b.lang, "fenced"));
    }
    return box;
  }

  /** @param {HTMLElement} parent @param {{ code: boolean, text: string }[]} parts */
  function inlines(parent, parts) {
    for (const p of parts) parent.append(p.code ? el("code", undefined, p.text) : document.createTextNode(p.text));
    return parent;
  }

  /** @param {string} lang */
  function isSQL(lang) {
    return /^(sql|mysql|pgsql|postgres(ql)?|sqlite|plsql|tsql)$/i.test(lang || "");
  }

  /** A code block; SQL is highlighted and can be copied or inserted. @param {string} text @param {string} lang @param {string} cls */
  function codeBlock(text, lang, cls) {
    const box = el("div", `code-block ${cls}`);
    const sql = isSQL(lang);
    const bar = el("div", "code-bar");
    bar.append(el("span", "code-lang", sql ? "SQL" : lang || "text"));
    if (sql) {
      const copy = button("Copy", () => {
        vscode.postMessage({ type: "copy", text });
        copy.textContent = "Copied";
        setTimeout(() => (copy.textContent = "Copy"), 1500);
      }, "small copy");
      bar.append(copy, button("Insert", () => vscode.postMessage({ type: "insert", text }), "small insert"));
    }
    const pre = el("pre");
    const code = el("code");
    if (sql) {
      for (const t of V.tokenizeSQL(text)) code.append(t.type === "space" || t.type === "punct" ? document.createTextNode(t.text) : el("span", `tok-${t.type}`, t.text));
    } else code.textContent = text;
    pre.append(code);
    box.append(bar, pre);
    return box;
  }

  /** @param {any} turn @param {any} item @param {string} sortKey */
  function sqlItem(turn, item, sortKey) {
    const box = el("div", "sql-item");
    box.append(codeBlock(item.sql, "sql", "statement"));
    const st = item.statement;
    if (!st) {
      if (turn.done) box.append(el("div", "muted", item.summary || "No result."));
      return box;
    }
    if (st.status === "error") box.append(el("div", "error", "The query failed: " + (st.error || "unknown error")));
    else if (st.status === "rejected") box.append(el("div", "muted", "Not run: " + (st.error || "rejected.")));
    else if (st.status === "cancelled") box.append(el("div", "muted", "Cancelled."));
    else if (st.columns && st.columns.length) box.append(resultTable(turn, st, sortKey));
    else box.append(el("div", "muted", `${st.rowCount ?? 0} row(s) affected.`));
    return box;
  }

  /** @param {number} n */
  function count(n) {
    return n.toLocaleString("en-US");
  }

  /** @param {any} turn @param {any} st @param {string} sortKey */
  function resultTable(turn, st, sortKey) {
    const rows = st.rows || [];
    const sort = model.sorts[sortKey];
    const shown = sort ? V.sortRows(rows, sort.col, sort.dir) : rows;
    const numeric = st.columns.map((/** @type {any} */ _, /** @type {number} */ i) => V.isNumericColumn(rows, i));

    const wrap = el("div", "result");
    const total = st.rowCount ?? rows.length;
    const meta = st.truncated || total > rows.length ? `${count(rows.length)} of ${count(total)} rows shown` : `${count(total)} row${total === 1 ? "" : "s"}`;
    wrap.append(el("div", "result-meta", meta));

    const scroller = el("div", "table-wrap");
    const table = el("table", "data");
    const head = el("tr");
    st.columns.forEach((/** @type {string} */ name, /** @type {number} */ i) => {
      const th = el("th", numeric[i] ? "num" : "", name);
      th.title = `Sort by ${name}`;
      th.tabIndex = 0;
      const dir = sort && sort.col === i ? sort.dir : "";
      th.setAttribute("aria-sort", dir === "asc" ? "ascending" : dir === "desc" ? "descending" : "none");
      // The mark goes on the side away from the column's alignment, so names line up with values.
      const mark = el("span", "sort-mark", dir === "asc" ? "▲" : dir === "desc" ? "▼" : "");
      if (numeric[i]) th.prepend(mark);
      else th.append(mark);
      const resort = () => {
        model.sorts[sortKey] = V.nextSort(model.sorts[sortKey], i);
        renderTurnById(turn.id);
        save();
      };
      th.addEventListener("click", resort);
      th.addEventListener("keydown", (e) => {
        if (e.key === "Enter" || e.key === " ") {
          e.preventDefault();
          resort();
        }
      });
      head.append(th);
    });
    const thead = el("thead");
    thead.append(head);
    const tbody = el("tbody");
    for (const row of shown) {
      const tr = el("tr");
      st.columns.forEach((/** @type {string} */ _, /** @type {number} */ i) => {
        const v = row[i];
        const cls = [numeric[i] ? "num" : "", v === null || v === undefined ? "null" : ""].join(" ").trim();
        tr.append(el("td", cls, V.formatCell(v)));
      });
      tbody.append(tr);
    }
    table.append(thead, tbody);
    scroller.append(table);
    wrap.append(scroller);
    return wrap;
  }

  // ---- Charts ----

  /** @param {any} chart @param {boolean} automatic */
  function chartFigure(chart, automatic) {
    const fig = el("figure", `chart chart-${chart.chartType}`);
    const caption = el("figcaption", "chart-title", chart.title || `${chart.y} by ${chart.x}`);
    if (automatic) caption.append(el("span", "chart-auto", "auto"));
    fig.append(caption);
    const g = V.chartGeometry(chart, { width: 440, height: 240 });
    const root = svg("svg", { viewBox: `0 0 ${g.width} ${g.height}`, width: g.width, height: g.height, role: "img", class: "chart-svg" });
    root.setAttribute("aria-label", caption.textContent || "chart");
    if (g.kind === "pie") drawPie(root, g);
    else {
      drawAxes(root, g, chart);
      if (g.kind === "bar") drawBars(root, g);
      else if (g.kind === "line") drawLine(root, g);
      else drawScatter(root, g);
    }
    fig.append(root);
    const notes = [];
    if (chart.skipped) notes.push(`${chart.skipped} row${chart.skipped === 1 ? "" : "s"} with NULL not drawn.`);
    if (chart.truncated) notes.push("Only the first rows are drawn.");
    if (notes.length) fig.append(el("div", "chart-note", notes.join(" ")));
    return fig;
  }

  /** @param {SVGElement} root @param {any} g @param {any} chart */
  function drawAxes(root, g, chart) {
    const p = g.plot;
    const right = p.left + p.width;
    for (const t of g.yTicks) {
      root.append(svg("line", { x1: p.left, x2: right, y1: t.y, y2: t.y, class: "grid" }));
      root.append(svg("text", { x: p.left - 6, y: t.y + 4, "text-anchor": "end", class: "tick" }, t.text));
    }
    root.append(svg("line", { x1: p.left, x2: right, y1: p.top + p.height, y2: p.top + p.height, class: "axis" }));
    for (const l of g.xLabels) {
      /** @type {Record<string, string | number>} */
      const attrs = g.rotateLabels
        ? { x: l.x, y: l.y, "text-anchor": "end", transform: `rotate(-40 ${l.x} ${l.y - 4})`, class: "tick" }
        : { x: l.x, y: l.y, "text-anchor": "middle", class: "tick" };
      root.append(svgTitle(svg("text", attrs, l.text), l.full));
    }
    // The y column's name above the y labels; the x column's under the x labels.
    root.append(svg("text", { x: 2, y: 9, class: "axis-name" }, chart.y));
    root.append(svg("text", { x: right, y: g.height - 3, "text-anchor": "end", class: "axis-name" }, chart.x));
  }

  /** @param {SVGElement} root @param {any} g */
  function drawBars(root, g) {
    for (const b of g.bars) root.append(svgTitle(svg("rect", { x: b.x, y: b.y, width: b.width, height: b.height, rx: 2, class: "bar" }), `${b.label}: ${V.formatValue(b.value)}`));
  }

  /** @param {SVGElement} root @param {any} g */
  function drawLine(root, g) {
    root.append(svg("path", { d: g.path, class: "line" }));
    for (const p of g.points) root.append(svgTitle(svg("circle", { cx: p.x, cy: p.y, r: 3, class: "point" }), `${p.label}: ${V.formatValue(p.value)}`));
  }

  /** @param {SVGElement} root @param {any} g */
  function drawScatter(root, g) {
    for (const p of g.points) root.append(svgTitle(svg("circle", { cx: p.x, cy: p.y, r: 3.5, class: "point" }), p.label));
  }

  /** @param {SVGElement} root @param {any} g */
  function drawPie(root, g) {
    for (const s of g.slices) {
      root.append(svgTitle(svg("path", { d: s.d, class: `slice slice-${s.color}` }), `${s.label}: ${V.formatValue(s.value)} (${Math.round(s.fraction * 100)}%)`));
    }
    for (const l of g.legend) {
      root.append(svg("rect", { x: l.x, y: l.y - 5, width: 10, height: 10, rx: 2, class: `slice slice-${l.color}` }));
      root.append(svgTitle(svg("text", { x: l.x + 16, y: l.y + 4, class: "legend" }, l.text), l.full));
    }
  }

  // ---- Messages from the extension ----

  // While the replay streams in, the saved view stays up; it is redrawn
  // once the messages pause.
  let replaying = false;
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let replayTimer;

  window.addEventListener("message", (event) => {
    if (replayPending) {
      replayPending = false;
      replaying = true;
      model = V.restart(model);
    }
    const { changed } = V.apply(model, event.data);
    saveSoon();
    if (replaying) {
      clearTimeout(replayTimer);
      replayTimer = setTimeout(() => {
        replaying = false;
        renderAll();
      }, 30);
      return;
    }
    if (changed === "none") renderFrame();
    else if (changed === null) renderAll();
    else renderTurnById(changed);
  });

  fitInput();
  renderAll();
  vscode.postMessage({ type: "ready" });
})();
