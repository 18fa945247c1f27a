// The chat view's page outside VS Code, for the render check and the bench:
// a local server for the HTML chatHtml makes and the media files, a
// stand-in for VS Code's webview API, and Debian's headless Chromium.

import * as fs from "fs";
import * as http from "http";
import * as os from "os";
import * as path from "path";
import type { AddressInfo } from "net";
import { chromium, type BrowserContext, type Page } from "playwright-core";
import { CHAT_SCRIPTS, chatHtml, newNonce } from "../../src/chatHtml";
import { WAIT_MS } from "./aiqRpc";

export const CHROMIUM = "/usr/bin/chromium";
export const extensionRoot = path.join(__dirname, "..", "..", "..");
const mediaDir = path.join(extensionRoot, "media");

// VS Code's acquireVsCodeApi, which a webview may call once. It keeps the
// state in sessionStorage, as VS Code keeps it while the view is hidden, so
// a reload brings it back; window.__vscode records what the view posts and
// how long each setState took.
const VSCODE_API = `(function () {
  var rec = (window.__vscode = { posted: [], setStateMs: [] });
  var acquired = false;
  window.acquireVsCodeApi = function () {
    if (acquired) throw new Error("acquireVsCodeApi may be called once");
    acquired = true;
    return {
      postMessage: function (m) { rec.posted.push(JSON.parse(JSON.stringify(m))); },
      getState: function () { var s = sessionStorage.getItem("state"); return s ? JSON.parse(s) : undefined; },
      setState: function (s) {
        var t0 = performance.now();
        sessionStorage.setItem("state", JSON.stringify(s));
        rec.setStateMs.push(performance.now() - t0);
      },
    };
  };
})();
`;

/** Scripts of the caller's own: `before` runs before view.js, `after` after chat.js. */
export interface PageScripts {
  before?: string;
  after?: string;
  /** A stylesheet served at /vscode-defaults.css, for `before` to link (VS Code's default webview style). */
  defaultStyles?: string;
  /** The editor's locale, as the extension gives chatHtml (vscode.env.language). */
  locale?: string;
}

export interface Served {
  origin: string;
  /** Requests for anything but the page, its scripts and its media. */
  unexpected: string[];
  close(): void;
}

/** Serves the page, the stand-in, the caller's scripts and the media files, nothing else. */
export async function serve(scripts: PageScripts = {}): Promise<Served> {
  const unexpected: string[] = [];
  let origin = "";
  const own: Record<string, string> = { "/vscode-api.js": VSCODE_API };
  if (scripts.before) own["/before.js"] = scripts.before;
  if (scripts.after) own["/after.js"] = scripts.after;
  if (scripts.defaultStyles) own["/vscode-defaults.css"] = scripts.defaultStyles;
  const media: Record<string, string> = { "/media/chat.css": "text/css" };
  for (const name of CHAT_SCRIPTS) media[`/media/${name}`] = "text/javascript";
  const order = ["/vscode-api.js", ...(scripts.before ? ["/before.js"] : []), ...CHAT_SCRIPTS.map((name) => `/media/${name}`), ...(scripts.after ? ["/after.js"] : [])];
  const server = http.createServer((req, res) => {
    const url = (req.url || "/").split("?")[0];
    if (url === "/") {
      const html = chatHtml({ cspSource: origin, nonce: newNonce(), scriptUris: order.map((u) => origin + u), styleUri: `${origin}/media/chat.css`, locale: scripts.locale });
      res.writeHead(200, { "Content-Type": "text/html; charset=utf-8" });
      res.end(html);
    } else if (own[url] !== undefined) {
      res.writeHead(200, { "Content-Type": `${url.endsWith(".css") ? "text/css" : "text/javascript"}; charset=utf-8` });
      res.end(own[url]);
    } else if (media[url]) {
      res.writeHead(200, { "Content-Type": `${media[url]}; charset=utf-8`, "Cache-Control": "no-store" });
      res.end(fs.readFileSync(path.join(mediaDir, url.slice("/media/".length)), "utf8"));
    } else if (url === "/favicon.ico") {
      // The browser asks for it on its own; a VS Code webview has none.
      res.writeHead(204);
      res.end();
    } else {
      unexpected.push(url);
      res.writeHead(404);
      res.end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { origin, unexpected, close: () => server.close() };
}

export interface Browser {
  context: BrowserContext;
  page: Page;
  /** Console errors and warnings, page errors and dialogs, as they happen. */
  problems: string[];
  close(): Promise<void>;
}

/** Headless Chromium with a panel-sized window, a fresh profile, and the page opened. */
export async function openChat(served: Served): Promise<Browser> {
  const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), "aiq-chromium-"));
  const remove = () => fs.rmSync(userDataDir, { recursive: true, force: true });
  let context: BrowserContext;
  try {
    context = await chromium.launchPersistentContext(userDataDir, {
      executablePath: CHROMIUM,
      headless: true,
      args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
      viewport: { width: 480, height: 900 },
      timeout: WAIT_MS,
    });
  } catch (e) {
    remove();
    throw e;
  }
  const page = context.pages()[0] || (await context.newPage());
  page.setDefaultTimeout(WAIT_MS);
  const problems: string[] = [];
  page.on("console", (m) => {
    if (m.type() === "error" || m.type() === "warning") problems.push(`console ${m.type()}: ${m.text()}`);
  });
  page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
  page.on("dialog", (d) => {
    problems.push(`a dialog opened: ${d.message()}`);
    void d.dismiss();
  });
  await page.goto(`${served.origin}/`);
  return {
    context,
    page,
    problems,
    close: async () => {
      await context.close();
      remove();
    },
  };
}

/** Posts ToView messages to the page, as the extension's webview.postMessage does, in one task. */
export async function post(page: Page, messages: unknown[]): Promise<void> {
  await page.evaluate((ms) => {
    for (const m of ms) (globalThis as any).postMessage(m, "*");
  }, messages);
}

/** What the view posted to the extension so far. */
export async function posted(page: Page): Promise<any[]> {
  return page.evaluate(() => (globalThis as any).__vscode.posted);
}

