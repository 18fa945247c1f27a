// The messages between the extension host and the chat webview. The
// webview's script (media/chat.js) is plain JavaScript; it follows these
// types by hand, and test/view.test.ts checks the two agree.

/**
 * One SQL statement a turn ran, as in chat/turn's `statements`; or, with
 * status "running", the first rows of a SELECT still running (a `rows`
 * progress event: rowCount is the rows read so far).
 */
export interface Statement {
  sql: string;
  status: "success" | "error" | "rejected" | "cancelled" | "running";
  rowCount?: number;
  columns?: string[];
  /** The engine's type name of each column, lower-case (int4, numeric, date, timestamptz); absent for a result read back from a saved session. */
  columnTypes?: string[];
  rows?: unknown[][];
  truncated?: boolean;
  error?: string;
  /** The tool call that ran it. */
  callId?: string;
  /** Its rows went before, in the rows or tool_result of its callId (docs/protocol.md, "Rows sent once"). */
  rowsSent?: boolean;
  /** A write that ran without asking: the scope of the "Allow always" that covered it. */
  allowedBy?: string;
}

/** A chart, as in a chat/progress `chart` event. */
export interface Chart {
  chartType: "bar" | "line" | "pie" | "scatter";
  x: string;
  y: string;
  title?: string;
  labels?: string[];
  values?: number[];
  points?: { x: number; y: number }[];
  skipped?: number;
  truncated?: boolean;
}

/**
 * The params of a chat/progress notification (docs/protocol.md). A `rows`
 * event brings the first page (up to 500 rows) of a SELECT while it still
 * runs, before its `tool_result` (the same callId), which replaces it; short
 * statements may have none.
 */
export interface ProgressEvent {
  sessionId: string;
  requestId: number | string;
  kind: "text" | "tool_call" | "tool_result" | "rows" | "chart" | "status";
  text?: string;
  tool?: string;
  callId?: string;
  arguments?: Record<string, unknown>;
  sql?: string;
  summary?: string;
  statement?: Statement;
  chart?: Chart;
  message?: string;
  /** The rows an export wrote so far (kind status, during result/export). */
  rowsWritten?: number;
}

/** The result of chat/turn. */
export interface TurnResult {
  sessionId: string;
  stopReason: "end_turn" | "cancelled";
  answer: string;
  statements: Statement[];
  savedTo: string;
  warnings: string[];
}

/** One entry of chat/history with detail "turns". */
export interface HistoryTurn {
  role: "user" | "assistant";
  content: string;
  timestamp?: string;
}

/** One complete message of chat/history with detail "full", as the model keeps it. */
export interface HistoryMessage {
  role: "system" | "user" | "assistant" | "tool";
  content: string;
  /** An assistant's tool calls; arguments is a JSON text. */
  tool_calls?: { id: string; type?: string; function: { name: string; arguments: string } }[];
  /** A tool message's call; its content is the result's JSON (status, row_count, columns, rows, truncated, error). */
  tool_call_id?: string;
}

/**
 * What the user saw of a result, as chat/history (detail "full") returns it in seen by call id:
 * the rows the editor was sent, real values of masked columns included, and the row count. With
 * rowsKept false the rows were dropped to keep the seen file small: the count and columns remain.
 */
export interface SeenResult {
  columns: string[];
  rows?: unknown[][];
  rowCount: number;
  truncated?: boolean;
  rowsKept: boolean;
}

/** A decision of the write dialog, as chat/confirm's response has it. */
export type ConfirmChoice = "allow_once" | "allow_always" | "reject";

/**
 * The write dialog as the panel shows it inside the turn that asked: the
 * heading, the SQL, what its masked tokens stand for, a note (what the
 * keys do, what "Allow always" covers) and the buttons, the safe one first.
 */
export interface ConfirmPrompt {
  message: string;
  sql: string;
  /** A line per masked token of the SQL: "<masked:email:3f2a…> is ann@example.com". */
  masked: string[];
  note: string;
  buttons: { label: string; decision: ConfirmChoice }[];
}

/** Messages the extension posts to the webview. */
export type ToView =
  /**
   * The panel's header: the data source and whether a turn runs. Until the
   * server has said which source the conversation uses (sourceKnown false),
   * the header says that it is starting, not "no database". While
   * restoring, the last conversation is still to be reopened (after a
   * window reload): the view keeps what it shows until it comes.
   */
  | {
      type: "state";
      source: string;
      running: boolean;
      sourceKnown?: boolean;
      server?: "stopped" | "starting" | "running";
      model?: string;
      label?: string;
      restoring?: boolean;
    }
  /** The user asked: shows the question (and the selection) at once. */
  | { type: "turnStart"; turnId: number; query: string; selection?: { text: string; languageId: string } }
  /** A chat/progress event of that turn. */
  | { type: "progress"; turnId: number; event: ProgressEvent }
  /** The turn's response. */
  | { type: "turnEnd"; turnId: number; result: TurnResult }
  /** The turn failed: the error's message, said as the user should read it. */
  | { type: "turnError"; turnId: number; message: string }
  /**
   * Replaces the conversation with the session's history: every question and
   * answer (turns), and the complete messages of the last turns (messages),
   * which show the SQL that ran and its rows as a live turn does.
   */
  | { type: "history"; turns: HistoryTurn[]; messages?: HistoryMessage[]; seen?: Record<string, SeenResult> }
  /** Empties the conversation (after chat/clear). */
  | { type: "clear" }
  /** A statement waits for the user's answer: the dialog opens in the turn. */
  | { type: "confirm"; turnId: number; id: number; prompt: ConfirmPrompt }
  /**
   * The dialog closes: answered (decision), or "closed" without an answer
   * (the server died, the turn ended) and its statement did not run;
   * message, when there is one, says so in the dialog's place.
   */
  | { type: "confirmEnd"; turnId: number; id: number; decision: ConfirmChoice | "closed"; message?: string }
  /** A line for the user that is not part of a turn (saved to ..., server restarted). */
  | { type: "notice"; level: "info" | "warning" | "error"; message: string };

/** Messages the webview posts to the extension. */
export type FromView =
  /** The script has loaded; the extension then sends the state and the history. */
  | { type: "ready" }
  /** The user typed a question in the panel's input. */
  | { type: "ask"; query: string }
  /** The panel's stop button. */
  | { type: "cancel" }
  /** Copy this SQL to the clipboard. */
  | { type: "copy"; text: string }
  /** Insert this SQL at the cursor of the active editor. */
  | { type: "insert"; text: string }
  /** Run this statement again, without the model. */
  | { type: "runSql"; sql: string }
  /** Open this statement in an editor, to change it and run it. */
  | { type: "editSql"; sql: string }
  /** The user's answer to the write dialog id. */
  | { type: "confirmAnswer"; id: number; decision: ConfirmChoice }
  /** Open this result in an editor tab. */
  | { type: "openResult"; statement: Statement }
  /** Write every row of this result to a file. */
  | { type: "exportResult"; statement: Statement };
