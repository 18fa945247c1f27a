// What a result tab keeps across a window reload, and how it gets its rows
// back. The tab keeps in VS Code's webview state only what finds its
// result again (the SQL and the tool call that ran it), never rows: the
// rows come back from the server, from what the user saw of the result
// (chat/history's seen, kept beside the session file, 0600) or, failing
// that, from the rows the session file kept, said to be fewer.

import type { HistoryMessage, SeenResult, Statement } from "./messages";

/** What a result tab keeps in its webview state (media/result.js). */
export interface KeptRef {
  sql: string;
  callId: string;
}

/**
 * The reference a restored tab kept in its webview state, or undefined when
 * the state is not one: it comes from the webview, so it is checked as any input.
 */
export function keptRef(state: unknown): KeptRef | undefined {
  const st = (state as { statement?: unknown } | undefined)?.statement as { [key: string]: unknown } | undefined;
  if (!st || typeof st !== "object" || typeof st.sql !== "string" || !st.sql.trim()) {
    return undefined;
  }
  return { sql: st.sql, callId: typeof st.callId === "string" ? st.callId : "" };
}

/**
 * A restored tab's statement: restored, its rows are those the session file kept, which may be
 * fewer than the user saw; loading, its rows are on their way; missing, the conversation holds it no more.
 */
export type KeptStatement = Statement & { restored?: boolean; loading?: boolean; missing?: boolean };

/**
 * The result of ref in a session's complete messages and seen (chat/history,
 * detail "full"): the rows the user saw when seen has them; else the rows the
 * session file kept, marked restored; undefined when the session does not
 * hold the call (another conversation, or turns dropped since).
 */
export function keptStatement(ref: KeptRef, messages: HistoryMessage[], seen: Record<string, SeenResult>): KeptStatement | undefined {
  if (!ref.callId) {
    return undefined;
  }
  // The assistant message that made the call: by its id, and by its SQL where a model reused an id.
  const callers = messages.flatMap((m, i) => (m.role === "assistant" && (m.tool_calls ?? []).some((c) => c.id === ref.callId) ? [i] : []));
  const at = callers.length === 1 ? callers[0]
    : callers.find((i) => (messages[i].tool_calls ?? []).some((c) => c.id === ref.callId && sqlOf(c.function?.arguments)?.trim() === ref.sql.trim()));
  if (at === undefined) {
    return undefined;
  }
  const saw = seen[ref.callId];
  if (saw && saw.rowsKept && Array.isArray(saw.columns)) {
    return {
      sql: ref.sql, status: "success", callId: ref.callId, columns: saw.columns.map(String),
      rows: (saw.rows ?? []).filter(Array.isArray), rowCount: saw.rowCount, truncated: saw.truncated === true,
    };
  }
  const tool = messages.slice(at + 1).find((m) => m.role === "tool" && m.tool_call_id === ref.callId);
  let r: { [key: string]: unknown } | undefined;
  try {
    r = tool ? JSON.parse(tool.content) : undefined;
  } catch {
    r = undefined;
  }
  const columns = Array.isArray(r?.columns) ? r.columns.map(String) : saw?.columns;
  if (!columns) {
    return undefined;
  }
  const rows = Array.isArray(r?.rows) ? (r.rows as unknown[]).filter(Array.isArray) as unknown[][] : [];
  const rowCount = saw ? saw.rowCount : typeof r?.row_count === "number" ? r.row_count : rows.length;
  return { sql: ref.sql, status: "success", callId: ref.callId, columns, rows, rowCount, truncated: rows.length < rowCount, restored: true };
}

function sqlOf(args: string | undefined): string | undefined {
  try {
    const a = JSON.parse(args ?? "");
    return typeof a?.sql === "string" ? a.sql : undefined;
  } catch {
    return undefined;
  }
}
