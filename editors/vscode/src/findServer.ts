// Where aiq-rpc is when aiq.serverPath is left at its default: VS Code's
// extension host often does not see the shell's PATH (started from a
// desktop menu, or code-server's service), while `go install` puts the
// binary in $GOBIN or $(go env GOPATH)/bin, usually ~/go/bin.

import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

/** A folder searched, and why it was: "PATH", "$GOBIN", "$(go env GOPATH)/bin", "~/go/bin". */
export interface Place {
  dir: string;
  why: string;
}

export interface Lookup {
  /** The binary found, or undefined. */
  found?: string;
  /** Every folder searched, in order, without repeats. */
  searched: Place[];
}

export interface LookupDeps {
  homeDir?: string;
  /** `go env GOPATH`, or "" when go is not there; the default runs it (only when the cheap places failed). */
  goEnvGopath?: (env: NodeJS.ProcessEnv) => Promise<string>;
  platform?: NodeJS.Platform;
}

/**
 * Looks for the binary `name` on env's PATH, then in $GOBIN, each $GOPATH's
 * bin, $(go env GOPATH)/bin and ~/go/bin; the first executable file wins.
 */
export async function findServer(name: string, env: NodeJS.ProcessEnv, deps: LookupDeps = {}): Promise<Lookup> {
  const platform = deps.platform ?? process.platform;
  const file = platform === "win32" && !name.toLowerCase().endsWith(".exe") ? name + ".exe" : name;
  const searched: Place[] = [];
  const seen = new Set<string>();
  const tryIn = async (dirs: string[], why: string): Promise<string | undefined> => {
    for (const dir of dirs) {
      if (!dir || seen.has(dir)) {
        continue;
      }
      seen.add(dir);
      searched.push({ dir, why });
      const candidate = path.join(dir, file);
      if (await isExecutableFile(candidate)) {
        return candidate;
      }
    }
    return undefined;
  };
  const split = (v: string | undefined) => (v ?? "").split(path.delimiter).filter(Boolean);
  const bins = (roots: string[]) => roots.map((r) => path.join(r, "bin"));
  const homeDir = deps.homeDir ?? os.homedir();
  const found =
    (await tryIn(split(env.PATH ?? env.Path), "PATH")) ??
    (await tryIn(split(env.GOBIN), "$GOBIN")) ??
    (await tryIn(bins(split(env.GOPATH)), "$GOPATH/bin")) ??
    (await tryIn(bins(split(await (deps.goEnvGopath ?? goEnvGopath)(env))), "$(go env GOPATH)/bin")) ??
    (await tryIn([path.join(homeDir, "go", "bin")], "~/go/bin"));
  return { found, searched };
}

async function isExecutableFile(p: string): Promise<boolean> {
  try {
    const st = await fs.promises.stat(p);
    await fs.promises.access(p, fs.constants.X_OK);
    return st.isFile();
  } catch {
    return false;
  }
}

/** `go env GOPATH`, bounded to 3 s; "" when go is missing or fails. */
export function goEnvGopath(env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve) => {
    execFile("go", ["env", "GOPATH"], { env, timeout: 3000, windowsHide: true }, (err, stdout) => {
      resolve(err ? "" : String(stdout).trim());
    });
  });
}

/** The places as one phrase: "PATH (/usr/bin:/bin), $GOBIN (/x) or ~/go/bin (/home/a/go/bin)". */
export function describePlaces(places: Place[]): string {
  const groups: { why: string; dirs: string[] }[] = [];
  for (const p of places) {
    const g = groups.find((x) => x.why === p.why);
    if (g) {
      g.dirs.push(p.dir);
    } else {
      groups.push({ why: p.why, dirs: [p.dir] });
    }
  }
  const parts = groups.map((g) => `${g.why} (${g.dirs.join(path.delimiter)})`);
  return parts.length <= 1 ? parts.join("") : `${parts.slice(0, -1).join(", ")} or ${parts[parts.length - 1]}`;
}
