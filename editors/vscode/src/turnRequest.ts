// What one question sends (chat/turn's query and selection) and what the
// chat view shows at once, built from what the user typed and selected.

import type { ToView } from "./messages";
import type { Selection } from "./protocol";
import { UserError } from "./errors";

export interface TurnRequest {
  query?: string;
  selection?: Selection;
}

/** The user asked for nothing: a message that says what to do. */
export class NothingToAskError extends UserError {
  constructor() {
    super("Nothing to ask: type a question, or select some text (a question or SQL) in an editor first.");
    this.name = "NothingToAskError";
  }
}

/** A selection of only blanks says nothing; it is dropped. */
export function usableSelection(selection: Selection | undefined): Selection | undefined {
  return selection && selection.text.trim() !== "" ? selection : undefined;
}

/** The params of a turn: a query, a selection, or both (a selection alone is the question). */
export function turnRequest(query: string | undefined, selection: Selection | undefined): TurnRequest {
  const q = query?.trim() ?? "";
  const sel = usableSelection(selection);
  if (!q && !sel) {
    throw new NothingToAskError();
  }
  return { ...(q ? { query: q } : {}), ...(sel ? { selection: sel } : {}) };
}

export function turnStartMessage(turnId: number, req: TurnRequest): ToView {
  return {
    type: "turnStart",
    turnId,
    query: req.query ?? "",
    ...(req.selection ? { selection: { text: req.selection.text, languageId: req.selection.languageId } } : {}),
  };
}

const SQL_LANGUAGE = /^(sql|mysql|pgsql|postgres(ql)?|plsql|tsql|sqlite|mssql|oraclesql|sparksql)$/i;
const SQL_START = /^\s*(select|with|insert|update|delete|merge|create|alter|drop|truncate|explain|show|describe|values)\b/i;

/** The question Ask About Selection offers, for the user to keep (Enter) or change. */
export function defaultQuestion(selection: Selection): string {
  return SQL_LANGUAGE.test(selection.languageId) || SQL_START.test(selection.text)
    ? "What does this query do, and what does it return?"
    : "Answer the selected question.";
}

/** The input box of Ask About Selection: the default question, selected, so typing replaces it. */
export function askSelectionBox(selection: Selection): { title: string; prompt: string; value: string; valueSelection: [number, number] } {
  const value = defaultQuestion(selection);
  return {
    title: "AIQ: Ask About Selection",
    prompt: "Your question; the selected text goes with it. Enter asks, Escape cancels; an empty question asks the selection as it is.",
    value,
    valueSelection: [0, value.length],
  };
}
