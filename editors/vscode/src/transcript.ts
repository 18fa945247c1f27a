// The chat view's messages of the current conversation, kept so a view
// that is shown again (its webview was destroyed while hidden) replays
// them instead of needing retainContextWhenHidden.

import type { ToView } from "./messages";

/** Past this many messages the oldest turns are dropped from the replay. */
export const MAX_ENTRIES = 2000;

export class Transcript {
  private entries: ToView[] = [];

  constructor(private readonly max = MAX_ENTRIES) {}

  add(msg: ToView): void {
    switch (msg.type) {
      case "state":
        return; // sent fresh on every replay
      case "history":
        this.entries = [msg];
        return;
      case "clear":
        this.entries = [];
        return;
    }
    if (!this.mergeText(msg)) {
      const kept = this.dropEarlyRows(msg);
      this.entries.push(kept);
    }
    this.trim();
  }

  // A statement's result replaces its early rows: a replay need not carry
  // the first page twice.
  private dropEarlyRows(msg: ToView): ToView {
    if (msg.type !== "progress" || msg.event.kind !== "tool_result" || !msg.event.callId) {
      return msg;
    }
    const { callId } = msg.event;
    const early = (m: ToView): boolean =>
      m.type === "progress" && m.turnId === msg.turnId && m.event.kind === "rows" && m.event.callId === callId;
    // A result that refers to its early rows (rowsSent) takes them along,
    // in a copy: the message may be posted already.
    const st = msg.event.statement;
    const page = this.entries.find(early);
    let kept: ToView = msg;
    if (st?.rowsSent && page?.type === "progress" && page.event.statement) {
      const { rowsSent: _sent, ...rest } = st;
      kept = { ...msg, event: { ...msg.event, statement: { ...rest, rows: page.event.statement.rows ?? [] } } };
    }
    this.entries = this.entries.filter((m) => !early(m));
    return kept;
  }

  /** The messages to send a new view, after its state. */
  replay(): ToView[] {
    return [...this.entries];
  }

  get length(): number {
    return this.entries.length;
  }

  // Consecutive text pieces of one turn replay as one: the answer streams
  // in many small pieces that are only interesting live.
  private mergeText(msg: ToView): boolean {
    const last = this.entries[this.entries.length - 1];
    if (
      msg.type !== "progress" || msg.event.kind !== "text" ||
      last?.type !== "progress" || last.event.kind !== "text" || last.turnId !== msg.turnId
    ) {
      return false;
    }
    const text = (last.event.text ?? "") + (msg.event.text ?? "");
    this.entries[this.entries.length - 1] = { ...last, event: { ...last.event, text } };
    return true;
  }

  // Drops whole turns from the front, so the view never sees a turn's
  // progress without its start.
  private trim(): void {
    while (this.entries.length > this.max) {
      const next = this.entries.findIndex((m, i) => i > 0 && m.type === "turnStart");
      this.entries.splice(0, next > 0 ? next : this.entries.length - this.max);
    }
  }
}
