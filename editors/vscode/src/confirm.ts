// The dialogs that can write or delete, as the user sees them: the question,
// the SQL, the buttons, and what each button (or closing the dialog) means.
//
// Every one of them answers Enter and Escape with the safe choice. The
// write dialog opens in the chat panel (media/chat.js), where Reject has
// the focus and Escape, or Enter anywhere but on an Allow button, rejects;
// the extension closes it when the server dies or the turn ends. A write
// dialog with no turn to show it in (an export's costly read) and the Clear
// dialog are VS Code's modal showWarningMessage: there the first item that
// is not a close affordance is the primary button, focused when the dialog
// opens, so Enter presses it; the close affordance (VS Code adds "Cancel"
// when no item is one) is what Escape and the close box return, and
// undefined reaches us. So the safe choice comes first and undefined means
// it too. (Making the safe choice the close affordance would be wrong: VS
// Code then moves it to the end and the next item becomes the primary
// button.)

import type { ConfirmPrompt } from "./messages";
import type { Allowance, ConfirmDecision, ConfirmParams } from "./protocol";

export const ALLOW_ONCE = "Allow once";
export const ALLOW_ALWAYS = "Allow always";
export const REJECT = "Reject";

export const CLEAR = "Clear";
export const NO = "No";

/** An item of a modal message, as vscode.MessageItem. */
export interface ModalItem {
  title: string;
  isCloseAffordance?: boolean;
}

/** A modal question: the safe answer first, so Enter gives it; closing gives it too. */
export interface ModalPrompt {
  message: string;
  detail: string;
  items: ModalItem[];
}

/** The items of a modal whose first item, safe, is the primary button; no item is the close affordance. */
function safeFirst(safe: string, others: string[]): ModalItem[] {
  return [safe, ...others].map((title) => ({ title }));
}

/** What the statement does, by its risk: "outside" reads or works outside the database and changes no data. */
function riskHeading(risk: string): string {
  switch (risk) {
    case "outside":
      return "AIQ wants to run a statement that reaches outside the database.";
    case "ddl":
      return "AIQ wants to run a statement that changes the schema.";
    case "cost":
      return "AIQ wants to run an expensive read.";
    default:
      return "AIQ wants to run a statement that writes.";
  }
}

/**
 * The write's dialog. "Allow always" is offered only with a scope, and the
 * note says exactly what it covers; a statement without one (a DROP, a
 * DELETE without WHERE, ...) asks every time.
 */
export function confirmPrompt(p: ConfirmParams): ConfirmPrompt {
  const reason = p.reason?.trim() || "This statement changes the database.";
  const always = p.scope
    ? `"Allow always" covers only this: ${p.scope}.`
    : 'This statement asks every time: no "Allow always" covers it.';
  const dry = dryRunText(p);
  const buttons: ConfirmPrompt["buttons"] = [
    { label: REJECT, decision: "reject" },
    { label: ALLOW_ONCE, decision: "allow_once" },
  ];
  if (p.scope) {
    buttons.push({ label: ALLOW_ALWAYS, decision: "allow_always" });
  }
  return {
    message: `${p.label ? `[${p.label.toUpperCase()}] ` : ""}${riskHeading(p.risk)} ${reason}${dry ? " " + dry : ""}`,
    sql: p.sql,
    masked: maskedLines(p),
    note: `Reject (Enter, Escape) does not run it. ${always}`,
    buttons,
  };
}

/**
 * What the statement's masked tokens stand for, a line each, the token
 * shortened to four hex digits (the SQL above shows it whole):
 * "<masked:email:3f2a…> is ann@example.com".
 */
export function maskedLines(p: ConfirmParams): string[] {
  return (p.masked ?? []).map((m) => `${m.token.replace(/^(<masked:[a-z0-9_]*:[0-9a-f]{4})[0-9a-f]+>$/, "$1…>")} is ${m.value}`);
}

/** What the dry run found, in a sentence: "This DELETE would remove 5,008 rows (...)"; "" when none was tried. */
export function dryRunText(p: ConfirmParams): string {
  const trim = (s: string | undefined) => (s ?? "").trim().replace(/\.$/, "");
  switch (p.dryRun) {
    case "ok": {
      if (typeof p.affectedRows !== "number") {
        return "";
      }
      const first = p.sql.trim().split(/\s+/)[0]?.toUpperCase() ?? "";
      const [kind, verb] =
        first === "DELETE" ? ["DELETE", "remove"] : first === "INSERT" ? ["INSERT", "add"] : first === "UPDATE" ? ["UPDATE", "change"] : ["statement", "change"];
      const n = p.affectedRows;
      return `This ${kind} would ${verb} ${n.toLocaleString("en-US")} ${n === 1 ? "row" : "rows"} (counted in a transaction that was rolled back).`;
    }
    case "failed":
      return `A trial run in a transaction that was rolled back failed: ${trim(p.dryRunReason)}.`;
    case "skipped":
      return `The rows it would change were not counted beforehand: ${trim(p.dryRunReason)}.`;
  }
  return "";
}

/** The quick-pick items of the allowances in force, each revoked when picked. */
export function allowanceItems(list: Allowance[]): { label: string; description: string; id: string }[] {
  const items = list.map((a) => ({ label: a.scope, description: "revoke", id: a.id }));
  if (items.length > 1) {
    items.push({ label: "Revoke all", description: "every statement that writes asks first", id: "all" });
  }
  return items;
}

export function clearPrompt(): ModalPrompt {
  return {
    message: "Clear the AIQ conversation?",
    detail: "Its questions and answers are removed from the conversation and from its session file. No (Enter, Escape) keeps them.",
    items: safeFirst(NO, [CLEAR]),
  };
}

/**
 * The write dialog as a modal, for a request that comes with no turn to show it
 * in (an export's costly read): Reject first, so Enter and Escape reject.
 */
export function confirmModal(p: ConfirmPrompt): ModalPrompt {
  const detail = [p.sql, ...p.masked, p.note].filter((s) => s).join("\n\n");
  return { message: p.message, detail, items: p.buttons.map((b) => ({ title: b.label })) };
}

/** The decision of the button chosen in confirmModal's dialog; closing it is a reject. */
export function modalDecision(p: ConfirmPrompt, choice: ModalItem | string | undefined): ConfirmDecision {
  const title = typeof choice === "object" ? choice.title : choice;
  return p.buttons.find((b) => b.label === title)?.decision ?? "reject";
}

/** Whether the user chose to clear; closing the dialog keeps the conversation. */
export function clearChosen(choice: ModalItem | string | undefined): boolean {
  return (typeof choice === "object" ? choice.title : choice) === CLEAR;
}
