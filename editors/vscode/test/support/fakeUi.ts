// A ControllerUi that records every call, and lets a test wait for a call
// it expects (event-driven, with a timeout).

import type { ControllerUi } from "../../src/controller";
import type { ConfirmPrompt, ToView } from "../../src/messages";
import type { ConfirmDecision, ConfirmParams, ShowMessageParams } from "../../src/protocol";
import type { ControllerState } from "../../src/status";
import { WAIT_MS } from "./aiqRpc";

export class FakeUi implements ControllerUi {
  readonly views: ToView[] = [];
  readonly startFailures: string[] = [];
  readonly crashes: string[] = [];
  readonly messages: ShowMessageParams[] = [];
  readonly states: ControllerState[] = [];
  readonly confirms: ConfirmParams[] = [];
  logText = "";
  /** How the user answers each write dialog; "hold": not at all. */
  decision: ConfirmDecision | "hold" = "reject";
  /** Gives the controller the user's answer (Controller.answerConfirm); set by the test. */
  answer?: (id: number, decision: ConfirmDecision) => void;
  private waiters: { check: () => boolean; resolve: () => void }[] = [];

  view(msg: ToView): void {
    this.views.push(msg);
    this.changed();
  }
  startFailed(message: string): void {
    this.startFailures.push(message);
    this.changed();
  }
  crashed(message: string): void {
    this.crashes.push(message);
    this.changed();
  }
  showMessage(params: ShowMessageParams): void {
    this.messages.push(params);
    this.changed();
  }
  /** The modal write dialogs asked, outside a turn; answered with decision ("hold" rejects). */
  readonly modals: ConfirmPrompt[] = [];
  confirmModal(prompt: ConfirmPrompt): Promise<ConfirmDecision> {
    this.modals.push(prompt);
    this.changed();
    return Promise.resolve(this.decision === "hold" ? "reject" : this.decision);
  }
  confirmOpened(id: number, params: ConfirmParams): void {
    this.confirms.push(params);
    this.changed();
    const decision = this.decision;
    if (decision !== "hold") {
      // The user answers after the dialog is shown, not inside the call that shows it.
      setImmediate(() => this.answer?.(id, decision));
    }
  }
  state(state: ControllerState): void {
    this.states.push(state);
    this.changed();
  }
  log(text: string): void {
    this.logText += text;
  }

  /** The view messages of one type, in order. */
  of<T extends ToView["type"]>(type: T): Extract<ToView, { type: T }>[] {
    return this.views.filter((m): m is Extract<ToView, { type: T }> => m.type === type);
  }

  notices(): string[] {
    return this.of("notice").map((n) => n.message);
  }

  /** Resolves when check() holds after some call; fails after timeoutMs. */
  until(check: () => boolean, what: string, timeoutMs = WAIT_MS): Promise<void> {
    if (check()) {
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`));
      }, timeoutMs);
      const waiter = {
        check,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      };
      this.waiters.push(waiter);
    });
  }

  private changed(): void {
    for (const w of [...this.waiters]) {
      if (w.check()) {
        this.waiters = this.waiters.filter((x) => x !== w);
        w.resolve();
      }
    }
  }
}
