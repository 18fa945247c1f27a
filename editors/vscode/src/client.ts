// The connection to one aiq-rpc process: spawn, initialize, typed methods,
// and a report when it ends. It does not import vscode, so the Node tests
// drive it against the real binary.

import { spawn, type ChildProcess } from "node:child_process";
import { PassThrough } from "node:stream";
import {
  CancellationToken,
  createMessageConnection,
  ErrorCodes,
  ResponseError,
  StreamMessageReader,
  StreamMessageWriter,
  Trace,
  type MessageConnection,
} from "vscode-jsonrpc/node";
import type {
  ConfigChangedParams,
  Allowance,
  ConfirmDecision,
  ConfirmParams,
  ExportParams,
  ExportResult,
  HistoryMessage,
  HistoryTurn,
  SeenResult,
  InitializeResult,
  LoadResult,
  ModelList,
  ProgressEvent,
  SaveResult,
  SessionInfo,
  SessionSummary,
  ShowMessageParams,
  ShutdownResult,
  Source,
  TurnParams,
  TurnResult,
} from "./protocol";
import { initializeFailureMessage, requestLostMessage, startFailureMessage, type ExitInfo } from "./serverExit";
import type { Place } from "./findServer";
import { StderrTail } from "./stderrTail";

export { CancellationTokenSource, type CancellationToken } from "vscode-jsonrpc/node";

/** How a turn (chat/turn, chat/runSql) reports and is cancelled. */
export interface TurnOptions {
  onProgress?: (e: ProgressEvent) => void;
  token?: CancellationToken;
}
export type { ExitInfo };

export type TraceLevel = "off" | "messages" | "verbose";

/** How to run the server: plain data, so settings map to it in a test. */
export interface SpawnOptions {
  command: string;
  args: string[];
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** The folders searched for a bare command that was found in none of them. */
  searched?: Place[];
}

export interface ClientHandlers {
  /** Answers chat/confirm; a throw or a missing handler is a reject. */
  confirm?(params: ConfirmParams): Promise<ConfirmDecision> | ConfirmDecision;
  showMessage?(params: ShowMessageParams): void;
  /** config.yaml or sources.yaml changed while the server runs. */
  configChanged?(params: ConfigChangedParams): void;
  /** Every chunk the server prints on stderr (its log). */
  stderr?(text: string): void;
  /** Called once, when the process has ended, whatever the reason. */
  exit?(info: ExitInfo): void;
  /** The wire, when tracing is on. */
  trace?(line: string): void;
}

export interface ClientOptions {
  spawn: SpawnOptions;
  /** The source of new sessions (initialize's options.source). */
  source?: string;
  historyLimit?: number;
  clientVersion?: string;
  trace?: TraceLevel;
  handlers?: ClientHandlers;
  initializeTimeoutMs?: number;
}

/** The server could not be started; the message is the one to show. */
export class StartError extends Error {
  constructor(
    message: string,
    readonly info?: ExitInfo,
  ) {
    super(message);
    this.name = "StartError";
  }
}

/** The server died before it answered a request. */
export class ServerExitedError extends Error {
  constructor(readonly info: ExitInfo) {
    super(requestLostMessage(info));
    this.name = "ServerExitedError";
  }
}

const DECISIONS: readonly string[] = ["allow_once", "allow_always", "reject"];

/** Time for 'close' (stdio drained) after 'exit', in case a grandchild holds the pipes. */
const CLOSE_GRACE_MS = 1000;

export class AiqClient {
  /** Resolves once, when the process has ended or could not start. */
  readonly exited: Promise<ExitInfo>;
  private initResult?: InitializeResult;
  private phase: ExitInfo["phase"] = "start";
  private exitInfo?: ExitInfo;
  private readonly child: ChildProcess;
  private readonly conn: MessageConnection;
  /** What the connection writes; piped to the child's stdin (see the constructor). */
  private readonly input = new PassThrough();
  private readonly stderr = new StderrTail();
  private readonly handlers: ClientHandlers;
  /** The progress callback of the turn running on each session. */
  private readonly turns = new Map<string, (e: ProgressEvent) => void>();
  private readonly exports = new Map<string, (e: ProgressEvent) => void>();

