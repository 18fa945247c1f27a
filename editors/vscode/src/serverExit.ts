// What to tell the user when aiq-rpc cannot start or stops: which path was
// tried, what it printed, and how to get a working one.

import { describePlaces, type Place } from "./findServer";

/** How to install aiq-rpc: the module is not published, so from a clone of the repository. */
export const INSTALL_COMMAND = "cd <clone> && go install ./cmd/aiq-rpc";

/** How the server process ended (or failed to begin). */
export interface ExitInfo {
  /** The command that was spawned, as configured. */
  command: string;
  /** Exit status; null when killed by a signal or never started. */
  code: number | null;
  signal: string | null;
  /** The tail of what it printed on stderr. */
  stderr: string;
  /** Set when the process could not be spawned at all (ENOENT, EACCES). */
  spawnError?: { code?: string; message: string };
  /** "start": before initialize answered; "running": after; "stopping": asked to stop. */
  phase: "start" | "running" | "stopping";
  /** The folders a bare command was looked for in, when it was found in none. */
  searched?: Place[];
}

/** The longest stderr excerpt put in a message; popups are not log viewers. */
const STDERR_IN_MESSAGE = 1500;

export function stderrExcerpt(stderr: string): string {
  const text = stderr.trim();
  if (text.length <= STDERR_IN_MESSAGE) {
    return text;
  }
  return "…" + text.slice(text.length - STDERR_IN_MESSAGE);
}

function describePath(command: string, searched?: Place[]): string {
  if (searched?.length) {
    return `"${command}" (looked up in ${describePlaces(searched)})`;
  }
  const onPath = !command.includes("/") && !command.includes("\\");
  return onPath ? `"${command}" (looked up on PATH)` : `"${command}"`;
}

function howEnded(info: ExitInfo): string {
  if (info.signal) {
    return `was killed by ${info.signal}`;
  }
  return `exited with status ${info.code ?? "unknown"}`;
}

function printed(stderr: string): string {
  const text = stderrExcerpt(stderr);
  return text ? ` It printed:\n${text}\n` : " It printed nothing on stderr.";
}

const installHint =
  ` Install it from your clone of aiq-rpc with \`${INSTALL_COMMAND}\` (it goes to $(go env GOPATH)/bin, which AIQ` +
  " searches), or set aiq.serverPath to the full path of the binary.";

/** The one message shown when a start fails: spawn error or death before initialize answered. */
export function startFailureMessage(info: ExitInfo): string {
  const path = describePath(info.command, info.searched);
  const err = info.spawnError;
  if (err?.code === "ENOENT") {
    return `AIQ could not start aiq-rpc: ${path} was not found.` + installHint;
  }
  if (err?.code === "EACCES") {
    return `AIQ could not start aiq-rpc: ${path} is not executable (permission denied).` + installHint;
  }
  if (err) {
    return `AIQ could not start aiq-rpc: ${path} failed to start: ${err.message}.` + installHint;
  }
  return `AIQ could not start aiq-rpc: ${path} ${howEnded(info)} before it was ready.` + printed(info.stderr) + installHint;
}

/** The message when initialize itself failed or timed out, with the server still alive. */
export function initializeFailureMessage(command: string, reason: string, stderr: string): string {
  return `AIQ could not start aiq-rpc: ${describePath(command)} did not initialize: ${reason}.` + printed(stderr) + installHint;
}

/**
 * The message when a server that was working stops on its own. What it
 * printed is in the AIQ output already (its stderr goes there as it comes).
 */
export function crashMessage(info: ExitInfo): string {
  return `aiq-rpc stopped unexpectedly (it ${howEnded(info)}; its log is in the AIQ output).`;
}

/** The line a request in flight (a turn, mostly) gets when the server under it dies. */
export function requestLostMessage(info: ExitInfo): string {
  return `aiq-rpc stopped before it answered (it ${howEnded(info)}); the next command restarts it.`;
}
