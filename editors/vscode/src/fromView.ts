// Checks what the webview posts before acting on it: the webview runs
// scripts, so its messages are read as untrusted input.

import type { ConfirmChoice, FromView, Statement } from "./messages";

const CHOICES: ConfirmChoice[] = ["allow_once", "allow_always", "reject"];

export function parseFromView(data: unknown): FromView | undefined {
  if (typeof data !== "object" || data === null) {
    return undefined;
  }
  const m = data as { [key: string]: unknown };
  switch (m.type) {
    case "ready":
    case "cancel":
      return { type: m.type };
    case "ask":
      return typeof m.query === "string" ? { type: "ask", query: m.query } : undefined;
    case "openResult":
    case "exportResult": {
      const statement = resultStatement(m.statement);
      return statement && { type: m.type, statement };
    }
    case "confirmAnswer":
      return Number.isSafeInteger(m.id) && typeof m.decision === "string" && CHOICES.includes(m.decision as ConfirmChoice)
        ? { type: "confirmAnswer", id: m.id as number, decision: m.decision as ConfirmChoice }
        : undefined;
    case "runSql":
    case "editSql":
      return typeof m.sql === "string" ? { type: m.type, sql: m.sql } : undefined;
    case "copy":
    case "insert":
      return typeof m.text === "string" ? { type: m.type, text: m.text } : undefined;
  }
  return undefined;
}

/** The most rows and columns a result the panel sends may have: what the server keeps, with room. */
const MAX_ROWS = 1000;
const MAX_COLUMNS = 2000;

/** A statement to open in a tab or export, checked field by field. */
function resultStatement(v: unknown): Statement | undefined {
  if (typeof v !== "object" || v === null) {
    return undefined;
  }
  const s = v as { [key: string]: unknown };
  const columns = s.columns;
  const rows = s.rows;
  if (
    typeof s.sql !== "string" ||
    !Array.isArray(columns) || columns.length > MAX_COLUMNS || !columns.every((c) => typeof c === "string") ||
    !Array.isArray(rows) || rows.length > MAX_ROWS || !rows.every((r) => Array.isArray(r) && r.length === columns.length)
  ) {
    return undefined;
  }
  const statement: Statement = { sql: s.sql, status: "success", columns: columns as string[], rows: rows as unknown[][] };
  if (typeof s.rowCount === "number") statement.rowCount = s.rowCount;
  if (typeof s.truncated === "boolean") statement.truncated = s.truncated;
  if (typeof s.callId === "string" && s.callId !== "") statement.callId = s.callId;
  return statement;
}