  /** Spawns aiq-rpc and initializes it; throws StartError with the message to show. */
  static async start(options: ClientOptions): Promise<AiqClient> {
    const client = new AiqClient(options);
    await client.initialize(options);
    return client;
  }

  private constructor(private readonly options: ClientOptions) {
    this.handlers = options.handlers ?? {};
    const { command, args, env, cwd } = options.spawn;
    this.child = spawn(command, args, { env, cwd, stdio: ["pipe", "pipe", "pipe"], windowsHide: true });
    this.exited = this.watchExit();
    this.child.stderr!.setEncoding("utf8");
    this.child.stderr!.on("data", (text: string) => {
      this.stderr.append(text);
      this.handlers.stderr?.(text);
    });
    // Writing to a server that already died fails with EPIPE, and
    // vscode-jsonrpc lets that rejection go unhandled. Its writes go to a
    // pipe of ours that never fails instead; the exit report says why.
    this.child.stdin!.on("error", () => this.input.unpipe());
    this.input.pipe(this.child.stdin!);
    this.conn = createMessageConnection(new StreamMessageReader(this.child.stdout!), new StreamMessageWriter(this.input));
    this.listen(options.trace ?? "off");
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  get info(): InitializeResult {
    if (!this.initResult) {
      throw new Error("aiq-rpc is not initialized");
    }
    return this.initResult;
  }

  /** Whether the process is still there. */
  get alive(): boolean {
    return this.exitInfo === undefined;
  }

  /** What the server printed on stderr lately. */
  get stderrTail(): string {
    return this.stderr.toString();
  }

  private watchExit(): Promise<ExitInfo> {
    return new Promise((resolve) => {
      let exitTimer: NodeJS.Timeout | undefined;
      const finish = (code: number | null, signal: string | null, spawnError?: NodeJS.ErrnoException) => {
        if (this.exitInfo) {
          return;
        }
        clearTimeout(exitTimer);
        const info: ExitInfo = {
          command: this.options.spawn.command,
          code,
          signal,
          stderr: this.stderr.toString(),
          phase: this.phase,
        };
        if (spawnError) {
          info.spawnError = { code: spawnError.code, message: spawnError.message };
        }
        if (this.options.spawn.searched) {
          info.searched = this.options.spawn.searched;
        }
        this.exitInfo = info;
        resolve(info);
        this.handlers.exit?.(info);
        // Let requests see the exit first, then drop the ones still pending.
        setImmediate(() => this.conn.dispose());
      };
      this.child.on("error", (err: NodeJS.ErrnoException) => {
        if (this.child.pid === undefined) {
          finish(null, null, err);
        }
      });
      this.child.on("exit", (code, signal) => {
        exitTimer = setTimeout(() => finish(code, signal), CLOSE_GRACE_MS);
      });
      this.child.on("close", (code, signal) => finish(code, signal));
    });
  }

  private listen(trace: TraceLevel): void {
    this.conn.onNotification("chat/progress", (e: ProgressEvent) => {
      if (typeof e.rowsWritten === "number") this.exports.get(e.sessionId)?.(e);
      else this.turns.get(e.sessionId)?.(e);
    });
    this.conn.onNotification("window/showMessage", (p: ShowMessageParams) => this.handlers.showMessage?.(p));
    this.conn.onNotification("config/changed", (p: ConfigChangedParams) => this.handlers.configChanged?.(p));
    this.conn.onRequest("chat/confirm", async (p: ConfirmParams) => ({ decision: await this.decide(p) }));
    // Stream errors come with the process's end, which is reported by exit.
    this.conn.onError(() => {});
    this.conn.listen();
    if (trace !== "off") {
      const log = this.handlers.trace ?? (() => {});
      void this.conn.trace(Trace.fromString(trace), {
        log: (message: unknown, data?: string) => log(data ? `${String(message)}\n${data}` : String(message)),
      });
    }
  }

  private async decide(p: ConfirmParams): Promise<ConfirmDecision> {
    try {
      const d = await this.handlers.confirm?.(p);
      return d && DECISIONS.includes(d) ? d : "reject";
    } catch {
      return "reject";
    }
  }

  private async initialize(options: ClientOptions): Promise<void> {
    const params = {
      clientInfo: { name: "aiq.vscode", version: options.clientVersion ?? "0.0.0" },
      capabilities: { confirm: true, rowsOnce: true },
      options: {
        ...(options.source ? { source: options.source } : {}),
        ...(options.historyLimit ? { historyLimit: options.historyLimit } : {}),
      },
    };
    const timeoutMs = options.initializeTimeoutMs ?? 20_000;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs / 1000} s`)), timeoutMs);
    });
    try {
      this.initResult = await Promise.race([this.call<InitializeResult>("initialize", params), timeout]);
      this.phase = "running";
      void this.conn.sendNotification("initialized", {}).catch(() => {});
    } catch (err) {
      throw await this.startError(err);
    } finally {
      clearTimeout(timer);
    }
  }

  private async startError(err: unknown): Promise<StartError> {
    if (err instanceof ServerExitedError) {
      return new StartError(startFailureMessage(err.info), err.info);
    }
    // Alive but useless (an error answer, a timeout): it must not linger.
    this.kill();
    const info = await this.exited;
    const reason = err instanceof Error ? err.message : String(err);
    return new StartError(initializeFailureMessage(info.command, reason, info.stderr), info);
  }

  /** Sends a request; a server that dies first turns into ServerExitedError. */
  private async call<R>(method: string, params?: unknown, token?: CancellationToken): Promise<R> {
    if (this.exitInfo) {
      throw new ServerExitedError(this.exitInfo);
    }
    const died = this.exited.then((info): never => {
      throw new ServerExitedError(info);
    });
    // A params argument of undefined would go out as [null]: leave it out.
    const args: unknown[] = params === undefined ? [] : [params];
    if (token) {
      args.push(token);
    }
    try {
      const sent = (this.conn.sendRequest as (m: string, ...a: unknown[]) => Promise<R>)(method, ...args);
      return await Promise.race([sent, died]);
    } catch (err) {
      if (err instanceof ResponseError && err.code !== ErrorCodes.PendingResponseRejected) {
        throw err; // the server's own answer
      }
      if (err instanceof ServerExitedError) {
        throw err;
      }
      // A closed pipe or a disposed connection: the exit says why.
      throw new ServerExitedError(await this.exited);
    }
  }

  newSession(source?: string): Promise<SessionInfo> {
    return this.call("session/new", source ? { source } : {});
  }

  /** Runs one turn; onProgress gets its chat/progress events in order. Cancel with token. */
  turn(params: TurnParams, opts: TurnOptions = {}): Promise<TurnResult> {
    return this.turnLike("chat/turn", params, opts);
  }

  /**
   * Runs one statement without the model (chat/runSql), through the path of
   * the model's execute_sql; its progress comes as a turn's does.
   */
  runSql(params: { sessionId: string; sql: string }, opts: TurnOptions = {}): Promise<TurnResult> {
    return this.turnLike("chat/runSql", params, opts);
  }

  /** A request that runs as a turn of its session: one at a time, its chat/progress to onProgress. */
  private async turnLike(method: string, params: { sessionId: string }, opts: TurnOptions): Promise<TurnResult> {
    if (this.turns.has(params.sessionId)) {
      throw new Error("A question is already being answered in this conversation; wait for it or cancel it.");
    }
    this.turns.set(params.sessionId, opts.onProgress ?? (() => {}));
    try {
      return await this.call<TurnResult>(method, params, opts.token);
    } finally {
      this.turns.delete(params.sessionId);
    }
  }

  /** Writes every row of a statement to a file (result/export); onRows hears the rows written so far. */
  async exportResult(
    params: ExportParams,
    opts: { onRows?: (rows: number) => void; token?: CancellationToken } = {},
  ): Promise<ExportResult> {
    const hear = (e: ProgressEvent) => {
      if (e.kind === "status" && typeof e.rowsWritten === "number") opts.onRows?.(e.rowsWritten);
    };
    this.exports.set(params.sessionId, hear);
    try {
      return await this.call<ExportResult>("result/export", params, opts.token);
    } finally {
      if (this.exports.get(params.sessionId) === hear) this.exports.delete(params.sessionId);
    }
  }

  async history(sessionId: string): Promise<HistoryTurn[]> {
    const r = await this.call<{ turns?: HistoryTurn[] }>("chat/history", { sessionId, detail: "turns" });
    return r.turns ?? [];
  }

  /**
   * The complete messages as the model keeps them (detail "full"): tool calls and results included;
   * and, by call id, what the user saw of each result (the rows the panel was sent, real values of
   * masked columns included, and the row count), which the session file does not keep.
   */
  async fullHistory(sessionId: string): Promise<{ messages: HistoryMessage[]; seen: Record<string, SeenResult> }> {
    const r = await this.call<{ messages?: HistoryMessage[]; seen?: Record<string, SeenResult> }>("chat/history", { sessionId, detail: "full" });
    return { messages: r.messages ?? [], seen: r.seen ?? {} };
  }

  /** The session's "Allow always" answers in force. */
  async allowances(sessionId: string): Promise<Allowance[]> {
    const r = await this.call<{ allowances?: Allowance[] }>("chat/allowances", { sessionId });
    return r.allowances ?? [];
  }

  /** Ends an allowance ("all": every one); returns those left. */
  async revoke(sessionId: string, id: string): Promise<Allowance[]> {
    const r = await this.call<{ allowances?: Allowance[] }>("chat/revoke", { sessionId, id });
    return r.allowances ?? [];
  }

  clear(sessionId: string): Promise<SaveResult> {
    return this.call("chat/clear", { sessionId });
  }

  save(sessionId: string, path?: string): Promise<SaveResult> {
    return this.call("session/save", path ? { sessionId, path } : { sessionId });
  }

  load(path: string): Promise<LoadResult> {
    return this.call("session/load", { path });
  }

  closeSession(sessionId: string): Promise<SaveResult> {
    return this.call("session/close", { sessionId });
  }

  /** The saved sessions, newest first; with latestFor, only the latest one of that source, read without reading the whole folder. */
  async list(latestFor?: string): Promise<SessionSummary[]> {
    const r = await this.call<{ sessions?: SessionSummary[] }>("session/list", latestFor === undefined ? undefined : { latestFor });
    return r.sessions ?? [];
  }

  async sources(): Promise<Source[]> {
    const r = await this.call<{ sources?: Source[] }>("sources/list");
    return r.sources ?? [];
  }

  setSource(sessionId: string, source: string): Promise<SessionInfo> {
    return this.call("session/setSource", { sessionId, source });
  }

  /** The endpoint's models, the configured one first, and the session's. */
  models(sessionId?: string): Promise<ModelList> {
    return this.call("models/list", sessionId ? { sessionId } : {});
  }

  /** Picks the session's model among the endpoint's; config.yaml is left as it is. */
  setModel(sessionId: string, model: string): Promise<ModelList> {
    return this.call("session/setModel", { sessionId, model });
  }

  /**
   * Asks the server to save and stop (shutdown, then exit), and kills it
   * when it does not within timeoutMs. Returns what shutdown saved.
   */
  async shutdown(timeoutMs = 5000): Promise<ShutdownResult | undefined> {
    if (this.exitInfo) {
      return undefined;
    }
    this.phase = "stopping";
    let result: ShutdownResult | undefined;
    try {
      result = await withTimeout(this.call<ShutdownResult>("shutdown"), timeoutMs);
      await this.conn.sendNotification("exit");
    } catch {
      // Stopping anyway.
    }
    this.input.end();
    if (!(await withTimeout(this.exited, timeoutMs).catch(() => undefined))) {
      this.kill();
      await this.exited;
    }
    return result;
  }

  /** Ends the process at once; its end is reported as a crash unless shutdown began. */
  kill(signal: NodeJS.Signals = "SIGKILL"): void {
    if (this.alive) {
      this.child.kill(signal);
    }
  }
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}
