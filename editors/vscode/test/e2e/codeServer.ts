// A real VS Code for the end-to-end suite: code-server (installed by
// install-code-server.sh) with the packaged aiq.vsix, a fresh profile, the
// built aiq-rpc, a throwaway AIQ home (the demo database) and the scripted
// model, opened in Debian's headless Chromium. Everything it writes lives
// in one temp folder.

import { spawn, execFile, type ChildProcess } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { before, describe } from "node:test";
import { promisify } from "node:util";
import { chromium, type Browser, type FrameLocator, type Locator, type Page } from "playwright-core";
import { aiqRpcBinary, childEnv, makeHome, tempDir, WAIT_MS } from "../support/aiqRpc";
import { CHROMIUM, extensionRoot } from "../support/chatPage";
import { ScriptedModel } from "../support/scriptedModel";

export const CODE_SERVER_VERSION = "4.100.3";
const installDir = path.join(extensionRoot, ".code-server", CODE_SERVER_VERSION);
const CODE_SERVER = path.join(installDir, "bin", "code-server");
const VSIX = path.join(extensionRoot, "aiq.vsix");

/** VS Code's default width of the side bar, where the chat panel lives. */
export const SIDEBAR_WIDTH = 300;

/** In CI the suite must run: a missing part fails it instead of skipping it. */
const required = process.env.CI === "true" || process.env.AIQ_DBTEST_REQUIRE === "1";

/** Why the suite cannot run on this machine, if it cannot. */
function missingPart(): string | undefined {
  if (!fs.existsSync(CHROMIUM)) {
    return `${CHROMIUM} is missing (apt-get install chromium)`;
  }
  if (!fs.existsSync(path.join(installDir, ".installed"))) {
    return `code-server ${CODE_SERVER_VERSION} is not installed (run editors/vscode/test/e2e/install-code-server.sh)`;
  }
  if (!fs.existsSync(VSIX)) {
    return `${VSIX} is missing (run npm run package)`;
  }
  return undefined;
}

/**
 * describe, when the suite can run here. Otherwise it skips and prints why,
 * or, with CI=true or AIQ_DBTEST_REQUIRE=1, fails.
 */
export function e2eSuite(name: string, body: () => void): void {
  const why = missingPart();
  if (why && !required) {
    console.log(`skipped: ${name}: ${why}`);
    describe(name, { skip: why }, body);
    return;
  }
  describe(name, () => {
    before(() => {
      if (why) {
        throw new Error(`${why}; CI=true or AIQ_DBTEST_REQUIRE=1 requires the real VS Code suite`);
      }
    });
    body();
  });
}

/** Whether the test an afterEach hook ran after failed (Node 20 has TestContext.passed; its types do not yet). */
export function testFailed(t: unknown): boolean {
  return (t as { passed?: boolean }).passed === false;
}

