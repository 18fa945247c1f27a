// The chat webview's HTML document. It imports nothing from vscode, so the
// tests build it in plain Node.

import { randomBytes } from "crypto";

/**
 * The chat panel's scripts under media/, in the order they run: view.js's
 * logic, Chart.js and its time adapter (copied to media/vendor/ by
 * `npm run compile`), the charts drawn with them, and the panel.
 */
export const CHAT_SCRIPTS = ["view.js", "vendor/chart.umd.js", "vendor/chartjs-adapter-date-fns.bundle.min.js", "charts.js", "chat.js"];

export interface ChatHtmlOptions {
  /** webview.cspSource: where the panel may load its script and style from. */
  cspSource: string;
  /** A fresh random value per document; only scripts carrying it run. */
  nonce: string;
  /** The scripts, in the order they must run (view.js before chat.js). */
  scriptUris: string[];
  styleUri: string;
  /** The editor's locale (vscode.env.language): charts format numbers and dates in it. */
  locale?: string;
}

/** A nonce for chatHtml: 128 random bits, base64url. */
export function newNonce(): string {
  return randomBytes(16).toString("base64url");
}

/** Text made safe inside a double-quoted HTML attribute. */
export function escapeAttr(value: string): string {
  return value.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/'/g, "&#39;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/** The Content-Security-Policy: nothing inline, nothing remote. */
export function chatCsp(cspSource: string, nonce: string): string {
  return `default-src 'none'; style-src ${cspSource}; script-src 'nonce-${nonce}'; img-src ${cspSource} data:;`;
}

function check(opts: ChatHtmlOptions): void {
  // Either would let a caller's mistake widen the policy.
  if (!/^[A-Za-z0-9+/_=-]{16,}$/.test(opts.nonce)) {
    throw new Error("chatHtml: the nonce must be at least 16 base64 characters; make one with newNonce()");
  }
  if (!isSourceList(opts.cspSource)) {
    throw new Error(`chatHtml: cspSource ${JSON.stringify(opts.cspSource)} is not a list of CSP sources; pass webview.cspSource`);
  }
}

/**
 * Whether value is what webview.cspSource may hold: one or more sources
 * separated by spaces (VS Code 1.100 gives "'self' https://*.vscode-cdn.net"),
 * each a host or scheme source or 'self'. Anything that would end the
 * directive or widen it ('unsafe-inline', a bare *) is refused.
 */
export function isSourceList(value: string): boolean {
  const sources = value.trim().split(/ +/);
  return value.trim() !== "" && sources.every((s) => s === "'self'" || (/^[^\s;,'"]+$/.test(s) && s !== "*"));
}

export function chatHtml(opts: ChatHtmlOptions): string {
  check(opts);
  const nonce = escapeAttr(opts.nonce);
  const scripts = opts.scriptUris.map((uri) => `  <script nonce="${nonce}" src="${escapeAttr(uri)}"></script>`).join("\n");
  return `<!DOCTYPE html>
<html lang="${escapeAttr(opts.locale || "en")}">
<head>
  <meta charset="UTF-8">
  <meta http-equiv="Content-Security-Policy" content="${escapeAttr(chatCsp(opts.cspSource, opts.nonce))}">
  <meta name="viewport" content="width=device-width, initial-scale=1.0">
  <link rel="stylesheet" href="${escapeAttr(opts.styleUri)}">
  <title>AIQ</title>
</head>
<body>
  <div id="app" class="aiq-app"></div>
${scripts}
</body>
</html>
`;
}
