// The result tab: one statement's whole kept result as a full-width table,
// with a sticky header and first column, sort by a header, and copy as
// TSV, CSV or Markdown. The extension posts {type: "result", statement};
// everything from it is drawn with textContent, never as HTML.
// @ts-check
(function () {
  // @ts-ignore acquireVsCodeApi is the webview's
  const vscode = acquireVsCodeApi();
  const app = /** @type {HTMLElement} */ (document.getElementById("app"));

  /** @param {string} tag @param {string} [cls] @param {string} [text] */
  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  /** @param {string} label @param {() => void} fn @param {string} cls */
  function button(label, fn, cls) {
    const b = /** @type {HTMLButtonElement} */ (el("button", cls, label));
    b.type = "button";
    b.addEventListener("click", fn);
    return b;
  }

  /** A value as a cell's text: NULL for null, JSON for documents. @param {unknown} v */
  function text(v) {
    if (v === null || v === undefined) return "NULL";
    if (typeof v === "string") return v;
    return typeof v === "object" ? JSON.stringify(v) : String(v);
  }

  /** The engine's numeric type names (a statement's columnTypes), as view.js lists them. */
  const NUMERIC_TYPE = /^(int[248]?|oid|float[48]?|numeric|money|tinyint|smallint|mediumint|integer|bigint|decimal|newdecimal|double( precision)?|real|year|unsigned (tiny|small|medium|big)?int)(\s*\(.*)?$/i;

  /**
   * Whether column i holds numbers, aligned to the right: its type when the
   * engine gave one (a numeric's "31.70" comes as a string, to keep its
   * scale), else whether its values are all numbers.
   * @param {unknown[][]} rows @param {number} i @param {unknown} type
   */
  function numeric(rows, i, type) {
    if (typeof type === "string" && type) return NUMERIC_TYPE.test(type.trim());
    let seen = false;
    for (const r of rows) {
      const v = r[i];
      if (v === null || v === undefined) continue;
      if (typeof v !== "number") return false;
      seen = true;
    }
    return seen;
  }

  /** @param {string[]} columns @param {unknown[][]} rows @param {"tsv"|"csv"|"markdown"} format */
  function serialize(columns, rows, format) {
    /** @param {unknown} v */
    const cell = (v) => (v === null || v === undefined ? "" : text(v));
    if (format === "tsv") {
      const clean = (/** @type {string} */ s) => s.replace(/[\t\r\n]+/g, " ");
      return [columns.map(clean).join("\t"), ...rows.map((r) => r.map((v) => clean(cell(v))).join("\t"))].join("\n") + "\n";
    }
    if (format === "csv") {
      const q = (/** @type {string} */ s) => (/[",\r\n]|^\s|\s$/.test(s) || s === "" ? `"${s.replace(/"/g, '""')}"` : s);
      const guard = (/** @type {unknown} */ v) => {
        const s = cell(v);
        return typeof v === "string" && /^[=+\-@\t\r]/.test(s) ? `"'${s.replace(/"/g, '""')}"` : q(s);
      };
      return [columns.map(q).join(","), ...rows.map((r) => r.map((v) => (v === null || v === undefined ? "" : guard(v))).join(","))].join("\r\n") + "\r\n";
    }
    const md = (/** @type {string} */ s) => s.replace(/\|/g, "\\|").replace(/\r?\n/g, " ");
    return [
      `| ${columns.map(md).join(" | ")} |`,
      `|${columns.map(() => " --- |").join("")}`,
      ...rows.map((r) => `| ${r.map((v) => md(text(v))).join(" | ")} |`),
    ].join("\n") + "\n";
  }

  /**
   * What the tab says of its rows: how many of how many; for a tab restored
   * after a reload, that its rows are loading, or that the session kept fewer
   * (or none) of them.
   * @param {any} st @param {number} shown @param {number} total @param {number} ncols
   */
  function metaText(st, shown, total, ncols) {
    if (st.loading) return "Loading the rows from the session…";
    if (st.missing) return "The rows of this result are not kept in the conversation any more: Run again to see them";
    const cols = `${ncols} column${ncols === 1 ? "" : "s"}`;
    if (shown < total && st.restored) return `${shown.toLocaleString()} of ${total.toLocaleString()} rows kept; Run again for all, ${cols}`;
    if (shown < total) return `${shown.toLocaleString()} of ${total.toLocaleString()} rows (Export… writes them all), ${cols}`;
    return `${total.toLocaleString()} row${total === 1 ? "" : "s"}, ${cols}`;
  }

  /** @param {any} st */
  function draw(st) {
    // Kept for VS Code to give back when it restores the tab after a reload: what finds the
    // result again, never its rows (real values of masked columns stay in the 0600 file
    // beside the session); the extension gets them from the server.
    vscode.setState({ statement: { sql: String(st.sql || ""), callId: String(st.callId || "") } });
    const columns = /** @type {string[]} */ (st.columns || []);
    const rows = /** @type {unknown[][]} */ (st.rows || []);
    const total = typeof st.rowCount === "number" ? st.rowCount : rows.length;
    app.textContent = "";
    const bar = el("div", "result-bar");
    const meta = el("span", "result-meta", metaText(st, rows.length, total, columns.length));
    bar.append(meta);
    for (const [label, format] of /** @type {const} */ ([["Copy as TSV", "tsv"], ["Copy as CSV", "csv"], ["Copy as Markdown", "markdown"]])) {
      bar.append(button(label, () => vscode.postMessage({ type: "copy", text: serialize(columns, order.map((i) => rows[i]), format) }), `small copy-${format}`));
    }
    bar.append(button("Export…", () => vscode.postMessage({ type: "export" }), "small export"));
    bar.append(button("Run again", () => vscode.postMessage({ type: "runSql", sql: String(st.sql || "") }), "small run-again"));
    const sql = el("pre", "result-sql", String(st.sql || ""));

    const wrap = el("div", "grid-wrap");
    const table = el("table", "grid");
    const head = el("tr");
    const types = Array.isArray(st.columnTypes) ? st.columnTypes : [];
    const nums = columns.map((_, i) => numeric(rows, i, types[i]));
    /** @type {number[]} */
    let order = rows.map((_, i) => i);
    /** @type {{ col: number, desc: boolean } | null} */
    let sort = null;
    columns.forEach((name, i) => {
      const th = el("th", nums[i] ? "num" : "", name);
      th.title = `Sort by ${name}`;
      th.addEventListener("click", () => {
        sort = sort && sort.col === i ? { col: i, desc: !sort.desc } : { col: i, desc: false };
        const s = sort;
        order = rows.map((_, k) => k).sort((a, b) => {
          const x = rows[a][s.col], y = rows[b][s.col];
          const c = x === y ? 0 : x === null || x === undefined ? 1 : y === null || y === undefined ? -1 : nums[s.col] && Number.isFinite(Number(x)) && Number.isFinite(Number(y)) ? Number(x) - Number(y) : text(x).localeCompare(text(y));
          return s.desc ? -c : c;
        });
        body();
      });
      head.append(th);
    });
    const thead = el("thead");
    thead.append(head);
    const tbody = el("tbody");
    table.append(thead, tbody);
    function body() {
      tbody.textContent = "";
      for (const i of order) {
        const tr = el("tr");
        rows[i].forEach((v, c) => {
          const td = el("td", (nums[c] ? "num" : "") + (v === null || v === undefined ? " null" : ""), text(v));
          td.title = "Double-click to copy";
          td.addEventListener("dblclick", () => vscode.postMessage({ type: "copy", text: v === null || v === undefined ? "" : text(v) }));
          tr.append(td);
        });
        tbody.append(tr);
      }
    }
    body();
    wrap.append(table);
    app.append(bar, sql, wrap);
  }

  window.addEventListener("message", (event) => {
    const msg = event.data;
    if (msg && msg.type === "result" && msg.statement) draw(msg.statement);
  });
  // A restored tab shows its SQL at once; the extension sends its rows on "ready".
  const kept = vscode.getState();
  if (kept && kept.statement && typeof kept.statement.sql === "string") draw({ sql: kept.statement.sql, callId: kept.statement.callId, loading: true });
  vscode.postMessage({ type: "ready" });
})();
