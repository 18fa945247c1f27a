// @ts-check
// The chat view's logic, free of the DOM so that Node's tests can load it:
// the conversation model and what the panel draws from it. media/chat.js
// turns it into elements.
(function (root, factory) {
  if (typeof module === "object" && module.exports) {
    module.exports = factory();
  } else {
    /** @type {any} */ (root).aiqView = factory();
  }
})(typeof self !== "undefined" ? self : this, function () {
  "use strict";

  /**
   * @typedef {{ sql: string, status: string, rowCount?: number, columns?: string[], columnTypes?: string[],
   *   rows?: unknown[][], truncated?: boolean, error?: string, warnings?: string[],
   *   callId?: string, restored?: boolean, rowsNotSaved?: boolean }} Statement
   *   rowsNotSaved: drawn from the saved state, whose rows were left out (savedModel).
   * @typedef {{ chartType: string, x: string, y: string, title?: string, labels?: string[],
   *   values?: number[], points?: {x: number, y: number}[], skipped?: number, truncated?: boolean }} Chart
   * @typedef {{ kind: "text", text: string }
   *   | { kind: "thought", text: string }
   *   | { kind: "sql", callId: string, sql: string, statement?: Statement, summary?: string }
   *   | { kind: "tool", callId: string, tool: string, summary?: string }
   *   | { kind: "chart", callId: string, chart: Chart }
   *   | { kind: "confirm", id: number, prompt: ConfirmPrompt, state: "open" | "sent" | "done", message: string }} Item
   * @typedef {{ message: string, sql: string, masked: string[], note: string, buttons: { label: string, decision: string }[] }} ConfirmPrompt
   *   A write dialog: open until answered ("sent" once the panel posted the
   *   answer), "done" when the extension closed it; message then takes its place.
   * @typedef {{ col: number, dir: "asc" | "desc" }} Sort
   * @typedef {{ kind: "turn", id: number, query: string, selection?: { text: string, languageId: string },
   *   items: Item[], status: string, done: boolean, cancelled: boolean, error: string,
   *   warnings: string[], savedTo: string }} Turn
   * @typedef {{ kind: "notice", level: string, message: string }} Notice
   * @typedef {{ source: string, sourceKnown: boolean, server: string, running: boolean, entries: (Turn | Notice)[], sorts: Record<string, Sort>, model?: string, label?: string }} Model
   *   sorts: how the user sorted each result table, by sortKey; kept when the
   *   extension replays the conversation into a view shown again.
   */

  /** The ToView message types this file handles; the tests compare them with src/messages.ts. */
  const HANDLED_TYPES = ["state", "turnStart", "progress", "turnEnd", "turnError", "history", "clear", "notice", "confirm", "confirmEnd"];

  /** @returns {Model} */
  function emptyModel() {
    return { source: "", sourceKnown: false, server: "", running: false, entries: [], sorts: {} };
  }

  /**
   * What the header says of the data source: its name; while the server has
   * not said which one the conversation uses, that it is starting (or not
   * running); "no database" only when that is the server's answer.
   * @param {Model} model
   */
  function sourceLabel(model) {
    if (model.source) return model.label ? `${model.source} [${model.label}]` : model.source;
    if (model.sourceKnown) return "no database";
    return model.server === "stopped" ? "not running" : "starting…";
  }

  /**
   * What the header says after the source: the conversation's model, once
   * the server said which; "" before, or when none is configured.
   * @param {Model} model
   */
  function modelLabel(model) {
    return model.model ? model.model : "";
  }

  /**
   * The model a view shown again starts from when the extension replays the
   * conversation into it: empty, but with the user's table sorts.
   * @param {Model | undefined} old @returns {Model}
   */
  function restart(old) {
    const model = emptyModel();
    if (old && old.sorts && typeof old.sorts === "object") model.sorts = old.sorts;
    return model;
  }

  /** Where a table's sort is kept. @param {number} turnId @param {number} itemIndex */
  function sortKey(turnId, itemIndex) {
    return `${turnId}:${itemIndex}`;
  }

  /**
   * @param {number} id @param {string} query @param {Turn["selection"]} [selection]
   * @returns {Turn}
   */
  function newTurn(id, query, selection) {
    /** @type {Turn} */
    const turn = { kind: "turn", id, query, items: [], status: "", done: false, cancelled: false, error: "", warnings: [], savedTo: "" };
    if (selection && selection.text) turn.selection = { text: selection.text, languageId: selection.languageId || "" };
    return turn;
  }

  /** @param {Model} model @param {number} id @returns {Turn | undefined} */
  function findTurn(model, id) {
    for (let i = model.entries.length - 1; i >= 0; i--) {
      const e = model.entries[i];
      if (e.kind === "turn" && e.id === id) return e;
    }
    return undefined;
  }

  /**
   * Applies one ToView message to the model, in place (a streamed answer
   * sends many small messages; copying the rows each time would not pay),
   * and returns it with the id of the turn that changed, or null when the
   * whole conversation did.
   * @param {Model} model @param {any} msg
   * @returns {{ model: Model, changed: number | null | "none" }}
   */
  function apply(model, msg) {
    if (!msg || typeof msg !== "object") return { model, changed: "none" };
    switch (msg.type) {
      case "state":
        model.source = String(msg.source || "");
        model.running = !!msg.running;
        model.sourceKnown = msg.sourceKnown !== false;
        model.server = String(msg.server || "");
        model.model = typeof msg.model === "string" ? msg.model : "";
        model.label = typeof msg.label === "string" ? msg.label : "";
        return { model, changed: "none" };
      case "turnStart": {
        const existing = findTurn(model, msg.turnId);
        const turn = newTurn(msg.turnId, String(msg.query || ""), msg.selection);
        if (existing) model.entries[model.entries.indexOf(existing)] = turn;
        else model.entries.push(turn);
        model.running = true;
        return { model, changed: turn.id };
      }
      case "progress": {
        const turn = findTurn(model, msg.turnId);
        if (!turn || !msg.event) return { model, changed: "none" };
        applyEvent(turn, msg.event);
        return { model, changed: turn.id };
      }
      case "confirm": {
        const turn = findTurn(model, msg.turnId);
        const p = msg.prompt;
        if (!turn || turn.done || !p || typeof p !== "object" || !Array.isArray(p.buttons)) return { model, changed: "none" };
        /** @type {ConfirmPrompt} */
        const prompt = {
          message: String(p.message || ""),
          sql: String(p.sql || ""),
          masked: Array.isArray(p.masked) ? p.masked.map(String) : [],
          note: String(p.note || ""),
          buttons: p.buttons.map((/** @type {any} */ b) => ({ label: String(b && b.label), decision: String(b && b.decision) })),
        };
        turn.items.push({ kind: "confirm", id: Number(msg.id), prompt, state: "open", message: "" });
        return { model, changed: turn.id };
      }
      case "confirmEnd": {
        const turn = findTurn(model, msg.turnId);
        const item = turn && turn.items.find((it) => it.kind === "confirm" && it.id === msg.id);
        if (!turn || !item || item.kind !== "confirm") return { model, changed: "none" };
        item.state = "done";
        item.message = msg.decision === "closed" && typeof msg.message === "string" ? msg.message : "";
        return { model, changed: turn.id };
      }
      case "turnEnd": {
        const turn = findTurn(model, msg.turnId);
        if (!turn) return { model, changed: "none" };
        endTurn(turn, msg.result || {});
        model.running = false;
        return { model, changed: turn.id };
      }
      case "turnError": {
        const turn = findTurn(model, msg.turnId);
        model.running = false;
        if (!turn) {
          model.entries.push({ kind: "notice", level: "error", message: String(msg.message || "") });
          return { model, changed: null };
        }
        turn.error = String(msg.message || "The question failed.");
        settleRunning(turn);
        turn.done = true;
        turn.status = "";
        return { model, changed: turn.id };
      }
      case "history":
        model.entries = mergeHistory(model.entries, historyTurns(msg.turns || [], msg.messages, msg.seen));
        return { model, changed: null };
      case "clear":
        model.entries = [];
        model.sorts = {};
        return { model, changed: null };
      case "notice":
        model.entries.push({ kind: "notice", level: String(msg.level || "info"), message: String(msg.message || "") });
        return { model, changed: null };
    }
    return { model, changed: "none" };
  }

  /** @param {Turn} turn @param {any} ev */
  function applyEvent(turn, ev) {
    switch (ev.kind) {
      case "text": {
        const last = turn.items[turn.items.length - 1];
        if (last && last.kind === "text") last.text += String(ev.text || "");
        else turn.items.push({ kind: "text", text: String(ev.text || "") });
        break;
      }
      case "thought": {
        // The model's reasoning: a collapsed "Thinking" block, apart from the answer.
        const last = turn.items[turn.items.length - 1];
        if (last && last.kind === "thought") last.text += String(ev.text || "");
        else turn.items.push({ kind: "thought", text: String(ev.text || "") });
        break;
      }
      case "tool_call":
        if (typeof ev.sql === "string" && ev.sql !== "") {
          turn.items.push({ kind: "sql", callId: String(ev.callId || ""), sql: ev.sql });
        } else if (ev.tool !== "render_chart") {
          // render_chart shows as its chart; other tools as a line.
          turn.items.push({ kind: "tool", callId: String(ev.callId || ""), tool: String(ev.tool || "tool") });
        }
        break;
      case "tool_result": {
        const item = turn.items.find((it) => (it.kind === "sql" || it.kind === "tool") && it.callId === ev.callId && ev.callId);
        if (item && (item.kind === "sql" || item.kind === "tool")) {
          item.summary = ev.summary;
          if (item.kind === "sql" && ev.statement) item.statement = withPage(ev.statement, item.statement);
        } else if (ev.statement) {
          turn.items.push({ kind: "sql", callId: String(ev.callId || ""), sql: ev.statement.sql, statement: ev.statement, summary: ev.summary });
        }
        break;
      }
      case "rows": {
        // The first rows of a SELECT still running: shown at once, marked
        // running, until its tool_result (the same callId) replaces them.
        if (!ev.statement || !ev.callId) break;
        const early = { ...ev.statement, status: "running" };
        const item = turn.items.find((it) => it.kind === "sql" && it.callId === ev.callId);
        if (!item) turn.items.push({ kind: "sql", callId: String(ev.callId), sql: String(ev.statement.sql || ""), statement: early });
        else if (item.kind === "sql" && (!item.statement || item.statement.status === "running")) item.statement = early;
        break;
      }
      case "chart":
        if (ev.chart) turn.items.push({ kind: "chart", callId: String(ev.callId || ""), chart: ev.chart });
        break;
      case "status":
        turn.status = String(ev.message || "");
        break;
    }
  }

  /**
   * A statement whose rows were sent before (`rowsSent`, protocol's "Rows
   * sent once") gets them from the one shown so far: its rows notification
   * or its tool_result.
   * @param {any} st @param {any} [shown] @returns {any}
   */
  function withPage(st, shown) {
    if (!st || !st.rowsSent) return st;
    const rows = shown && Array.isArray(shown.rows) ? shown.rows : [];
    const out = { ...st, rows };
    delete out.rowsSent;
    return out;
  }

  /**
   * The turn's response is the truth: statements the events missed (a
   * client that joined late) and an answer that was not streamed are added.
   * @param {Turn} turn @param {any} result
   */
  function endTurn(turn, result) {
    turn.done = true;
    settleRunning(turn);
    turn.status = "";
    turn.cancelled = result.stopReason === "cancelled";
    turn.warnings = Array.isArray(result.warnings) ? result.warnings.map(String) : [];
    turn.savedTo = String(result.savedTo || "");
    const sqlItems = turn.items.filter((it) => it.kind === "sql");
    let next = 0;
    for (const st of Array.isArray(result.statements) ? result.statements : []) {
      const at = sqlItems.findIndex((it, i) => i >= next && it.kind === "sql" && it.sql === st.sql);
      if (at >= 0) {
        const item = sqlItems[at];
        if (item.kind === "sql") item.statement = withPage(st, item.statement);
        next = at + 1;
      } else {
        turn.items.push({ kind: "sql", callId: "", sql: st.sql, statement: st });
      }
    }
    const streamed = turn.items.filter((it) => it.kind === "text").map((it) => (it.kind === "text" ? it.text : "")).join("");
    if (!streamed.trim() && result.answer) turn.items.push({ kind: "text", text: String(result.answer) });
  }

  /**
   * The conversation of a history message: the turns of its `turns` (each
   * question and answer, as the AIQ CLI lists them), the last ones rebuilt
   * from its `messages` (the complete messages the model keeps, with the SQL
   * that ran and its rows) when those are the same questions. The model keeps
   * only the last turns of a long conversation; the older ones stay text.
   * seen is chat/history's what the user saw of each result, by call id:
   * the rows the panel was sent (real values of masked columns) and the row
   * count, which the session file does not keep.
   * @param {any[]} turns @param {any[]} [messages] @param {Record<string, any>} [seen] @returns {Turn[]}
   */
  function historyTurns(turns, messages, seen) {
    const plain = textTurns(turns);
    const full = fullTurns(messages || [], seen);
    if (!full.length) return plain;
    const start = plain.length - full.length;
    const sameQuestions = start >= 0 && full.every((t, i) => t.query.trim() === plain[start + i].query.trim());
    const out = sameQuestions ? [...plain.slice(0, start), ...full] : plain.length ? plain : full;
    out.forEach((t, i) => (t.id = -(i + 1)));
    return out;
  }

  /**
   * Early rows whose result never came (the turn ended or failed first) are
   * no longer running; the turn's statements, if any, then say how it ended.
   * @param {Turn} turn
   */
  function settleRunning(turn) {
    for (const it of turn.items) {
      // Nothing waits for a dialog of a finished turn.
      if (it.kind === "confirm" && it.state !== "done") {
        it.state = "done";
        it.message = "The statement did not run: the answer ended before you answered.";
      }
      if (it.kind === "sql" && it.statement && it.statement.status === "running") {
        it.statement = { sql: it.statement.sql, status: "cancelled", error: "The statement did not finish." };
      }
    }
  }

  /** @param {any[]} turns @returns {Turn[]} */
  function textTurns(turns) {
    /** @type {Turn[]} */
    const out = [];
    for (const h of turns) {
      const content = String((h && h.content) || "");
      const last = out[out.length - 1];
      if (h && h.role === "user") {
        const turn = newTurn(-(out.length + 1), content);
        turn.done = true;
        out.push(turn);
      } else if (last && !last.items.some((it) => it.kind === "text")) {
        last.items.push({ kind: "text", text: content });
      } else {
        const turn = newTurn(-(out.length + 1), "");
        turn.done = true;
        turn.items.push({ kind: "text", text: content });
        out.push(turn);
      }
    }
    return out;
  }

  /** A JSON text as a value, or undefined. @param {unknown} text */
  function parseJSON(text) {
    if (typeof text !== "string") return undefined;
    try {
      return JSON.parse(text);
    } catch {
      return undefined;
    }
  }

  /**
   * Turns drawn as they were live from the complete messages of chat/history
   * (detail "full"): the answer's text, each execute_sql with its result
   * (the tool message's JSON: status, row_count, columns, rows, truncated,
   * error), other tools as a line, render_chart as its chart (its result is
   * the chart, as the live chart event has it). A result the user saw is
   * drawn from seen, as they saw it.
   * @param {any[]} messages @param {Record<string, any>} [seen] @returns {Turn[]}
   */
  function fullTurns(messages, seen) {
    /** @type {Turn[]} */
    const out = [];
    /** @type {Turn | undefined} */
    let turn;
    /** The render_chart calls, whose results are charts. */
    const chartCalls = new Set();
    for (const m of messages) {
      if (!m || typeof m !== "object" || m.role === "system") continue;
      if (m.role === "user") {
        turn = newTurn(-(out.length + 1), String(m.content || ""));
        turn.done = true;
        out.push(turn);
        continue;
      }
      if (!turn && m.role !== "assistant") continue;
      if (!turn) {
        turn = newTurn(-(out.length + 1), "");
        turn.done = true;
        out.push(turn);
      }
      if (m.role === "assistant") {
        if (typeof m.content === "string" && m.content.trim()) applyEvent(turn, { kind: "text", text: m.content });
        for (const call of Array.isArray(m.tool_calls) ? m.tool_calls : []) {
          const fn = (call && call.function) || {};
          const args = parseJSON(fn.arguments) || {};
          if (fn.name === "render_chart") chartCalls.add(String(call.id || ""));
          applyEvent(turn, { kind: "tool_call", tool: String(fn.name || "tool"), callId: String(call.id || ""), sql: typeof args.sql === "string" ? args.sql : "" });
        }
      } else if (m.role === "tool") {
        const callId = String(m.tool_call_id || "");
        if (chartCalls.has(callId)) {
          const chart = parseJSON(m.content);
          if (chart && typeof chart === "object" && typeof chart.chartType === "string") applyEvent(turn, { kind: "chart", callId, chart });
          continue;
        }
        const item = turn.items.find((it) => (it.kind === "sql" || it.kind === "tool") && it.callId === callId);
        if (!item || !callId) continue;
        const r = parseJSON(m.content);
        if (item.kind === "sql" && r && typeof r === "object") {
          const st = storedStatement(item.sql, r, seen && typeof seen === "object" ? seen[callId] : undefined);
          if (st) item.statement = { ...st, callId };
          else item.summary = `${r.row_count} row${r.row_count === 1 ? "" : "s"}; the session file does not keep them.`;
        }
      }
    }
    return out;
  }

  /**
   * A stored execute_sql result as a statement, or null when it holds a row
   * count only (the AIQ CLI keeps no rows of the results it showed). With
   * what the user saw of it (seen: columns, rows, rowCount, truncated,
   * rowsKept), the statement is that: the rows the panel was sent, real
   * values and all. Where seen kept no rows (dropped to keep its file small)
   * the session file's rows are shown with seen's count, marked restored.
   * @param {string} sql @param {any} r @param {any} [seen] @returns {Statement | null}
   */
  function storedStatement(sql, r, seen) {
    const status = ["success", "error", "rejected", "cancelled"].includes(r.status) ? r.status : "success";
    const saw = seen && typeof seen === "object" && Array.isArray(seen.columns) && typeof seen.rowCount === "number" ? seen : null;
    if (saw && saw.rowsKept) {
      /** @type {Statement} */
      const st = { sql, status: "success", rowCount: saw.rowCount, columns: saw.columns.map(String), rows: (Array.isArray(saw.rows) ? saw.rows : []).filter(Array.isArray) };
      if (Array.isArray(saw.columnTypes) && saw.columnTypes.length === saw.columns.length) st.columnTypes = saw.columnTypes.map(String);
      if (saw.truncated) st.truncated = true;
      return st;
    }
    if (saw && status === "success" && !Array.isArray(r.columns)) {
      // The session kept a count only, and the rows seen were dropped: the columns and the count still say what it was.
      return { sql, status, rowCount: saw.rowCount, columns: saw.columns.map(String), rows: [], restored: true };
    }
    if (status === "success" && !Array.isArray(r.columns) && r.displayed && typeof r.row_count === "number") return null;
    // restored: its rows are those the session file kept, which may be fewer than the user saw.
    /** @type {Statement} */
    const st = { sql, status, restored: true };
    if (typeof r.row_count === "number") st.rowCount = r.row_count;
    if (saw && status === "success") st.rowCount = saw.rowCount;
    if (Array.isArray(r.columns)) st.columns = r.columns.map(String);
    if (Array.isArray(r.rows)) st.rows = r.rows.filter(Array.isArray);
    if (r.truncated) st.truncated = true;
    if (typeof r.error === "string" && r.error) st.error = r.error;
    if (Array.isArray(r.warnings)) st.warnings = r.warnings.map(String);
    return st;
  }

  /**
   * The history holds the rows the model was given, and no chart events;
   * turns this panel saw itself keep their tables (every row the panel got)
   * and charts when they are the same questions in the same order.
   * @param {(Turn | Notice)[]} entries @param {Turn[]} fromHistory
   * @returns {(Turn | Notice)[]}
   */
  function mergeHistory(entries, fromHistory) {
    const known = /** @type {Turn[]} */ (entries.filter((e) => e.kind === "turn" && e.done));
    const running = entries.filter((e) => e.kind === "turn" && !e.done);
    if (known.length !== fromHistory.length) return [...fromHistory, ...running];
    const same = known.every((t, i) => {
      const asked = (t.query.trim() || (t.selection ? t.selection.text.trim() : "")).trim();
      return fromHistory[i].query.trim().startsWith(asked);
    });
    if (same) return entries;
    // A turn still running is not in the history yet; its events go on.
    return [...fromHistory, ...running];
  }

  /**
   * The model as the panel saves it in VS Code's webview state (kept in the
   * workspace storage, outside the session's 0600 seen file): no result's
   * rows and no write dialog's masked values, which are real values of
   * masked columns. The rest (text, each statement's SQL, status, count and
   * columns, call ids, sorts) draws the panel at once when it opens again;
   * the rows come back with the extension's replay (a view shown again) or
   * chat/history's seen (after a reload). model is left as it is.
   * @param {Model} model @returns {Model}
   */
  function savedModel(model) {
    const entries = model.entries.map((e) => {
      if (e.kind !== "turn") return e;
      const items = e.items.map((it) => {
        if (it.kind === "sql" && it.statement) {
          const { rows: _rows, ...rest } = it.statement;
          return { ...it, statement: { ...rest, rowsNotSaved: true } };
        }
        if (it.kind === "confirm") return { ...it, prompt: { ...it.prompt, masked: [] } };
        return it;
      });
      return { ...e, items };
    });
    return { ...model, entries };
  }

  // ---- Values and tables ----

  const NUMERIC_TEXT = /^\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$/;

  /** A number, or the text of one (drivers send DECIMAL as text), else null. @param {unknown} v */
  function asNumber(v) {
    if (typeof v === "number") return Number.isFinite(v) ? v : null;
    if (typeof v === "string" && NUMERIC_TEXT.test(v)) return Number(v);
    return null;
  }

  /** @param {unknown} v */
  function isNull(v) {
    return v === null || v === undefined;
  }

  /** How a cell reads. @param {unknown} v */
  function formatCell(v) {
    if (isNull(v)) return "NULL";
    if (typeof v === "string") return v;
    if (typeof v === "number" || typeof v === "boolean" || typeof v === "bigint") return String(v);
    return JSON.stringify(v);
  }

  const NUMBER_PARTS = /^\s*([-+]?)(\d+)(?:\.(\d*))?\s*$/;
  const SEPARATORS = (() => {
    const parts = new Intl.NumberFormat(undefined, { useGrouping: true }).formatToParts(12345.6);
    const part = (/** @type {string} */ type, /** @type {string} */ fallback) => (parts.find((p) => p.type === type) || { value: fallback }).value;
    return { group: part("group", ","), decimal: part("decimal", ".") };
  })();

  /**
   * A number as a table shows it: its digits grouped as the locale groups
   * them (as the charts do), every decimal kept as it came (a DECIMAL's
   * "1234.50" is 1,234.50, not 1,234.5). What is not a plain decimal number
   * (1e21, text, NULL) reads as formatCell gives it.
   * @param {unknown} v
   */
  function formatNumber(v) {
    const text = typeof v === "number" && Number.isFinite(v) ? String(v) : typeof v === "string" ? v : null;
    const m = text === null ? null : NUMBER_PARTS.exec(text);
    if (!m) return formatCell(v);
    const int = m[2].replace(/\B(?=(\d{3})+(?!\d))/g, SEPARATORS.group);
    return (m[1] === "-" ? "-" : "") + int + (m[3] !== undefined ? SEPARATORS.decimal + m[3] : "");
  }

  /** Whether a column names rows (an id, a code): its numbers are not grouped nor charted. @param {string} name */
  function isKeyColumn(name) {
    return KEY_NAME.test(String(name)) || /year|^yr$/i.test(String(name));
  }

  /** The engine's numeric type names (columnTypes: PostgreSQL's, MySQL's, SQLite's declared types), lower-case. */
  const NUMERIC_TYPES = new Set([
    "int2", "int4", "int8", "oid", "float4", "float8", "numeric", "money",
    "tinyint", "smallint", "mediumint", "int", "integer", "bigint", "decimal", "newdecimal",
    "float", "double", "real", "double precision", "year",
    "unsigned tinyint", "unsigned smallint", "unsigned mediumint", "unsigned int", "unsigned bigint",
  ]);
  /** The type names of dates and instants, which a chart puts on a time axis. */
  const TIME_TYPES = new Set(["date", "timestamp", "timestamptz", "datetime"]);

  /**
   * What a column's type name (columnTypes) says of its values: "number",
   * "time" (a date or an instant), "other" for any other type, "" when the
   * engine gave none. numeric(10,2) is numeric.
   * @param {unknown} type
   * @returns {"number" | "time" | "other" | ""}
   */
  function typeKind(type) {
    if (typeof type !== "string" || !type) return "";
    const name = type.toLowerCase().replace(/\s*\(.*$/, "").trim();
    if (NUMERIC_TYPES.has(name)) return "number";
    if (TIME_TYPES.has(name)) return "time";
    return "other";
  }

  /**
   * Whether a column holds numbers, which a grid aligns to the right: its
   * type when the engine gave one (a numeric's "31.70" is a string that keeps
   * its scale), else whether every non-NULL value is a number (and there is one).
   * @param {unknown[][]} rows @param {number} col @param {unknown} [type] the column's type name
   */
  function isNumericColumn(rows, col, type) {
    const kind = typeKind(type);
    if (kind === "number") return true;
    if (kind !== "") return false;
    let seen = false;
    for (const row of rows) {
      const v = row[col];
      if (isNull(v)) continue;
      if (asNumber(v) === null) return false;
      seen = true;
    }
    return seen;
  }

  /** @param {unknown} a @param {unknown} b */
  function compareValues(a, b) {
    const na = asNumber(a);
    const nb = asNumber(b);
    if (na !== null && nb !== null) return na - nb;
    if (na !== null) return -1;
    if (nb !== null) return 1;
    return formatCell(a).localeCompare(formatCell(b));
  }

  /**
   * Rows sorted by one column: numbers numerically, text by locale, NULLs
   * last in both directions, equal rows in their original order.
   * @param {unknown[][]} rows @param {number} col @param {"asc" | "desc"} dir
   */
  function sortRows(rows, col, dir) {
    const sign = dir === "desc" ? -1 : 1;
    return rows
      .map((row, i) => ({ row, i }))
      .sort((a, b) => {
        const va = a.row[col];
        const vb = b.row[col];
        if (isNull(va) || isNull(vb)) {
          if (isNull(va) && isNull(vb)) return a.i - b.i;
          return isNull(va) ? 1 : -1;
        }
        return sign * compareValues(va, vb) || a.i - b.i;
      })
      .map((x) => x.row);
  }

  /** The sort after a click on column col. @param {Sort | undefined} current @param {number} col @returns {Sort} */
  function nextSort(current, col) {
    if (current && current.col === col) return { col, dir: current.dir === "asc" ? "desc" : "asc" };
    return { col, dir: "asc" };
  }

  // ---- Choosing a chart ----

  // PostgreSQL's timestamptz ends in +00 or +05:30, MySQL's DATETIME has none.
  const DATE_LIKE = /^\d{4}-\d{2}(-\d{2})?([ T]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}(:?\d{2})?)?)?$/;
  const MAX_BARS = 40;
  /** Names of columns that identify rows rather than measure them: no chart of ids. */
  const KEY_NAME = /^(id|key|pk|uuid|guid|code|zip|zipcode|postcode|postal_code|phone|ean|isbn|sku)$|(_id|_key|_pk|_uuid|_code|_no)$|[a-z0-9]Id$/i;
  /** Measures that do not add up to a whole: bars, never a pie. */
  const NOT_PARTS = /avg|average|mean|median|price|rate|ratio|pct|percent|share|min|max|score|age|stddev|variance/i;
  /** SQL whose rows are groups, not single rows. */
  const AGGREGATES = /\bgroup\s+by\b|\bdistinct\b|\b(count|sum|avg|total|min|max)\s*\(/i;

  /**
   * A chart for a result when one helps, else null: exactly one category
   * (a text column that does not name rows) and exactly one measure (a
   * numeric column that does not name rows: no id, *_id, key, code, year),
   * at least two rows, the rows being groups. Columns that name rows may
   * stand beside them (GROUP BY category_id, category). A line over dates
   * in order, a pie for a few positive parts of a whole, else bars; never a
   * scatter of two measures, never a chart of single rows (no "Id by name",
   * no timestamps against name lengths), of two categories or two measures.
   * @param {Statement | undefined} st @returns {Chart | null}
   */
  function chooseChart(st) {
    if (!st || st.status !== "success" || !st.columns || !st.rows || st.rows.length < 2) return null;
    const rows = st.rows;
    const cols = st.columns;
    const types = st.columnTypes || [];
    const others = cols.map((_, i) => i).filter((i) => !isKeyColumn(cols[i]));
    const measures = others.filter((i) => isNumericColumn(rows, i, types[i]));
    const categories = others.filter((i) => !measures.includes(i) && rows.every((r) => isNull(r[i]) || typeof r[i] === "string"));
    if (categories.length !== 1 || measures.length !== 1 || others.length !== 2) return null;
    return categoryChart(st, categories[0], measures[0]);
  }

  /** "Orders by status". @param {string} y @param {string} x */
  function chartTitle(y, x) {
    return `${y.charAt(0).toUpperCase()}${y.slice(1)} by ${x}`;
  }

  /** @param {Statement} st @param {number} xi @param {number} yi @returns {Chart | null} */
  function categoryChart(st, xi, yi) {
    const cols = /** @type {string[]} */ (st.columns);
    /** @type {string[]} */ const labels = [];
    /** @type {number[]} */ const values = [];
    let skipped = 0;
    for (const row of /** @type {unknown[][]} */ (st.rows)) {
      const y = asNumber(row[yi]);
      if (y === null || isNull(row[xi])) {
        skipped++;
        continue;
      }
      labels.push(String(row[xi]));
      values.push(y);
    }
    let chartType = "bar";
    const grouped = AGGREGATES.test(st.sql || "");
    if (labels.length < 2 || new Set(labels).size !== labels.length) {
      return null; // one point, or labels that repeat (groups of more than one column)
    } else if ((typeKind((st.columnTypes || [])[xi]) === "time" || labels.every((l) => DATE_LIKE.test(l))) &&
      labels.every((l) => Number.isFinite(labelTime(l))) && labels.every((l, i) => i === 0 || labelTime(labels[i - 1]) <= labelTime(l))) {
      // Days and months are periods, a series as they are; instants (with a clock) only when grouped.
      if (!grouped && labels.some((l) => l.length > 10)) return null;
      chartType = "line";
    } else if (!grouped || labels.length > MAX_BARS) {
      return null; // single rows, or too many to read
    } else if (pieReads(values) && !NOT_PARTS.test(cols[yi])) {
      chartType = "pie";
    }
    const truncated = !!st.truncated;
    /** @type {Chart} */
    const chart = { chartType, x: cols[xi], y: cols[yi], title: chartTitle(cols[yi], cols[xi]), labels, values };
    if (skipped) chart.skipped = skipped;
    if (truncated) chart.truncated = true;
    return chart;
  }

  /**
   * What the turn draws, in order: each item, and after a SQL result its
   * default chart, unless a chart event draws that result already (the
   * model's render_chart draws the last result) or the turn is replayed.
   * @param {Turn} turn @returns {({ item: Item, index: number } | { autoChart: Chart, index: number })[]}
   */
  function turnBlocks(turn) {
    /** @type {({ item: Item, index: number } | { autoChart: Chart, index: number })[]} */
    const blocks = [];
    const showsResult = turn.items.some((it) => it.kind === "sql" && !!it.statement);
    turn.items.forEach((item, index) => {
      // Without a model the answer is the AIQ CLI's summary of the result
      // ("Query executed successfully ... Sample data: ..."): the table says it better.
      if (item.kind === "text" && showsResult && RESULT_SUMMARY.test(item.text)) return;
      // An answered dialog goes: the statement's own block says what became of it.
      if (item.kind === "confirm" && item.state === "done" && !item.message) return;
      // A write waiting for its answer shows once, in its dialog.
      if (item.kind === "sql" && !item.statement && waitingFor(turn, item.sql)) return;
      blocks.push({ item, index });
      if (item.kind !== "sql") return;
      const later = turn.items.slice(index + 1);
      const nextSql = later.findIndex((it) => it.kind === "sql");
      const drawn = later.slice(0, nextSql < 0 ? later.length : nextSql).some((it) => it.kind === "chart");
      // A replayed session (history turns have ids below 0) draws no charts of
      // its own: a conversation of fifty results is not fifty pies.
      const chart = drawn || turn.id < 0 ? null : chooseChart(item.statement);
      if (chart) blocks.push({ autoChart: chart, index });
    });
    return blocks;
  }

  /** Whether an unanswered dialog of turn asks about sql. @param {Turn} turn @param {string} sql */
  function waitingFor(turn, sql) {
    return turn.items.some((it) => it.kind === "confirm" && it.state !== "done" && it.prompt.sql.trim() === sql.trim());
  }

  /**
   * What a turn's spinner says: while a write waits for the user, that it
   * waits for them, not that the model thinks.
   * @param {Turn} turn
   */
  function turnStatus(turn) {
    if (turn.items.some((it) => it.kind === "confirm" && it.state === "open")) return "Waiting for your answer";
    return turn.status || "Thinking";
  }

  /**
   * Whether a statement ran (it has rows, a count, or the database's
   * error): one still waiting for an answer, declined or refused did not,
   * and has nothing to run again.
   * @param {Statement | undefined} st
   */
  function statementRan(st) {
    return !!st && (st.status === "success" || st.status === "error" || st.status === "running");
  }

  /**
   * The open dialog of the conversation (the newest), if any.
   * @param {Model} model
   */
  function openConfirm(model) {
    for (let i = model.entries.length - 1; i >= 0; i--) {
      const e = model.entries[i];
      if (e.kind !== "turn") continue;
      const item = e.items.find((it) => it.kind === "confirm" && it.state === "open");
      if (item) return item;
    }
    return undefined;
  }

  /**
   * What a key pressed while a write dialog is open decides, as VS Code's
   * modal did: Escape rejects, and so does Enter anywhere but on an Allow
   * button (there it presses that button); other keys decide nothing.
   * @param {string} key @param {string | undefined} focusedDecision the decision of the focused button, if one is
   * @returns {"reject" | null}
   */
  function confirmKey(key, focusedDecision) {
    if (key === "Escape") return "reject";
    if (key === "Enter" && (focusedDecision === undefined || focusedDecision === "reject")) return "reject";
    return null;
  }

  const RESULT_SUMMARY = /^\s*(Query|Statement) executed successfully\./;

  /**
   * What the panel says under a statement that did not succeed. The server
   * gives the user one sentence (capitalised); the model's wording of older
   * servers and of stored results ("not run: the user declined ... Do not
   * retry it") is not for the user, so it gives way to a sentence of ours.
   * @param {Statement} st @returns {string}
   */
  function statementNote(st) {
    const said = typeof st.error === "string" ? st.error.trim() : "";
    const sentence = /^[A-Z]/.test(said) ? said : "";
    switch (st.status) {
      case "error":
        return "The query failed: " + (said || "unknown error.");
      case "rejected":
        return sentence || (/declined/.test(said) ? "You declined this statement, so it did not run." : "This statement did not run.");
      case "cancelled":
        // The statement timeout gives its reason ("took longer than the
        // statement timeout (30s), ..."); a cancel by the user says
        // "cancelled" itself.
        if (!sentence && said && !/^cancelled/.test(said)) {
          return "Cancelled: it " + said + ".";
        }
        return sentence || "Cancelled; the statement did not finish.";
    }
    return sentence;
  }

  // ---- What a chart draws ----

  /** A pie has at most this many slices; more read better as bars. */
  const PIE_MAX = 6;

  /**
   * Whether a pie reads: a few positive parts whose shares differ (the
   * largest at least 1.5 times the smallest). Near-equal shares are angles
   * no one can tell apart, so they get bars.
   * @param {number[]} values
   */
  function pieReads(values) {
    if (values.length < 2 || values.length > PIE_MAX || !values.every((v) => v > 0)) return false;
    return Math.max(...values) >= 1.5 * Math.min(...values);
  }

  /**
   * The instant a date label stands for, or NaN: a day or a month at local
   * midnight (as the user reads it), an instant as written.
   * @param {string} label
   */
  function labelTime(label) {
    const m = /^(\d{4})-(\d{2})(?:-(\d{2}))?$/.exec(label);
    if (m) return new Date(Number(m[1]), Number(m[2]) - 1, m[3] ? Number(m[3]) : 1).getTime();
    if (!DATE_LIKE.test(label)) return NaN;
    // Date.parse wants 2024-01-02T03:04:05+00:00, PostgreSQL writes 2024-01-02 03:04:05+00.
    const iso = label.replace(" ", "T");
    return Date.parse(/T.*[+-]\d{2}(:?\d{2})?$/.test(iso) ? iso.replace(/([+-]\d{2}):?(\d{2})?$/, (_, h, m) => `${h}:${m || "00"}`) : iso);
  }

  /**
   * What the panel draws for a chart (the render_chart tool's or
   * chooseChart's): its kind (a pie only where it reads, else bars), and
   * for labels that are all dates in order a time axis ("day" when they
   * are days or months, "instant" when they have a clock).
   * @param {Chart} chart
   * @returns {{ kind: "bar" | "line" | "pie" | "scatter", x: string, y: string, labels: string[], values: number[], times?: number[], time?: "day" | "instant", points?: {x: number, y: number}[] }}
   */
  function chartPlan(chart) {
    const labels = (chart.labels || []).map(String);
    const values = (chart.values || []).map(Number);
    const base = { x: String(chart.x || ""), y: String(chart.y || ""), labels, values };
    if (chart.chartType === "scatter") {
      const points = (chart.points || []).filter((p) => Number.isFinite(p.x) && Number.isFinite(p.y));
      return { ...base, kind: "scatter", points };
    }
    if (chart.chartType === "pie" && pieReads(values)) return { ...base, kind: "pie" };
    const kind = chart.chartType === "line" ? "line" : "bar";
    const times = labels.map(labelTime);
    const ordered = times.every((t, i) => Number.isFinite(t) && (i === 0 || times[i - 1] <= t));
    if (labels.length > 0 && ordered) {
      return { ...base, kind, times, time: labels.every((l) => l.length <= 10) ? "day" : "instant" };
    }
    return { ...base, kind };
  }

  // ---- SQL highlighting ----

  const KEYWORDS = new Set((
    "select from where group by order having limit offset join inner left right full outer cross on using as and or not " +
    "in is null like ilike between case when then else end distinct all union intersect except insert into values update set " +
    "delete create table view index drop alter add column primary key foreign references with recursive asc desc nulls first last " +
    "true false exists cast over partition window returning default unique check constraint if replace pragma explain describe show " +
    "begin commit rollback transaction natural lateral fetch next rows row only top collate escape"
  ).split(" "));

  /**
   * SQL cut into tokens whose texts joined give it back.
   * @param {string} sql
   * @returns {{ type: "keyword" | "string" | "number" | "comment" | "ident" | "space" | "punct", text: string }[]}
   */
  function tokenizeSQL(sql) {
    /** @type {{ type: any, text: string }[]} */
    const out = [];
    const rules = /** @type {[any, RegExp][]} */ ([
      ["space", /\s+/y],
      ["comment", /--[^\n]*|\/\*[\s\S]*?(\*\/|$)/y],
      ["string", /'(?:[^']|'')*'?|\$\$[\s\S]*?(\$\$|$)/y],
      ["ident", /"(?:[^"]|"")*"?|`[^`]*`?|\[[^\]\n]*\]?/y],
      ["number", /(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?(?![A-Za-z_])/y],
      ["word", /[A-Za-z_][A-Za-z0-9_$]*/y],
    ]);
    let i = 0;
    while (i < sql.length) {
      let matched = false;
      for (const [type, re] of rules) {
        re.lastIndex = i;
        const m = re.exec(sql);
        if (!m || m[0] === "") continue;
        const t = type === "word" ? (KEYWORDS.has(m[0].toLowerCase()) ? "keyword" : "ident") : type;
        const prev = out[out.length - 1];
        if (prev && prev.type === t && t === "space") prev.text += m[0];
        else out.push({ type: t, text: m[0] });
        i += m[0].length;
        matched = true;
        break;
      }
      if (!matched) {
        const prev = out[out.length - 1];
        if (prev && prev.type === "punct") prev.text += sql[i];
        else out.push({ type: "punct", text: sql[i] });
        i++;
      }
    }
    return out;
  }

  // ---- Markdown, the little of it answers use ----

  /**
   * Inline code spans and plain text.
   * @param {string} text @returns {{ code: boolean, text: string }[]}
   */
  function parseInline(text) {
    /** @type {{ code: boolean, text: string }[]} */
    const out = [];
    const re = /`([^`\n]+)`/g;
    let last = 0;
    let m;
    while ((m = re.exec(text))) {
      if (m.index > last) out.push({ code: false, text: text.slice(last, m.index) });
      out.push({ code: true, text: m[1] });
      last = m.index + m[0].length;
    }
    if (last < text.length) out.push({ code: false, text: text.slice(last) });
    return out;
  }

  const FENCE = /^\s*(```+|~~~+)\s*([\w+#.-]*)\s*$/;

  /** The line that closes a fence opened with marker (``` or ~~~, or longer). @param {string} marker */
  function closingFence(marker) {
    return new RegExp("^\\s*" + marker[0] + "{" + marker.length + ",}\\s*$");
  }

  /**
   * Where the finished blocks of a markdown text end: just past its last
   * blank line outside a fenced block, searching from `from`, itself such a
   * place (or 0). Whatever text is added later, parseMarkdown gives the same
   * blocks for the text before that place, and parses what follows as if it
   * were a text of its own; so a streamed answer is parsed, and drawn, from
   * there on only, not from its start for every piece.
   * @param {string} text @param {number} [from]
   */
  function settledEnd(text, from = 0) {
    const eol = /\r\n|\r|\n/g;
    eol.lastIndex = from;
    let cut = from;
    let start = from;
    /** @type {RegExp | null} */ let close = null;
    let m;
    while ((m = eol.exec(text))) {
      // A "\r" last may be the first half of a "\r\n" still to come.
      if (m[0] === "\r" && m.index === text.length - 1) break;
      const line = text.slice(start, m.index);
      start = m.index + m[0].length;
      if (close) {
        if (close.test(line)) close = null;
        continue;
      }
      const fence = FENCE.exec(line);
      if (fence) close = closingFence(fence[1]);
      else if (line.trim() === "") cut = start;
    }
    return cut;
  }

  /**
   * Answer text as paragraphs, fenced code blocks and bullet lists. A fence
   * still open (the answer is streaming) runs to the end.
   * @param {string} text
   * @returns {({ type: "para", inlines: { code: boolean, text: string }[] }
   *   | { type: "code", lang: string, text: string }
   *   | { type: "list", items: { code: boolean, text: string }[][] })[]}
   */
  function parseMarkdown(text) {
    /** @type {any[]} */
    const blocks = [];
    const lines = text.replace(/\r\n?/g, "\n").split("\n");
    /** @type {string[]} */ let para = [];
    /** @type {string[] | null} */ let list = null;
    const flush = () => {
      if (para.length) blocks.push({ type: "para", inlines: parseInline(para.join("\n")) });
      if (list) blocks.push({ type: "list", items: list.map(parseInline) });
      para = [];
      list = null;
    };
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i];
      const fence = FENCE.exec(line);
      if (fence) {
        flush();
        const body = [];
        const close = closingFence(fence[1]);
        let j = i + 1;
        while (j < lines.length && !close.test(lines[j])) body.push(lines[j++]);
        blocks.push({ type: "code", lang: fence[2] || "", text: body.join("\n") });
        i = j;
        continue;
      }
      const bullet = /^\s*[-*+]\s+(.*)$/.exec(line);
      if (bullet) {
        if (para.length) {
          blocks.push({ type: "para", inlines: parseInline(para.join("\n")) });
          para = [];
        }
        (list = list || []).push(bullet[1]);
      } else if (line.trim() === "") {
        flush();
      } else if (list && /^\s+\S/.test(line)) {
        list[list.length - 1] += " " + line.trim();
      } else {
        if (list) flush();
        para.push(line);
      }
    }
    flush();
    return blocks;
  }

  return {
    HANDLED_TYPES, openConfirm, confirmKey, turnStatus, statementRan, emptyModel, sourceLabel, modelLabel, restart, savedModel, sortKey, apply, historyTurns, turnBlocks, statementNote, chooseChart, chartPlan, pieReads,
    sortRows, nextSort, compareValues, formatCell, formatNumber, isKeyColumn, SEPARATORS, isNumericColumn, typeKind, asNumber, tokenizeSQL, parseMarkdown, parseInline, settledEnd,
  };
});