export interface VsCode {
  page: Page;
  model: ScriptedModel;
  /** The AIQ home: config.yaml points at the model; demo.sqlite, sessions/. */
  home: string;
  /** The chat panel's document, inside VS Code's two webview frames. */
  chat: FrameLocator;
  /** Console errors of the workbench and its frames, as they happen. */
  problems: string[];
  /** The folder VS Code has open. */
  workspace: string;
  /** Keeps a screenshot of the window for a failed test and prints where, with the workbench's visible text. */
  failed(test: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * Starts code-server with the extension and opens its workspace (query.sql
 * and files, by name: written before VS Code starts, as Quick Open lists
 * only the files it found then); the AIQ panel is not open yet.
 */
export async function startVsCode(files: Record<string, string> = {}): Promise<VsCode> {
  const [binary, model] = await Promise.all([aiqRpcBinary(), ScriptedModel.start()]);
  const dir = tempDir("aiq-e2e-");
  const home = makeHome(model.url);
  const workspace = path.join(dir, "workspace");
  const userData = path.join(dir, "user-data");
  fs.mkdirSync(path.join(userData, "User"), { recursive: true });
  fs.mkdirSync(workspace);
  fs.writeFileSync(path.join(workspace, "query.sql"), "-- Which category sells most?\nSELECT category, count(*) FROM products GROUP BY category;\n");
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(workspace, name), text);
  fs.writeFileSync(path.join(userData, "User", "settings.json"), JSON.stringify(settings(binary, home), null, 2));
  fs.writeFileSync(path.join(dir, "config.yaml"), "auth: none\n");

  // code-server and Chromium write their config, logs and caches under the XDG folders: keep them in dir.
  // The binary on PATH and AIQ_HOME too: after Developer: Reload Window, code-server (4.100) at times
  // starts the extension host without the user's settings (aiq.serverPath reads as its default, and no
  // change follows), and the extension must then find what a user without those settings has.
  const env = {
    ...childEnv(),
    XDG_CONFIG_HOME: dir,
    XDG_DATA_HOME: dir,
    XDG_CACHE_HOME: dir,
    PATH: `${path.dirname(binary)}${path.delimiter}${process.env.PATH ?? ""}`,
    AIQ_HOME: home,
  };
  const common = ["--config", path.join(dir, "config.yaml"), "--user-data-dir", userData, "--extensions-dir", path.join(dir, "extensions")];
  await promisify(execFile)(CODE_SERVER, [...common, "--install-extension", VSIX], { env });

  const server = spawn(CODE_SERVER, [
    ...common, "--auth", "none", "--bind-addr", "127.0.0.1:0", "--disable-telemetry", "--disable-update-check",
    "--disable-workspace-trust", "--disable-getting-started-override", "--ignore-last-opened",
  ], { env, stdio: ["ignore", "pipe", "pipe"] });
  let browser: Browser | undefined;
  try {
    const url = await listeningUrl(server);
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"],
      env: { ...process.env, XDG_CONFIG_HOME: dir, XDG_CACHE_HOME: dir }, // its crash reports too
    });
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    page.setDefaultTimeout(WAIT_MS);
    const problems: string[] = [];
    page.on("console", (m) => {
      if (m.type() === "error") problems.push(`${m.location().url}: ${m.text()}`);
    });
    page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
    await page.goto(`${url}?folder=${encodeURIComponent(workspace)}`);
    await page.locator(".monaco-workbench .part.activitybar").waitFor({ timeout: 2 * WAIT_MS });
    const chat = page.frameLocator('iframe.webview[src*="extensionId=aiq.aiq"][src*="purpose=webviewView"]').frameLocator("#active-frame");
    const opened = browser;
    return {
      page, model, home, chat, problems, workspace,
      failed: async (test: string) => {
        // Kept after the run (the test's folders are removed at exit): the screenshot and the AIQ output channel.
        const kept = fs.mkdtempSync(path.join(os.tmpdir(), "aiq-e2e-failed-"));
        const shot = path.join(kept, "window.png");
        await page.screenshot({ path: shot }).catch(() => undefined);
        const text = await page.locator(".monaco-workbench").innerText({ timeout: 5000 }).catch((e) => String(e));
        const logs = findFiles(path.join(userData, "logs"), (name) => /AIQ\.log$/.test(name));
        const output = logs.map((f) => `${f}:\n${fs.readFileSync(f, "utf8").slice(-4000)}`).join("\n");
        for (const [i, f] of logs.entries()) fs.copyFileSync(f, path.join(kept, `aiq-output-${i}.log`));
        const userSettings = fs.readFileSync(path.join(userData, "User", "settings.json"), "utf8");
        console.log(`"${test}" failed; the window is in ${shot}; it read:\n${text.slice(0, 1500)}\nthe AIQ output:\n${output}\nthe user settings:\n${userSettings}`);
      },
      close: async () => {
        await opened.close();
        await stop(server);
        await model.close();
      },
    };
  } catch (e) {
    await browser?.close();
    await stop(server);
    await model.close();
    throw e;
  }
}

/** The user settings of the fresh profile: the extension's, and a quiet workbench. */
function settings(binary: string, home: string): Record<string, unknown> {
  return {
    "aiq.serverPath": binary,
    "aiq.home": home,
    "workbench.colorTheme": "Default Dark Modern",
    "workbench.startupEditor": "none",
    "workbench.tips.enabled": false,
    "security.workspace.trust.enabled": false,
    "telemetry.telemetryLevel": "off",
    "extensions.autoCheckUpdates": false,
    "extensions.autoUpdate": false,
    "chat.commandCenter.enabled": false,
    "window.commandCenter": false,
  };
}

