// The kinds of failure a command can end with, and how each reaches the user:
// one sentence in the popup or the panel, the detail in the AIQ output.

import { ResponseError } from "vscode-jsonrpc/node";

/** An error the user has already been shown; callers must not show it again. */
export class ReportedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ReportedError";
  }
}

/** Something the user asked for that cannot be done now; the message says what to do. */
export class UserError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UserError";
  }
}

/** A JSON-RPC method named at the front of a message ("chat/turn: "), which is for logs. */
const METHOD_PREFIX = /^(?:[a-z$]+\/[A-Za-z]+|initialize|shutdown): /;

/** An error as the user should read it: a server error's message, without the method it came from. */
export function messageOf(err: unknown): string {
  if (err instanceof ResponseError) {
    let message = err.message;
    while (METHOD_PREFIX.test(message)) {
      message = message.replace(METHOD_PREFIX, "");
    }
    return message.charAt(0).toUpperCase() + message.slice(1);
  }
  return err instanceof Error ? err.message : String(err);
}

/** The codes of "the model failed" and "no model is configured" (docs/protocol.md). */
const MODEL_CODES = [-32020, -32021];

/** The hint under a model's failure: the command that checks the set-up step by step. */
export const DOCTOR_HINT = "Run `aiq-rpc doctor` in a terminal to check the model's set-up step by step.";

/** A failed turn as the panel says it: the message, and for a model's failure how to check the set-up. */
export function turnErrorMessage(err: unknown): string {
  const message = messageOf(err);
  return err instanceof ResponseError && MODEL_CODES.includes(err.code) ? `${message} ${DOCTOR_HINT}` : message;
}

/** What the AIQ output gets for a failure: a server error's code, whole message and data. */
export function detailOf(err: unknown): string {
  if (err instanceof ResponseError) {
    const data = err.data === undefined ? "" : ` ${JSON.stringify(err.data)}`;
    return `error ${err.code}: ${err.message}${data}`;
  }
  return err instanceof Error ? (err.stack ?? err.message) : String(err);
}

/** How a command's failure is shown: not at all (already shown), as a warning, or as an error. */
export function presentError(err: unknown): { level: "none" | "warning" | "error"; message: string } {
  if (err instanceof ReportedError) {
    return { level: "none", message: err.message };
  }
  if (err instanceof UserError) {
    return { level: "warning", message: err.message };
  }
  return { level: "error", message: messageOf(err) };
}
