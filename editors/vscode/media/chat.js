// @ts-check
// The chat panel's DOM: draws media/view.js's model and sends the user's
// actions to the extension. Everything from the database or the model goes
// in as textContent (or as a chart's data, drawn on a canvas by
// media/charts.js), never as HTML.
(function () {
  "use strict";

  /** @type {{ postMessage(msg: unknown): void, getState(): any, setState(s: unknown): void }} */
  // @ts-ignore: VS Code defines it in the webview.
  const vscode = acquireVsCodeApi();
  /** @type {any} */
  const V = /** @type {any} */ (window).aiqView;
  /** media/charts.js: draws the charts. @type {any} */
  const charts = /** @type {any} */ (window).aiqCharts;

  const saved = vscode.getState() || {};
  /** @type {any} */
  let model = saved.model && Array.isArray(saved.model.entries) ? saved.model : V.emptyModel();
  if (!model.sorts) model.sorts = {};
  model.running = false; // the extension says so again after "ready"
  // After "ready" the extension sends the state and then the whole
  // conversation again, so the first message starts the model anew; until
  // then the saved one is shown, so a view shown again does not flash empty.
  // It holds no result rows (V.savedModel): those come with the replay, or
  // after a reload with chat/history's seen.
  let replayPending = true;

  // ---- Small element helpers ----

  /** @param {string} tag @param {string} [cls] @param {string} [text] @returns {HTMLElement} */
  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
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

  // Up and Down in the empty input recall the conversation's questions, as
  // a shell's history does; typing ends the recall.
  /** @type {number | null} */
  let recalled = null;
  function questions() {
    return model.entries.map((/** @type {any} */ t) => String(t.query || "").trim()).filter((/** @type {string} */ q) => q !== "");
  }
  /** @param {number} step */
  function recall(step) {
    const list = questions();
    if (!list.length) return false;
    const at = recalled === null ? list.length : recalled;
    const next = Math.max(0, at + step);
    if (next >= list.length) {
      recalled = null;
      input.value = "";
    } else {
      recalled = next;
      input.value = list[next];
    }
    fitInput();
    return true;
  }

  input.addEventListener("keydown", (e) => {
    if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      recalled = null;
      ask();
    } else if ((e.key === "ArrowUp" || e.key === "ArrowDown") && !e.shiftKey && !e.altKey && (input.value === "" || recalled !== null)) {
      if (recall(e.key === "ArrowUp" ? -1 : 1)) e.preventDefault();
    }
  });
  input.addEventListener("input", () => {
    recalled = null;
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
    vscode.setState({ model: V.savedModel(model), draft: input.value });
  }

  // A streamed answer changes the model many times a second: save at most
  // every 150 ms.
  function saveSoon() {
    if (saveTimer === undefined) saveTimer = setTimeout(save, 150);
  }

  // ---- Drawing ----
  //
  // A message changes the model at once and marks what it changed; the
  // panel is drawn at most once a frame, and only that. A turn keeps its
  // section and every block already drawn (tables, charts, finished
  // paragraphs): aiq-rpc streams a piece of text every few tens of ms, and
  // rebuilding a turn that holds a 500-row table for each falls behind.

  /** What changed since the last draw. */
  const dirty = { all: false, turns: /** @type {Set<number>} */ (new Set()) };
  let frameRequest = 0;

  function scheduleDraw() {
    if (!frameRequest) frameRequest = requestAnimationFrame(draw);
  }

  function drawAll() {
    dirty.all = true;
    draw();
  }

  /** Set by a history message: the next draw scrolls to the end. */
  let forceBottom = false;

  function draw() {
    if (frameRequest) cancelAnimationFrame(frameRequest);
    frameRequest = 0;
    const keepBottom = nearBottom();
    if (!dirty.all) {
      for (const id of dirty.turns) {
        const turn = findTurn(id);
        // A new turn, or a new turn object for a known id, is not in place yet.
        if (turn && !updateTurn(turn).isConnected) dirty.all = true;
      }
    }
    const placed = dirty.all;
    if (dirty.all) placeEntries();
    dirty.all = false;
    if (placed) charts.sweep();
    dirty.turns.clear();
    renderFrame();
    if (keepBottom || forceBottom) scrollToBottom();
    forceBottom = false;
  }

  /** @param {number} id */
  function findTurn(id) {
    for (let i = model.entries.length - 1; i >= 0; i--) {
      const e = model.entries[i];
      if (e.kind === "turn" && e.id === id) return e;
    }
    return undefined;
  }

  const sourceName = el("span", "source-name");
  const sourceBadge = el("span", "source-badge");
  sourceBadge.hidden = true;
  const modelName = el("span", "source-model");
  sourceLabel.append(el("span", "source-caption", "Source"), sourceName, sourceBadge, modelName);

  function renderFrame() {
    // The label is a badge of its own, not words after the name.
    const badge = model.source && model.label ? String(model.label) : "";
    setText(sourceName, V.sourceLabel({ ...model, label: "" }));
    setText(sourceBadge, badge);
    sourceBadge.hidden = !badge;
    sourceBadge.title = badge ? `Labelled ${badge} in sources.yaml: every write asks, and "Allow always" is not offered.` : "";
    const modelText = V.modelLabel(model);
    setText(modelName, modelText ? `· ${modelText}` : "");
    modelName.title = modelText ? `Model: ${modelText} (AIQ: Select Model picks another)` : "";
    runningLabel.hidden = !model.running;
    stopButton.hidden = !model.running;
    askButton.disabled = !!model.running;
  }

  /** Sets a node's text only when it differs: an equal write still costs a relayout. @param {Node} node @param {string} text */
  function setText(node, text) {
    if (node.textContent !== text) node.textContent = text;
  }

  /**
   * Makes parent's children from index `from` on exactly `nodes`, moving
   * only those out of place: a node taken out and put back is styled and
   * laid out anew, which for a big table is most of a frame.
   * @param {Node} parent @param {Node[]} nodes @param {number} [from]
   */
  function placeChildren(parent, nodes, from = 0) {
    /** @type {ChildNode | null} */
    let at = parent.childNodes[from] || null;
    for (const n of nodes) {
      if (n === at) at = at.nextSibling;
      else parent.insertBefore(n, at);
    }
    while (at) {
      const next = at.nextSibling;
      parent.removeChild(at);
      at = next;
    }
  }

  /** Every entry's node, in order; turns and notices drawn before are kept. */
  function placeEntries() {
    const nodes = model.entries.map((/** @type {any} */ e) => (e.kind === "turn" ? updateTurn(e) : noticeNode(e)));
    placeChildren(conversation, nodes.length ? nodes : [emptyState]);
  }

  function nearBottom() {
    return conversation.scrollHeight - conversation.scrollTop - conversation.clientHeight < 60;
  }

  function scrollToBottom() {
    conversation.scrollTop = conversation.scrollHeight;
  }

  const emptyState = el("div", "empty");
  emptyState.append(
    el("p", "empty-title", "Ask your database a question."),
    el("p", undefined, "Type below, or select a question or SQL in an editor and run “AIQ: Ask”. Results show as tables and charts."),
  );

  /** @type {WeakMap<object, HTMLElement>} */
  const notices = new WeakMap();

  /** @param {any} n */
  function noticeNode(n) {
    let box = notices.get(n);
    if (!box) {
      box = el("div", `notice notice-${n.level}`);
      box.setAttribute("role", n.level === "error" ? "alert" : "status");
      box.append(el("span", "notice-level", n.level === "error" ? "Error" : n.level === "warning" ? "Warning" : "Info"), el("span", "notice-text", n.message));
      notices.set(n, box);
    }
    return box;
  }

  // ---- Turns ----

  /**
   * A turn's elements, kept while the turn object lives (turnStart for a
   * known id makes a new one).
   * @typedef {{ section: HTMLElement, answer: HTMLElement, role: HTMLElement, status: HTMLElement,
   *   statusText: Text, ends: Map<string, { key: string, nodes: Node[] }> }} TurnView
   */
  /** @type {WeakMap<object, TurnView>} */
  const turnViews = new WeakMap();

  /** Brings the turn's section up to date and returns it. @param {any} turn */
  function updateTurn(turn) {
    let v = turnViews.get(turn);
    if (!v) {
      v = newTurnView(turn);
      turnViews.set(turn, v);
    }
    placeChildren(v.answer, answerNodes(turn, v));
    return v.section;
  }

  /** @param {any} turn @returns {TurnView} */
  function newTurnView(turn) {
    const section = el("section", "turn");
    section.dataset.turnId = String(turn.id);
    const q = el("div", "question");
    q.append(el("div", "role", "You"));
    if (turn.query) q.append(newMarkdown(turn.query).box);
    if (turn.selection) q.append(codeBlock(turn.selection.text, turn.selection.languageId, "selection"));
    const answer = el("div", "answer");
    section.append(q, answer);
    const statusText = document.createTextNode("");
    const status = el("div", "status");
    status.append(el("span", "spinner"), statusText);
    return { section, answer, role: el("div", "role", "AIQ"), status, statusText, ends: new Map() };
  }

  /** What the answer shows, in order, reusing what is drawn already. @param {any} turn @param {TurnView} v */
  function answerNodes(turn, v) {
    /** @type {Node[]} */
    const nodes = [v.role];
    for (const block of V.turnBlocks(turn)) {
      const item = turn.items[block.index];
      nodes.push(block.autoChart ? autoChartNode(item, block.autoChart) : itemNode(turn, block.item, block.index));
    }
    if (!turn.done) {
      const status = V.turnStatus(turn);
      if (v.statusText.data !== status) v.statusText.data = status;
      nodes.push(v.status);
    }
    const stopped = "Stopped. The answer so far is shown; the conversation is as it was before this question.";
    nodes.push(...kept(v, "cancelled", turn.cancelled ? [stopped] : [], (t) => el("div", "cancelled", t)));
    nodes.push(...kept(v, "error", turn.error ? [turn.error] : [], (t) => {
      const err = el("div", "error", t);
      err.setAttribute("role", "alert");
      return err;
    }));
    nodes.push(...kept(v, "warnings", turn.warnings || [], (t) => el("div", "warning", t)));
    return nodes;
  }

  /**
   * The nodes of the lines under an answer (stopped, error, warnings), made
   * again only when their texts change.
   * @param {TurnView} v @param {string} name @param {string[]} texts @param {(t: string) => Node} make
   */
  function kept(v, name, texts, make) {
    const key = JSON.stringify(texts);
    let hit = v.ends.get(name);
    if (!hit || hit.key !== key) {
      hit = { key, nodes: texts.map(make) };
      v.ends.set(name, hit);
    }
    return hit.nodes;
  }

  // Blocks already drawn, by item: redrawn only when what they show changes.
  /** @type {WeakMap<object, any>} */
  const drawn = new WeakMap();

  /** @param {any} turn @param {any} item @param {number} index @returns {Node} */
  function itemNode(turn, item, index) {
    const hit = drawn.get(item);
    switch (item.kind) {
      case "text": {
        const md = hit || newMarkdown("");
        drawn.set(item, md);
        return updateMarkdown(md, item.text);
      }
      case "thought":
        return thoughtNode(item, hit);
      case "sql":
        return sqlNode(turn, item, index);
      case "chart":
        if (!hit || !charts.alive(hit.node)) drawn.set(item, { node: chartFigure(item.chart, false) });
        return drawn.get(item).node;
      case "confirm":
        return confirmNode(item, hit);
      default: {
        if (hit && hit.summary === item.summary) return hit.node;
        const line = el("div", "tool-line", item.tool);
        if (item.summary) line.append(el("span", "tool-summary", " · " + item.summary));
        drawn.set(item, { summary: item.summary, node: line });
        return line;
      }
    }
  }

  // ---- The write dialog ----

  /**
   * A statement that waits for the user: the heading, the SQL, a line per
   * masked token with its value, the note and the buttons, Reject first
   * and focused when it opens. Once closed by the extension without an
   * answer, its message takes its place.
   * @param {any} item @param {any} hit
   */
  function confirmNode(item, hit) {
    if (item.state === "done") {
      if (!hit || hit.state !== "done") {
        const line = el("div", "cancelled confirm-closed", item.message);
        line.setAttribute("role", "status");
        drawn.set(item, { state: "done", node: line });
      }
      return drawn.get(item).node;
    }
    if (hit) {
      for (const b of hit.buttons) b.disabled = item.state !== "open";
      return hit.node;
    }
    const box = el("div", "confirm");
    box.setAttribute("role", "alertdialog");
    const heading = el("div", "confirm-message", item.prompt.message);
    heading.id = `confirm-${item.id}`;
    box.setAttribute("aria-labelledby", heading.id);
    const row = el("div", "confirm-buttons");
    const buttons = item.prompt.buttons.map((/** @type {{ label: string, decision: string }} */ b, /** @type {number} */ i) => {
      const btn = button(b.label, () => answer(item, b.decision), i === 0 ? "primary confirm-safe" : "secondary confirm-allow");
      btn.dataset.decision = b.decision;
      return btn;
    });
    row.append(...buttons);
    box.append(heading, codeBlock(item.prompt.sql, "sql", "confirm-sql"));
    // What each masked token stands for: the user may see the values, as
    // in the result rows; only the model must not.
    for (const line of item.prompt.masked) box.append(el("div", "confirm-masked", line));
    box.append(el("div", "confirm-note", item.prompt.note), row);
    drawn.set(item, { state: item.state, node: box, buttons });
    // Reject has the focus once the dialog is in the page, so Enter rejects.
    setTimeout(() => {
      if (item.state === "open" && buttons[0] && buttons[0].isConnected) buttons[0].focus();
    }, 0);
    return box;
  }

  /** Sends the answer once; the dialog waits, disabled, for the extension to close it. @param {any} item @param {string} decision */
  function answer(item, decision) {
    if (item.state !== "open") return;
    item.state = "sent";
    vscode.postMessage({ type: "confirmAnswer", id: item.id, decision });
    dirty.all = true;
    scheduleDraw();
  }

  // Escape, and Enter anywhere but on an Allow button, reject an open dialog.
  document.addEventListener("keydown", (e) => {
    const item = V.openConfirm(model);
    if (!item || e.isComposing) return;
    const target = /** @type {HTMLElement | null} */ (e.target instanceof HTMLElement ? e.target : null);
    const focused = target && target.tagName === "BUTTON" && target.dataset.decision ? target.dataset.decision : undefined;
    if (V.confirmKey(e.key, focused) === "reject") {
      e.preventDefault();
      e.stopPropagation();
      answer(item, "reject");
    }
  }, true);

  /**
   * The model's reasoning: a "Thinking" block, collapsed unless the user
   * opened it, its text growing as it streams.
   * @param {any} item @param {any} hit
   */
  function thoughtNode(item, hit) {
    if (!hit) {
      const box = /** @type {HTMLDetailsElement} */ (el("details", "thought"));
      box.append(el("summary", "thought-title", "Thinking"));
      const body = el("div", "thought-text", "");
      box.append(body);
      hit = { node: box, body, text: "" };
      drawn.set(item, hit);
    }
    if (hit.text !== item.text) {
      hit.body.textContent = item.text;
      hit.text = item.text;
    }
    return hit.node;
  }

  // ---- Markdown, drawn as it streams ----

  /**
   * An answer's markdown box. The blocks before `cut` are finished (see
   * settledEnd in view.js) and never touched again; the ones after it,
   * `open`, are parsed again with each piece, and a block whose parse did
   * not change keeps its node.
   * @typedef {{ box: HTMLElement, text: string, cut: number, finished: number, open: { key: string, node: Node }[] }} Markdown
   */

  /** @param {string} text @returns {Markdown} */
  function newMarkdown(text) {
    const md = { box: el("div", "md"), text: "", cut: 0, finished: 0, open: [] };
    updateMarkdown(md, text);
    return md;
  }

  /** @param {Markdown} md @param {string} text */
  function updateMarkdown(md, text) {
    if (text === md.text) return md.box;
    if (!text.startsWith(md.text)) {
      // Not a continuation: start over.
      md.box.textContent = "";
      md.cut = md.finished = 0;
      md.open = [];
    }
    md.text = text;
    const cut = V.settledEnd(text, md.cut);
    const done = cut > md.cut ? V.parseMarkdown(text.slice(md.cut, cut)) : [];
    const blocks = [...done, ...V.parseMarkdown(text.slice(cut))].map((/** @type {any} */ b, /** @type {number} */ i) => {
      const key = JSON.stringify(b);
      const old = md.open[i];
      return old && old.key === key ? old : { key, node: markdownBlock(b) };
    });
    placeChildren(md.box, blocks.map((b) => b.node), md.finished);
    md.cut = cut;
    md.finished += done.length;
    md.open = blocks.slice(done.length);
    return md.box;
  }

  /** @param {any} b @returns {Node} */
  function markdownBlock(b) {
    if (b.type === "para") return inlines(el("p"), b.inlines);
    if (b.type === "list") {
      const ul = el("ul");
      for (const item of b.items) ul.append(inlines(el("li"), item));
      return ul;
    }
    return codeBlock(b.text, b.lang, "fenced");
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

  /**
   * A code block; SQL is highlighted and can be copied or inserted; a
   * statement can be edited and run, and run again once it ran (not a
   * write that waits for an answer or was declined).
   * @param {string} text @param {string} lang @param {string} cls @param {boolean} [ran]
   */
  function codeBlock(text, lang, cls, ran = true) {
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
      if (cls === "statement") {
        if (ran) bar.append(button("Run again", () => vscode.postMessage({ type: "runSql", sql: text }), "small run-again"));
        bar.append(button("Edit and run", () => vscode.postMessage({ type: "editSql", sql: text }), "small edit-sql"));
      }
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

  // ---- Results ----

  /**
   * Whether two statements show the same: the turn's end sends again, as a
   * new object, the statement its events brought.
   * @param {any} a @param {any} b
   */
  function sameStatement(a, b) {
    return a === b || (!!a && !!b && JSON.stringify(a) === JSON.stringify(b));
  }

  /** @param {any} turn @param {any} item @param {number} index @returns {Node} */
  function sqlNode(turn, item, index) {
    const sortKey = V.sortKey(turn.id, index);
    const st = item.statement;
    // Without a result, the box says why once the turn is done; with one, only the result counts.
    const key = st ? "" : JSON.stringify([item.summary || "", !!turn.done]);
    let hit = drawn.get(item);
    if (!hit || hit.key !== key || !sameStatement(hit.st, st)) {
      hit = { key, ...sqlItem(turn, item, sortKey) };
      drawn.set(item, hit);
    }
    hit.st = st;
    if (hit.table) hit.table.sortBy(model.sorts[sortKey]);
    return hit.node;
  }

  /** @param {any} turn @param {any} item @param {string} sortKey @returns {{ node: Node, table?: ResultTable }} */
  function sqlItem(turn, item, sortKey) {
    const box = el("div", "sql-item");
    const st = item.statement;
    box.append(codeBlock(item.sql, "sql", "statement", V.statementRan(st)));
    if (st && st.allowedBy) {
      // It did not ask: say which "Allow always" let it run.
      const mark = el("div", "allowed-mark", `Ran without asking, under your “${String(st.allowedBy).replace(/, for this conversation$/, "")}”.`);
      mark.title = "AIQ: Show Allowances... lists and revokes what Allow always covers.";
      box.append(mark);
    }
    /** @type {ResultTable | undefined} */
    let table;
    if (!st) {
      if (turn.done) box.append(el("div", "muted", item.summary || "No result."));
    } else if (st.status !== "success" && st.status !== "running") box.append(el("div", st.status === "error" ? "error" : "muted", V.statementNote(st)));
    else if (st.columns && st.columns.length) {
      table = resultTable(st, sortKey);
      box.append(table.wrap);
    } else box.append(el("div", "muted", `${st.rowCount ?? 0} row(s) affected.`));
    // What the engine said besides the result: a recursion cut off, a value truncated.
    for (const w of (st && Array.isArray(st.warnings) ? st.warnings : [])) box.append(el("div", "muted warning-line", `warning: ${w}`));
    return { node: box, table };
  }

  /** @param {number} n */
  function count(n) {
    return n.toLocaleString();
  }

  /**
   * A result table; a new sort redraws its body and its header's marks only.
   * @typedef {{ wrap: HTMLElement, sortBy(sort: any): void }} ResultTable
   */

  /** @param {any} st @param {string} sortKey @returns {ResultTable} */
  function resultTable(st, sortKey) {
    const rows = st.rows || [];
    const numeric = st.columns.map((/** @type {any} */ _, /** @type {number} */ i) => V.isNumericColumn(rows, i, (st.columnTypes || [])[i]));
    const grouped = st.columns.map((/** @type {string} */ name, /** @type {number} */ i) => numeric[i] && !V.isKeyColumn(name));

    const wrap = el("div", "result");
    const total = st.rowCount ?? rows.length;
    if (st.status === "running") {
      // Early rows: the statement still runs; its result replaces this table.
      wrap.classList.add("result-running");
      const meta = el("div", "result-meta running-mark", `Running: the first ${count(rows.length)} rows (${count(total)} read so far)`);
      meta.prepend(el("span", "spinner"));
      wrap.append(meta);
    } else if (st.rowsNotSaved) {
      // Drawn from the saved state until the replay brings the rows.
      const line = el("div", "result-meta");
      line.append(el("span", "result-rows", `${count(total)} row${total === 1 ? "" : "s"}`));
      wrap.append(line);
    } else {
      const fewer = st.truncated || total > rows.length;
      // A conversation opened again has the rows its session file kept: it says so, not less in silence.
      const shownAs = st.restored ? "kept; Run again for all" : "shown";
      const meta = fewer ? `${count(rows.length)} of ${count(total)} rows ${shownAs}` : `${count(total)} row${total === 1 ? "" : "s"}`;
      const line = el("div", "result-meta");
      line.append(el("span", "result-rows", meta));
      // Said only while the panel is too narrow for every column (watched below).
      const cols = el("span", "result-columns", `${st.columns.length} columns: scroll sideways, or Open shows them all`);
      cols.hidden = true;
      line.append(cols);
      // The result, as the panel has it, to a tab or (every row) to a file.
      const result = { sql: st.sql, columns: st.columns, rows, rowCount: st.rowCount, truncated: !!st.truncated, callId: st.callId || "" };
      line.append(
        button("Open", () => vscode.postMessage({ type: "openResult", statement: result }), "small open-result"),
        button("Export…", () => vscode.postMessage({ type: "exportResult", statement: result }), "small export-result"),
      );
      wrap.append(line);
    }

    const scroller = el("div", "table-wrap");
    const table = el("table", "data");
    const head = el("tr");
    /** @type {{ th: HTMLElement, mark: HTMLElement }[]} */
    const headers = [];
    st.columns.forEach((/** @type {string} */ name, /** @type {number} */ i) => {
      const th = el("th", numeric[i] ? "num" : "", name);
      th.title = `Sort by ${name}`;
      th.tabIndex = 0;
      // The mark goes on the side away from the column's alignment, so names line up with values.
      const mark = el("span", "sort-mark");
      if (numeric[i]) th.prepend(mark);
      else th.append(mark);
      const resort = () => {
        model.sorts[sortKey] = V.nextSort(model.sorts[sortKey], i);
        result.sortBy(model.sorts[sortKey]);
        save();
      };
      th.addEventListener("click", resort);
      th.addEventListener("keydown", (e) => {
        if (e.key === "Enter" || e.key === " ") {
          e.preventDefault();
          resort();
        }
      });
      headers.push({ th, mark });
      head.append(th);
    });
    const thead = el("thead");
    thead.append(head);
    let tbody = el("tbody");
    table.append(thead, tbody);
    scroller.append(table);
    wrap.append(scroller);
    const colsNote = wrap.querySelector(".result-columns");
    if (colsNote) widthWatch.observe(scroller);

    /** @type {string | undefined} */
    let shownSort;
    const result = {
      wrap,
      /** @param {any} sort */
      sortBy(sort) {
        const key = sort ? `${sort.col}:${sort.dir}` : "";
        if (key === shownSort) return;
        shownSort = key;
        headers.forEach(({ th, mark }, i) => {
          const dir = sort && sort.col === i ? sort.dir : "";
          th.setAttribute("aria-sort", dir === "asc" ? "ascending" : dir === "desc" ? "descending" : "none");
          setText(mark, dir === "asc" ? "▲" : dir === "desc" ? "▼" : "");
        });
        const body = tableBody(st.columns.length, sort ? V.sortRows(rows, sort.col, sort.dir) : rows, numeric, grouped);
        tbody.replaceWith(body);
        tbody = body;
      },
    };
    result.sortBy(model.sorts[sortKey]);
    return result;
  }

  // A table wider than the panel says how many columns it has: the panel
  // shows a few, and nothing else would say that the rest are there.
  // The note can make its line wrap: a conversation shown to its end stays at its end.
  const widthWatch = new ResizeObserver((entries) => {
    const keepBottom = nearBottom();
    let changed = false;
    for (const e of entries) {
      const scroller = /** @type {HTMLElement} */ (e.target);
      const note = scroller.parentElement && /** @type {HTMLElement | null} */ (scroller.parentElement.querySelector(".result-columns"));
      const hidden = scroller.scrollWidth <= scroller.clientWidth + 1;
      if (note && note.hidden !== hidden) {
        note.hidden = hidden;
        changed = true;
      }
    }
    if (changed && keepBottom) scrollToBottom();
  });

  /**
   * @param {number} cols @param {unknown[][]} rows @param {boolean[]} numeric
   * @param {boolean[]} grouped the columns whose numbers are shown grouped (not ids, not years)
   */
  function tableBody(cols, rows, numeric, grouped) {
    const tbody = el("tbody");
    for (const row of rows) {
      const tr = el("tr");
      for (let i = 0; i < cols; i++) {
        const v = row[i];
        const cls = [numeric[i] ? "num" : "", v === null || v === undefined ? "null" : ""].join(" ").trim();
        const td = el("td", cls, grouped[i] ? V.formatNumber(v) : V.formatCell(v));
        if (i === 0 && (td.textContent || "").length > 24) td.title = td.textContent || "";
        tr.append(td);
      }
      tbody.append(tr);
    }
    return tbody;
  }

  /**
   * A result's default chart, drawn again only when the result changes, by
   * item as its table is.
   * @type {WeakMap<object, { st: any, json: string, node: Node }>}
   */
  const autoCharts = new WeakMap();

  /** @param {any} item @param {any} chart @returns {Node} */
  function autoChartNode(item, chart) {
    const hit = autoCharts.get(item);
    if (hit && hit.st === item.statement && charts.alive(hit.node)) return hit.node;
    const json = JSON.stringify(chart);
    const node = hit && hit.json === json && charts.alive(hit.node) ? hit.node : chartFigure(chart, true);
    autoCharts.set(item, { st: item.statement, json, node });
    return node;
  }

  // ---- Charts ----

  // media/charts.js draws them with Chart.js, which fits them to the
  // panel's width and draws them again when it changes.

  /** @param {any} chart @param {boolean} automatic */
  function chartFigure(chart, automatic) {
    const fig = el("figure", "chart");
    const caption = el("figcaption", "chart-title", chart.title || `${chart.y} by ${chart.x}`);
    if (automatic) caption.append(el("span", "chart-auto", "auto"));
    fig.append(caption);
    charts.draw(chart, fig);
    const notes = [];
    if (chart.skipped) notes.push(`${chart.skipped} row${chart.skipped === 1 ? "" : "s"} with NULL not drawn.`);
    if (chart.truncated) notes.push("Only the first rows are drawn.");
    if (notes.length) fig.append(el("div", "chart-note", notes.join(" ")));
    return fig;
  }

  // ---- Messages from the extension ----

  // While the replay streams in, the saved view stays up; it is redrawn
  // once the messages pause.
  let replaying = false;
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let replayTimer;

  window.addEventListener("message", (event) => {
    const msg = event.data;
    if (replayPending) {
      // After a window reload the extension first says it is reopening the
      // last conversation (state.restoring): the saved view stays up, its
      // header updated, until the conversation or a state without it comes,
      // so the conversation does not vanish while the server starts.
      if (msg && msg.type === "state" && msg.restoring) {
        V.apply(model, msg);
        saveSoon();
        scheduleDraw();
        return;
      }
      replayPending = false;
      replaying = true;
      model = V.restart(model);
    }
    // A conversation shown whole (history, restore after a reload) opens at its end.
    if (msg && msg.type === "history") forceBottom = true;
    const { changed } = V.apply(model, msg);
    saveSoon();
    if (replaying) {
      clearTimeout(replayTimer);
      replayTimer = setTimeout(() => {
        replaying = false;
        drawAll();
      }, 30);
      return;
    }
    if (changed === null) dirty.all = true;
    else if (changed !== "none") dirty.turns.add(changed);
    scheduleDraw();
  });

  fitInput();
  drawAll();
  vscode.postMessage({ type: "ready" });
})();