/** The address code-server prints once it listens (it chose a free port). */
function listeningUrl(server: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let log = "";
    const timer = setTimeout(() => reject(new Error(`code-server did not start within ${(2 * WAIT_MS) / 1000} s:\n${log}`)), 2 * WAIT_MS);
    const read = (chunk: Buffer) => {
      log += chunk.toString();
      const m = /HTTP server listening on (http:\/\/\S+)/.exec(log);
      if (m) {
        clearTimeout(timer);
        resolve(m[1].endsWith("/") ? m[1] : `${m[1]}/`);
      }
    };
    server.stdout?.on("data", read);
    server.stderr?.on("data", read);
    server.on("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`code-server exited with status ${code} before it listened:\n${log}`));
    });
  });
}

async function stop(server: ChildProcess): Promise<void> {
  if (server.exitCode !== null || server.signalCode !== null) {
    return;
  }
  const exited = new Promise((resolve) => server.once("exit", resolve));
  server.kill("SIGTERM");
  await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5000))]);
  server.kill("SIGKILL");
}

// ---- What a user does in the workbench ----

/** Runs a command from the Command Palette (F1), by its title. */
export async function runCommand(page: Page, title: string): Promise<void> {
  await page.keyboard.press("F1");
  const input = page.locator(".quick-input-widget input.input");
  await input.waitFor();
  await input.fill(`>${title}`);
  await page.locator(".quick-input-list .monaco-list-row", { hasText: title }).first().waitFor();
  await input.press("Enter");
}

/** Opens the AIQ panel from the activity bar and waits until its input shows. */
export async function openPanel(vs: VsCode): Promise<void> {
  await vs.page.locator('.activitybar .action-item a[aria-label="AIQ"]').click();
  await vs.page.mouse.move(800, 600); // its tooltip would stay in the screenshots
  try {
    await vs.chat.locator("textarea.ask-input").waitFor();
  } catch (e) {
    // VS Code shows a view's failure inside the webview's frame.
    const shown = await vs.chat.locator("body").innerText({ timeout: 1000 }).catch(() => "");
    throw new Error(`the AIQ panel did not load; it shows: ${shown.trim() || "nothing"}`, { cause: e });
  }
}

/**
 * Opens a file of the workspace with Quick Open; returns its editor. F1 and
 * a name without ">" is Ctrl+P's file search, and F1 reaches the workbench
 * from the chat panel too, where the webview keeps Ctrl+P.
 */
export async function openFile(page: Page, name: string): Promise<Locator> {
  await page.keyboard.press("F1");
  await page.locator(".quick-input-widget input.input").fill(name);
  await page.locator(".quick-input-list .monaco-list-row", { hasText: name }).first().waitFor();
  await page.keyboard.press("Enter");
  const editor = page.locator(".editor-instance .monaco-editor").first();
  await editor.locator(".view-lines").waitFor();
  return editor;
}

/** Types a question into the panel and presses Enter. */
export async function ask(vs: VsCode, question: string): Promise<void> {
  const input = vs.chat.locator("textarea.ask-input");
  await input.fill(question);
  await input.press("Enter");
}

/** The modal dialog (VS Code draws it in the page, not the browser's). */
export function dialog(page: Page): Locator {
  return page.locator(".monaco-dialog-box");
}

/** A notification toast that says text. */
export function notification(page: Page, text: string | RegExp): Locator {
  return page.locator(".notifications-toasts .notification-toast", { hasText: text });
}

/** The panel's turn that asked question (the last, if several did). */
export function turn(vs: VsCode, question: string): Locator {
  return vs.chat.locator("section.turn", { has: vs.chat.locator(".question", { hasText: question }) }).last();
}

/** The files under dir whose names match, at any depth; none when dir is missing. */
function findFiles(dir: string, match: (name: string) => boolean): string[] {
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  return entries.flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? findFiles(p, match) : match(e.name) ? [p] : [];
  });
}
