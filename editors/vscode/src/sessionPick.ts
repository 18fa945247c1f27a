// The Load Session quick pick: each saved session by its first question and
// when it was last saved, newest first (session/list's order), and a way to
// open a file elsewhere last.

import * as path from "node:path";
import type { SessionSummary } from "./protocol";

export interface SessionItem {
  label: string;
  description: string;
  detail: string;
  /** The file to load; undefined for the "open a file" entry. */
  path?: string;
}

const QUESTION_CHARS = 80;

/** A question on one line, cut to fit a quick pick's label. */
export function oneLine(text: string, max = QUESTION_CHARS): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length <= max ? line : line.slice(0, max - 1) + "…";
}

/** "today 09:15", "yesterday 18:00" or "2026-11-20 08:00", in local time; "" for no or a bad time. */
export function when(iso: string | undefined, now: Date): string {
  const t = iso ? new Date(iso) : undefined;
  if (!t || Number.isNaN(t.getTime())) {
    return "";
  }
  const pad = (n: number) => String(n).padStart(2, "0");
  const clock = `${pad(t.getHours())}:${pad(t.getMinutes())}`;
  const day = (d: Date) => `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
  const yesterday = new Date(now.getFullYear(), now.getMonth(), now.getDate() - 1);
  if (day(t) === day(now)) {
    return `today ${clock}`;
  }
  if (day(t) === day(yesterday)) {
    return `yesterday ${clock}`;
  }
  return `${day(t)} ${clock}`;
}

/**
 * Why a session file could not be read, as a sentence: session/list's error
 * is the problem alone ("the file is empty"), since the item names the file.
 */
export function unreadableReason(error: string): string {
  const reason = error.trim();
  if (reason === "") {
    return "The file cannot be read.";
  }
  return reason[0].toUpperCase() + reason.slice(1) + (/[.!?]$/.test(reason) ? "" : ".");
}

export function sessionItems(sessions: SessionSummary[], now = new Date()): SessionItem[] {
  const items: SessionItem[] = sessions.map((s) => {
    const file = path.basename(s.path);
    if (s.error) {
      return { label: `$(warning) ${file}`, description: when(s.updated, now), detail: oneLine(unreadableReason(s.error), 200), path: s.path };
    }
    const turns = `${s.turns} question${s.turns === 1 ? "" : "s"}`;
    return {
      label: s.firstQuestion.trim() ? oneLine(s.firstQuestion) : "(no questions)",
      description: when(s.updated ?? s.created, now),
      detail: [s.source || "no database", turns, file].join(" · "),
      path: s.path,
    };
  });
  items.push({ label: "$(folder-opened) Open a session file…", description: "", detail: "A session saved elsewhere, or by the AIQ CLI" });
  return items;
}
