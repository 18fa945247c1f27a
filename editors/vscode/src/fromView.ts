// Checks what the webview posts before acting on it: the webview runs
// scripts, so its messages are read as untrusted input.

import type { FromView } from "./messages";

export function parseFromView(data: unknown): FromView | undefined {
  if (typeof data !== "object" || data === null) {
    return undefined;
  }
  const m = data as { [key: string]: unknown };
  switch (m.type) {
    case "ready":
    case "cancel":
      return { type: m.type };
    case "ask":
      return typeof m.query === "string" ? { type: "ask", query: m.query } : undefined;
    case "runSql":
      return typeof m.sql === "string" ? { type: "runSql", sql: m.sql } : undefined;
    case "copy":
    case "insert":
      return typeof m.text === "string" ? { type: m.type, text: m.text } : undefined;
  }
  return undefined;
}
