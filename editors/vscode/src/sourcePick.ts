// The quick pick of data sources: each source with where it lives, and
// "no database" last.

import type { Source } from "./protocol";

export interface SourceItem {
  label: string;
  description: string;
  /** The name session/setSource gets; "" is no database. */
  name: string;
}

export function describeSource(s: Source): string {
  const host = s.host ? (s.port ? `${s.host}:${s.port}` : s.host) : "";
  return [s.type, host, s.database].filter(Boolean).join(" · ");
}

export function sourceItems(sources: Source[], current: string): SourceItem[] {
  const items = sources.map((s) => ({
    label: s.name === current ? `$(check) ${s.name}` : s.name,
    description: describeSource(s),
    name: s.name,
  }));
  items.push({ label: "No database", description: "answer without running SQL", name: "" });
  return items;
}
