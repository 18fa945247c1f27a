// chat/confirm as the user sees it: the question, the SQL, and the three
// buttons, and the decision each button (or closing the dialog) means.

import type { ConfirmDecision, ConfirmParams } from "./protocol";

export const ALLOW_ONCE = "Allow once";
export const ALLOW_ALWAYS = "Allow always";
export const REJECT = "Reject";

export interface ConfirmPrompt {
  message: string;
  detail: string;
  buttons: string[];
}

export function confirmPrompt(p: ConfirmParams): ConfirmPrompt {
  const reason = p.reason?.trim() || "This statement changes the database.";
  return {
    message: `AIQ wants to run a statement that writes (${p.risk || "write"}). ${reason}`,
    detail: `${p.sql}\n\n"Allow always" allows writes without asking for the rest of this conversation.`,
    buttons: [ALLOW_ONCE, ALLOW_ALWAYS, REJECT],
  };
}

/** The decision of the button pressed; dismissing the dialog is a reject. */
export function decisionFor(button: string | undefined): ConfirmDecision {
  switch (button) {
    case ALLOW_ONCE:
      return "allow_once";
    case ALLOW_ALWAYS:
      return "allow_always";
    default:
      return "reject";
  }
}
