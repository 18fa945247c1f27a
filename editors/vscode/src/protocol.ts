// The params and results of aiq-rpc's methods (docs/protocol.md) that the
// webview never sees; the ones it does see live in messages.ts.

import type { HistoryMessage, HistoryTurn, ProgressEvent, SeenResult, TurnResult } from "./messages";

export type { HistoryMessage, HistoryTurn, ProgressEvent, SeenResult, TurnResult };

/** A configured data source, as in sources/list (never a password). */
export interface Source {
  name: string;
  type: string;
  host?: string;
  port?: number;
  database?: string;
  /** The source's policy in sources.yaml: "read_only", or "confirm" (the default, absent). */
  access?: string;
  /** The source's label in sources.yaml ("production"), shown wherever the source is named. */
  label?: string;
}

export interface InitializeResult {
  protocolVersion: number;
  serverInfo: { name: string; version: string };
  capabilities: { methods: string[] };
  home: string;
  modelConfigured: boolean;
  sources: Source[];
  warnings: string[];
}

/** The result of models/list and session/setModel. */
export interface ModelList {
  /** The endpoint's models, the configured one first. */
  models: string[];
  configured: string;
  current: string;
  /** Why only the configured model is listed, when the endpoint gave no list. */
  warning?: string;
}

/** config/changed: initialize's modelConfigured and sources, as they are now. */
export interface ConfigChangedParams {
  modelConfigured: boolean;
  sources: Source[];
}

/** The result of session/new, session/setSource and schema/refresh. */
export interface SessionInfo {
  sessionId: string;
  path?: string;
  source: string;
  databaseType: string;
  turns: number;
}

export interface LoadResult extends SessionInfo {
  path: string;
  warnings: string[];
  sourceAvailable: boolean;
  sources: Source[];
}

/** The result of session/save, session/close and chat/clear. */
export interface SaveResult {
  sessionId: string;
  path: string;
  hint: string;
  notes?: string[];
}

/** One saved session of session/list. */
export interface SessionSummary {
  path: string;
  created?: string;
  updated?: string;
  source: string;
  databaseType: string;
  turns: number;
  firstQuestion: string;
  error?: string;
  /** The most recently updated session of its source. */
  latest?: boolean;
}

export interface Position {
  line: number;
  character: number;
}

/** The editor text a question is about, as chat/turn's `selection`. */
export interface Selection {
  text: string;
  languageId: string;
  uri: string;
  range: { start: Position; end: Position };
}

export interface TurnParams {
  sessionId: string;
  query?: string;
  selection?: Selection;
}

export interface ConfirmParams {
  sessionId: string;
  tool: string;
  sql: string;
  risk: string;
  reason: string;
  /** What "Allow always" would cover ("Allow UPDATE on orders for this conversation"); absent: it asks every time. */
  scope?: string;
  /** "ok" when the rows were counted in a transaction rolled back (affectedRows); else "failed" or "skipped" with dryRunReason. */
  dryRun?: "ok" | "failed" | "skipped";
  affectedRows?: number;
  dryRunReason?: string;
  /** The source's label in sources.yaml ("production"). */
  label?: string;
  /** What each masked token of sql stands for, for the user only (the model never sees it). */
  masked?: { token: string; value: string }[];
}

/** An "Allow always" answer in force (chat/allowances, chat/revoke). */
export interface Allowance {
  id: string;
  scope: string;
  shape: { kind: string; objects: string[] };
}

export type ConfirmDecision = "allow_once" | "allow_always" | "reject";

/** LSP's MessageType: 1 error, 2 warning, 3 info, 4 log. */
export interface ShowMessageParams {
  type: number;
  message: string;
}

export interface ShutdownResult {
  saved: SaveResult[];
}

/** The params of result/export: callId or sql. */
export interface ExportParams {
  sessionId: string;
  callId?: string;
  sql?: string;
  format: "csv" | "json" | "markdown";
  path: string;
  overwrite?: boolean;
}

/** The result of result/export. */
export interface ExportResult {
  path: string;
  format: string;
  sql: string;
  rowCount: number;
  columns: string[];
}
