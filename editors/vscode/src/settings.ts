// The extension's settings as plain data, and how they become the spawn of
// aiq-rpc. Kept apart from vscode so tests check the mapping.

import * as os from "node:os";
import * as path from "node:path";
import type { SpawnOptions, TraceLevel } from "./client";
import { findServer, type LookupDeps } from "./findServer";

export interface Settings {
  /** aiq.serverPath: the binary; a bare name is looked up on PATH (the default also where `go install` puts it). */
  serverPath: string;
  /** aiq.home: the AIQ home folder; "" lets aiq-rpc choose ($AIQ_HOME, else ~/.aiq). */
  home: string;
  /** aiq.source: the data source of new sessions; "" is the server's default. */
  source: string;
  /** aiq.trace.server */
  trace: TraceLevel;
  /** aiq.restoreLastSession: on start, reopen the last conversation on the source (session/list's `latest`). */
  restoreLastSession: boolean;
  /** aiq.runCodeLens: "Run with AIQ" above each statement of a SQL file. */
  runCodeLens: boolean;
}

export const DEFAULT_SERVER_PATH = "aiq-rpc";

/** Reads raw setting values leniently: a wrong type is the default, not a crash. */
export function normalizeSettings(raw: { [key: string]: unknown }): Settings {
  const str = (v: unknown) => (typeof v === "string" ? v.trim() : "");
  const trace = str(raw.trace);
  return {
    serverPath: str(raw.serverPath) || DEFAULT_SERVER_PATH,
    home: str(raw.home),
    source: str(raw.source),
    trace: trace === "messages" || trace === "verbose" ? trace : "off",
    restoreLastSession: raw.restoreLastSession !== false,
    runCodeLens: raw.runCodeLens !== false,
  };
}

/** "~/x" as the user means it; VS Code settings do not expand it. */
export function expandHome(p: string, homeDir = os.homedir()): string {
  if (p === "~") {
    return homeDir;
  }
  if (p.startsWith("~/") || p.startsWith("~\\")) {
    return path.join(homeDir, p.slice(2));
  }
  return p;
}

export function spawnOptionsFor(settings: Settings, env: NodeJS.ProcessEnv = process.env): SpawnOptions {
  const args = settings.home ? ["--home", expandHome(settings.home)] : [];
  return { command: expandHome(settings.serverPath), args, env };
}

/**
 * spawnOptionsFor, with the default server name looked for where `go
 * install` puts it when it is not on PATH. When it is nowhere, the spawn
 * fails and its message names every folder searched.
 */
export async function locateServer(settings: Settings, env: NodeJS.ProcessEnv = process.env, deps?: LookupDeps): Promise<SpawnOptions> {
  const spawn = spawnOptionsFor(settings, env);
  if (settings.serverPath !== DEFAULT_SERVER_PATH) {
    return spawn; // the user's choice, as given
  }
  const { found, searched } = await findServer(DEFAULT_SERVER_PATH, env, deps);
  return found ? { ...spawn, command: found } : { ...spawn, searched };
}
