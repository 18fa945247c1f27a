// The statements of a SQL text, for "Run with AIQ" in a .sql file: where
// each starts and ends, so that the statement under the cursor runs and
// each gets a CodeLens. A `;` inside a string, a quoted name, a comment or
// a dollar-quoted body does not end a statement. No vscode import: the
// Node tests cover it.

/** One statement: its text without the `;` and the blanks and comments around it, and its offsets in the document. */
export interface SqlStatement {
  text: string;
  start: number;
  end: number;
}

/** The language ids "Run with AIQ" treats as SQL (VS Code's and common SQL extensions'). */
export const SQL_LANGUAGES = ["sql", "mysql", "pgsql", "postgres", "postgresql", "sqlite", "plsql", "tsql", "mssql"];

/** Whether a document of languageId holds SQL. */
export function isSqlLanguage(languageId: string): boolean {
  return SQL_LANGUAGES.includes(languageId.toLowerCase());
}

/**
 * Whether a selection reads as a SQL statement, strictly enough that a
 * sentence selected in prose ("Update the docs") does not: Ctrl+Enter runs
 * it only then outside a SQL file, and keeps its own meaning elsewhere.
 */
export function looksLikeSql(text: string): boolean {
  const start = text.slice(0, 2000).replace(/^(\s+|--[^\n]*(\n|$)|\/\*[\s\S]*?\*\/)*/, "");
  return SQL_START.some((re) => re.test(start));
}

const SQL_START = [
  /^select\s+(\S[\s\S]*\bfrom\b|[\d'(*])/i,
  /^with\s+(recursive\s+)?[\w"`]+(\s*\([^)]*\))?\s+as\s*\(/i,
  /^insert\s+into\s/i,
  /^update\s+\S+\s+set\s/i,
  /^delete\s+from\s/i,
  /^(create|alter|drop)\s+(table|view|index|unique\s+index|schema|sequence|function|procedure|trigger|materialized\s+view)\s/i,
  /^(explain|pragma|truncate)\s+\S/i,
];

/** The statements of text, in order; empty ones (`;;`, comments only) are left out. */
export function splitStatements(text: string): SqlStatement[] {
  const out: SqlStatement[] = [];
  let from = 0;
  let i = 0;
  const cut = (end: number) => {
    const s = trimmed(text, from, end);
    if (s) out.push(s);
  };
  while (i < text.length) {
    const c = text[i];
    const next = text[i + 1];
    if (c === "-" && next === "-") {
      i = lineEnd(text, i);
    } else if (c === "#" && atLineStart(text, i)) {
      i = lineEnd(text, i); // MySQL's comment, only where it cannot be an operator
    } else if (c === "/" && next === "*") {
      const close = text.indexOf("*/", i + 2);
      i = close < 0 ? text.length : close + 2;
    } else if (c === "'" || c === '"' || c === "`") {
      i = quoteEnd(text, i, c);
    } else if (c === "$") {
      const tag = /^\$[A-Za-z_]*\$/.exec(text.slice(i, i + 64));
      if (tag && !/[\w]/.test(text[i - 1] ?? "")) {
        const close = text.indexOf(tag[0], i + tag[0].length);
        i = close < 0 ? text.length : close + tag[0].length;
      } else {
        i++;
      }
    } else if (c === ";") {
      cut(i);
      from = i + 1;
      i++;
    } else {
      i++;
    }
  }
  cut(text.length);
  return out;
}

/**
 * The statement to run for a cursor at offset: the one that holds it, else
 * the last one that ends before it on the same line (the cursor just after
 * a `;`), else the next one.
 */
export function statementAt(text: string, offset: number): SqlStatement | undefined {
  const all = splitStatements(text);
  const inside = all.find((s) => offset >= s.start && offset <= s.end);
  if (inside) {
    return inside;
  }
  const lineStart = text.lastIndexOf("\n", offset - 1) + 1;
  const before = [...all].reverse().find((s) => s.end <= offset && s.end >= lineStart);
  return before ?? all.find((s) => s.start >= offset) ?? all[all.length - 1];
}

/** The text between from and end without the blanks and comments around it, or undefined when nothing is left. */
function trimmed(text: string, from: number, end: number): SqlStatement | undefined {
  let start = from;
  for (;;) {
    while (start < end && /\s/.test(text[start])) start++;
    if (text.startsWith("--", start) || (text[start] === "#" && atLineStart(text, start))) {
      start = Math.min(lineEnd(text, start), end);
    } else if (text.startsWith("/*", start)) {
      const close = text.indexOf("*/", start + 2);
      start = close < 0 || close + 2 > end ? end : close + 2;
    } else {
      break;
    }
  }
  let stop = end;
  while (stop > start && /\s/.test(text[stop - 1])) stop--;
  if (stop <= start) {
    return undefined;
  }
  return { text: text.slice(start, stop), start, end: stop };
}

function lineEnd(text: string, i: number): number {
  const nl = text.indexOf("\n", i);
  return nl < 0 ? text.length : nl;
}

function atLineStart(text: string, i: number): boolean {
  const lineStart = text.lastIndexOf("\n", i - 1) + 1;
  return text.slice(lineStart, i).trim() === "";
}

/** Past the quote that closes the one at i; a doubled quote is part of the text, and so is a backslash-escaped one in '...'. */
function quoteEnd(text: string, i: number, q: string): number {
  let j = i + 1;
  while (j < text.length) {
    if (q === "'" && text[j] === "\\") {
      j += 2;
      continue;
    }
    if (text[j] === q) {
      if (text[j + 1] === q) {
        j += 2;
        continue;
      }
      return j + 1;
    }
    j++;
  }
  return text.length;
}
