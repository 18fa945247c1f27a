// The real aiq-rpc for the tests: $AIQ_RPC_BINARY, else built once from the
// repository, and a throwaway AIQ home per test.

import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { promisify } from "node:util";

const REPO_ROOT = path.resolve(__dirname, "..", "..", "..", "..", "..");

let built: Promise<string> | undefined;

// Every temp folder of a test process goes when the process ends, the built
// binary included (each test file runs in its own process).
const temps: string[] = [];
process.on("exit", () => {
  for (const dir of temps) {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

/** The binary under test. Building takes a while the first time (Go's cache). */
export function aiqRpcBinary(): Promise<string> {
  built ??= (async () => {
    const prebuilt = process.env.AIQ_RPC_BINARY;
    if (prebuilt) {
      fs.accessSync(prebuilt, fs.constants.X_OK);
      return prebuilt;
    }
    const out = path.join(tempDir("aiq-vscode-bin-"), "aiq-rpc");
    await promisify(execFile)("go", ["build", "-o", out, "./cmd/aiq-rpc"], { cwd: REPO_ROOT });
    return out;
  })();
  return built;
}

/** A temp folder, removed when the test process ends. */
export function tempDir(prefix: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  temps.push(dir);
  return dir;
}

/**
 * An AIQ home whose config.yaml points at modelUrl (no model when absent).
 * No sources.yaml: sessions use the embedded demo database.
 */
export function makeHome(modelUrl?: string): string {
  const home = tempDir("aiq-vscode-home-"); // removed at exit, or earlier by the test
  fs.mkdirSync(path.join(home, "config"), { recursive: true });
  if (modelUrl) {
    fs.writeFileSync(
      path.join(home, "config", "config.yaml"),
      `llm:\n  url: ${modelUrl}\n  api_key: sk-test-never-shown\n  model: test-model\n`,
    );
  }
  return home;
}

/** The child's environment: none of the developer's AIQ or OpenAI settings. */
export function childEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (!k.startsWith("AIQ_") && !k.startsWith("OPENAI_")) {
      env[k] = v;
    }
  }
  return env;
}

/**
 * Bounds every wait of a test for an event. Only a hang reaches it: on a
 * loaded machine (CI runs the suite once beside a CPU load) what takes
 * milliseconds on a quiet one can take seconds.
 */
export const WAIT_MS = 120_000;

/** Waits until cond() holds, polling; fails with what after timeoutMs. */
export async function waitFor(cond: () => boolean, what: string, timeoutMs = WAIT_MS): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) {
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    }
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Rejects with what when p does not settle within ms. */
export function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not happen within ${ms} ms`)), ms);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}
