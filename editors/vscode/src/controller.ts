// The extension's logic without VS Code: one aiq-rpc connection started on
// first use and again after it dies, one conversation kept across restarts,
// one turn at a time. The vscode side gives it a Ui and turns commands into
// calls; the Node tests drive it with the real binary.

import * as path from "node:path";
import { ResponseError } from "vscode-jsonrpc/node";
import { AiqClient, CancellationTokenSource, StartError, type CancellationToken, type ExitInfo } from "./client";
import { confirmPrompt } from "./confirm";
import { detailOf, messageOf, ReportedError, turnErrorMessage, UserError } from "./errors";
import type { LookupDeps } from "./findServer";
import type { ConfirmPrompt, ProgressEvent, Statement, ToView } from "./messages";
import type {
  Allowance,
  ConfigChangedParams,
  ConfirmDecision,
  ConfirmParams,
  ExportParams,
  ExportResult,
  LoadResult,
  ModelList,
  SaveResult,
  Selection,
  SessionSummary,
  ShowMessageParams,
  Source,
  TurnResult,
} from "./protocol";
import { RestartPolicy } from "./restartPolicy";
import { crashMessage } from "./serverExit";
import { locateServer, type Settings } from "./settings";
import type { ControllerState } from "./status";
import { Transcript } from "./transcript";
import { turnRequest, turnStartMessage } from "./turnRequest";
import { keptStatement, type KeptRef, type KeptStatement } from "./keptResult";

export interface ControllerUi {
  /** A message for the chat view; the controller also keeps it for replay. */
  view(msg: ToView): void;
  /** The one popup of a failed start (it offers to open aiq.serverPath). */
  startFailed(message: string): void;
  /** The popup for a server that died on its own. */
  crashed(message: string): void;
  showMessage(params: ShowMessageParams): void;
  /**
   * A write dialog opened in the chat view (a "confirm" view message): the
   * panel should show. The answer comes back through answerConfirm(id).
   */
  confirmOpened(id: number, params: ConfirmParams): void;
  /**
   * A write dialog with no turn to show it in, such as the cost gate of an
   * export: a modal, whose answer is the decision; Enter and Escape reject.
   */
  confirmModal(prompt: ConfirmPrompt): Promise<ConfirmDecision>;
  /** The state changed (for the status bar). */
  state(state: ControllerState): void;
  /** The server's stderr and, when tracing, the wire. */
  log(text: string): void;
}

export interface ControllerOptions {
  settings: () => Settings;
  ui: ControllerUi;
  env?: NodeJS.ProcessEnv;
  clientVersion?: string;
  policy?: RestartPolicy;
  initializeTimeoutMs?: number;
  /** How the default server name is looked for (the tests give a home of their own). */
  lookup?: LookupDeps;
}

const BUSY = "AIQ is still answering the last question: wait for it, or cancel it (AIQ: Cancel).";

export class Controller {
  private client?: AiqClient;
  private starting?: Promise<AiqClient>;
  /** Start failures already shown, so queued commands do not pop up again. */
  private readonly reported = new WeakSet<StartError>();
  private serverState: ControllerState["server"] = "stopped";
  /** The session on the current connection. */
  private session?: { id: string; source: string };
  private opening?: Promise<string>;
  /**
   * The window's first session has not been opened yet, so the last
   * conversation may still come back (aiq.restoreLastSession): the view
   * keeps the conversation it saved rather than draw an empty one first.
   */
  private restorePending = true;
  /** The conversation outlives connections: its file and source let a restart resume it. */
  private conversation?: { savedPath?: string; source: string };
  private turn?: { id: number; cts: CancellationTokenSource };
  private nextTurnId = 1;
  private disposed = false;
  private readonly transcript = new Transcript();
  private readonly policy: RestartPolicy;
  /** The session's model, as models/list or session/setModel said. */
  private model?: string;
  /** The sources as the server's last config/changed gave them, which replace initialize's; undefined until one came. */
  private liveSources?: { client: AiqClient; sources: Source[] };
  /** A crash during a turn, said once by that turn's error instead of a notice and a popup. */
  private crashDuringTurn?: string;
  /** The crash was said already: the reload after the restart is not another message. */
  private crashSaid = false;
  /** Write dialogs open in the view, by id; a crash or the turn's end closes them unanswered. */
  private readonly dialogs = new Map<number, { turnId: number; resolve: (d: ConfirmDecision) => void }>();
  /** Called the next time a server is running (onceRunning). */
  private readonly runningListeners = new Set<() => void>();
  private nextDialogId = 1;

  constructor(private readonly options: ControllerOptions) {
    this.policy = options.policy ?? new RestartPolicy();
  }

  get state(): ControllerState {
    const known = this.session?.source ?? this.conversation?.source;
    const configured = this.options.settings().source;
    const source = known ?? configured;
    const label = this.labelOf(source);
    return {
      source,
      sourceKnown: known !== undefined || configured !== "",
      running: this.turn !== undefined,
      server: this.serverState,
      ...(this.model ? { model: this.model } : {}),
      ...(label ? { label } : {}),
    };
  }

  /** The label sources.yaml gives source ("production"), as the running server read it. */
  private labelOf(source: string): string | undefined {
    if (!source || !this.client?.alive) {
      return undefined;
    }
    try {
      const live = this.liveSources?.client === this.client ? this.liveSources.sources : undefined;
      return (live ?? this.client.info.sources).find((s) => s.name === source)?.label || undefined;
    } catch {
      return undefined; // not initialized yet
    }
  }

  /** The running server's process id, for diagnostics and the tests. */
  get serverPid(): number | undefined {
    return this.client?.alive ? this.client.pid : undefined;
  }

  /** What a newly shown chat view needs: the state, then the conversation so far. */
  replay(): ToView[] {
    return [this.stateMessage(), ...this.transcript.replay()];
  }

  /**
   * Starts the server and opens the conversation's session if they are not
   * yet, so that a panel just shown names the real data source. A failure
   * is said in the panel; the next command pops it up.
   */
  warmUp(): void {
    if (this.disposed || (this.client?.alive && this.session)) {
      return;
    }
    void this.connection(true)
      .then((client) => this.sessionId(client))
      .then(() => (this.model === undefined ? this.refreshModel() : undefined))
      .catch(() => this.settleRestore());
  }

  private stateMessage(): ToView {
    const { source, running, sourceKnown, server, model, label } = this.state;
    const restoring = this.restorePending && this.options.settings().restoreLastSession;
    return {
      type: "state",
      source,
      running,
      sourceKnown,
      server,
      ...(model ? { model } : {}),
      ...(label ? { label } : {}),
      ...(restoring ? { restoring } : {}),
    };
  }

  /** Asks one question; the answer streams to the view. Resolves with the result, or undefined when it failed. */
  async ask(query: string | undefined, selection?: Selection): Promise<TurnResult | undefined> {
    const req = turnRequest(query, selection);
    return this.runTurn(turnStartMessage(0, req), (client, sessionId, onProgress, token) =>
      client.turn({ sessionId, ...req }, { token, onProgress }),
    );
  }

  /**
   * Runs one statement without the model (Run again, Edit and run): shown as
   * a turn whose question is the SQL.
   */
  async runSql(sql: string, shown?: (st: Statement) => void): Promise<TurnResult | undefined> {
    const statement = sql.trim();
    if (!statement) {
      throw new UserError("There is no SQL to run.");
    }
    const start: ToView = { type: "turnStart", turnId: 0, query: "", selection: { text: statement, languageId: "sql" } };
    // The rows come once (rowsOnce), in a progress event: kept by call for the result tab.
    const pages = new Map<string, Statement>();
    return this.runTurn(start, async (client, sessionId, onProgress, token) => {
      const hear = (e: ProgressEvent) => {
        if (e.statement && e.callId && (e.kind === "rows" || e.kind === "tool_result")) {
          pages.set(e.callId, withRows(e.statement, pages.get(e.callId)));
        }
        onProgress(e);
      };
      const result = await client.runSql({ sessionId, sql: statement }, { token, onProgress: hear });
      const last = result.statements[result.statements.length - 1];
      if (last && shown) {
        shown(withRows(last, last.callId ? pages.get(last.callId) : undefined));
      }
      return result;
    });
  }

  private async runTurn(
    start: ToView,
    run: (client: AiqClient, sessionId: string, onProgress: (e: ProgressEvent) => void, token: CancellationToken) => Promise<TurnResult>,
  ): Promise<TurnResult | undefined> {
    if (this.turn) {
      throw new UserError(BUSY);
    }
    const turnId = this.nextTurnId++;
    const cts = new CancellationTokenSource();
    this.turn = { id: turnId, cts };
    this.publishState();
    this.post({ ...start, turnId } as ToView);
    try {
      const client = await this.connection();
      const sessionId = await this.sessionId(client);
      const result = await run(client, sessionId, (event) => this.post({ type: "progress", turnId, event }), cts.token);
      if (result.savedTo && this.conversation) {
        this.conversation.savedPath = result.savedTo;
      }
      this.post({ type: "turnEnd", turnId, result });
      return result;
    } catch (err) {
      this.post({ type: "turnError", turnId, message: this.lostTurnMessage(err) ?? turnErrorMessage(err) });
      this.options.ui.log(`The question failed: ${detailOf(err)}\n`);
      return undefined;
    } finally {
      // A dialog the server stopped waiting for: its statement did not run, whatever is chosen now.
      this.closeDialogs(cts.token.isCancellationRequested
        ? "The statement did not run: the question was stopped before you answered."
        : "The statement did not run: the answer ended before you answered.");
      this.turn = undefined;
      cts.dispose();
      this.publishState();
    }
  }

  /**
   * The one message of a turn whose server died under it: what happened,
   * that it was restarted, and that the question (and a statement waiting
   * for the user's answer) did not complete.
   */
  private lostTurnMessage(err: unknown): string | undefined {
    const crash = this.crashDuringTurn;
    this.crashDuringTurn = undefined;
    if (!crash) {
      return undefined; // a lost request without a crash report is said as it is
    }
    return `${crash} The question was not answered: ask it again.`;
  }

  /**
   * Writes every row of a statement of the conversation (callId) or of sql to
   * a file. Resolves with what was written, or undefined when it was
   * cancelled; a failure is thrown, with the server's sentence.
   */
  async exportResult(
    params: Omit<ExportParams, "sessionId">,
    token: CancellationToken,
    onRows: (rows: number) => void,
  ): Promise<ExportResult | undefined> {
    const client = await this.connection();
    const sessionId = await this.sessionId(client);
    try {
      return await client.exportResult({ sessionId, ...params }, { token, onRows });
    } catch (err) {
      if (token.isCancellationRequested) {
        return undefined;
      }
      if (exportDeclined(err)) {
        throw new UserError(messageOf(err)); // the user's own answer: said, not an error
      }
      throw err;
    }
  }

  /**
   * Opens the write dialog in the turn's place in the view and waits for
   * the user's answer. Without a turn (an export's costly read) there is no
   * place in the view for it: a modal asks instead.
   */
  private confirm(params: ConfirmParams): Promise<ConfirmDecision> {
    const turnId = this.turn?.id;
    if (turnId === undefined) {
      return this.options.ui.confirmModal(confirmPrompt(params));
    }
    const id = this.nextDialogId++;
    const answered = new Promise<ConfirmDecision>((resolve) => this.dialogs.set(id, { turnId, resolve }));
    this.post({ type: "confirm", turnId, id, prompt: confirmPrompt(params) });
    this.options.ui.confirmOpened(id, params);
    return answered;
  }

  /** The user's answer to dialog id; an answer to a dialog closed already is too late and changes nothing. */
  answerConfirm(id: number, decision: ConfirmDecision): void {
    const dialog = this.dialogs.get(id);
    if (!dialog) {
      return;
    }
    this.dialogs.delete(id);
    this.post({ type: "confirmEnd", turnId: dialog.turnId, id, decision });
    dialog.resolve(decision);
  }

  /** Closes every open dialog unanswered (a reject); message, if any, takes its place in the view. */
  private closeDialogs(message?: string): void {
    for (const [id, dialog] of this.dialogs) {
      this.post({ type: "confirmEnd", turnId: dialog.turnId, id, decision: "closed", ...(message ? { message } : {}) });
      dialog.resolve("reject");
    }
    this.dialogs.clear();
  }

  /** Cancels the running turn; false when none runs. */
  cancel(): boolean {
    if (!this.turn) {
      return false;
    }
    this.turn.cts.cancel();
    return true;
  }

  async showHistory(): Promise<void> {
    const client = await this.connection();
    this.post(await this.historyMessage(client, await this.sessionId(client)));
  }

  /** The view's history of a session: its questions and answers, and the SQL and rows of its last turns. */
  private async historyMessage(client: AiqClient, sessionId: string): Promise<ToView> {
    const [turns, full] = await Promise.all([client.history(sessionId), client.fullHistory(sessionId)]);
    return { type: "history", turns, messages: full.messages, seen: full.seen };
  }

  /**
   * The result a restored result tab refers to, from the panel's conversation: the rows the user
   * saw (chat/history's seen), else those its session file kept; undefined when it holds no such call.
   */
  async keptResult(ref: KeptRef): Promise<KeptStatement | undefined> {
    const client = await this.connection();
    const full = await client.fullHistory(await this.sessionId(client));
    return keptStatement(ref, full.messages, full.seen);
  }

  /** The "Allow always" answers in force in the conversation. */
  async allowances(): Promise<Allowance[]> {
    const client = await this.connection();
    return client.allowances(await this.sessionId(client));
  }

  /** Ends an allowance, or all of them for "all"; returns those left. */
  async revoke(id: string): Promise<Allowance[]> {
    const client = await this.connection();
    return client.revoke(await this.sessionId(client), id);
  }

  /** Empties the conversation (the caller has asked the user). */
  async clear(): Promise<SaveResult> {
    this.refuseWhileRunning();
    const client = await this.connection();
    const r = await client.clear(await this.sessionId(client));
    this.remember(r.path);
    this.post({ type: "clear" });
    return r;
  }

  /**
   * Starts an empty conversation on the same source. The one before is
   * saved (session/close) and stays in History (Load Session...), so
   * nothing is asked first.
   */
  async newChat(): Promise<void> {
    this.refuseWhileRunning();
    const client = await this.connection();
    const previous = this.session?.id;
    const source = this.session?.source ?? this.conversation?.source ?? this.options.settings().source;
    const r = await client.newSession(source);
    this.session = { id: r.sessionId, source: r.source };
    this.conversation = { source: r.source };
    if (previous) {
      await client.closeSession(previous).catch(() => undefined);
    }
    this.post({ type: "clear" });
    this.publishState();
  }

  async save(): Promise<SaveResult> {
    const client = await this.connection();
    const r = await client.save(await this.sessionId(client));
    this.remember(r.path);
    this.post({ type: "notice", level: "info", message: `Saved to ${r.path}. ${r.hint}` });
    return r;
  }

  /** Replaces the conversation with a saved one and shows its history. */
  async load(file: string): Promise<LoadResult> {
    this.refuseWhileRunning();
    const client = await this.connection();
    const r = await client.load(file);
    const previous = this.session;
    this.session = { id: r.sessionId, source: r.source };
    this.conversation = { savedPath: r.path, source: r.source };
    if (previous && previous.id !== r.sessionId) {
      // session/close saves what was not saved yet; the old file stays as it is.
      await client.closeSession(previous.id).catch(() => undefined);
    }
    this.post(await this.historyMessage(client, r.sessionId));
    this.publishState();
    return r;
  }

  /** The folder of saved sessions, `<home>/sessions` of the running server. */
  async sessionsFolder(): Promise<string> {
    const client = await this.connection();
    return path.join(client.info.home, "sessions");
  }

  /** The saved sessions (session/list), newest first. */
  async sessions(): Promise<SessionSummary[]> {
    return (await this.connection()).list();
  }

  async sources(): Promise<Source[]> {
    return (await this.connection()).sources();
  }

  /** The endpoint's models for the conversation's session. */
  async models(): Promise<ModelList> {
    const client = await this.connection();
    const list = await client.models(await this.sessionId(client));
    this.model = list.current;
    this.publishState();
    return list;
  }

  /** Picks the conversation's model, for as long as the server runs. */
  async setModel(name: string): Promise<void> {
    this.refuseWhileRunning();
    const client = await this.connection();
    const list = await client.setModel(await this.sessionId(client), name);
    this.model = list.current;
    this.post({ type: "notice", level: "info", message: `Model: ${list.current}.` });
    this.publishState();
  }

  /** sources.yaml or config.yaml changed: the labels and the model shown follow. */
  private onConfigChanged(client: AiqClient | undefined, p: ConfigChangedParams): void {
    if (client && Array.isArray(p.sources)) {
      this.liveSources = { client, sources: p.sources };
      this.publishState();
    }
    void this.refreshModel();
  }

  /** Reads the model again after the configuration changed; no model is "". */
  private async refreshModel(): Promise<void> {
    try {
      await this.models();
    } catch {
      this.model = "";
      this.publishState();
    }
  }

  async setSource(name: string): Promise<void> {
    this.refuseWhileRunning();
    const client = await this.connection();
    const r = await client.setSource(await this.sessionId(client), name);
    this.session = { id: r.sessionId, source: r.source };
    if (this.conversation) {
      this.conversation.source = r.source;
    }
    this.post({ type: "notice", level: "info", message: `Data source: ${r.source || "none"}.` });
    this.publishState();
  }

  /**
   * Stops the server so the next command starts one with new settings; the
   * conversation carries over through its file.
   */
  async restartOnNextCommand(): Promise<void> {
    const client = this.client;
    if (!client) {
      return;
    }
    this.client = undefined;
    await this.stopClient(client);
    this.post({ type: "notice", level: "info", message: "AIQ's settings changed: aiq-rpc restarts with them on the next command." });
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    this.turn?.cts.cancel();
    const client = this.client;
    this.client = undefined;
    if (client) {
      await this.stopClient(client);
    }
  }

  private async stopClient(client: AiqClient): Promise<void> {
    const sessionId = this.session?.id;
    this.session = undefined;
    const r = await client.shutdown(3000); // VS Code gives deactivate a few seconds only
    const saved = r?.saved.find((s) => s.sessionId === sessionId);
    if (saved) {
      this.remember(saved.path);
    }
    this.setServer("stopped");
  }

  private refuseWhileRunning(): void {
    if (this.turn) {
      throw new UserError(BUSY);
    }
  }

  private remember(savedPath: string): void {
    if (this.conversation && savedPath) {
      this.conversation.savedPath = savedPath;
    }
  }

  private post(msg: ToView): void {
    this.transcript.add(msg);
    this.options.ui.view(msg);
  }

  private publishState(): void {
    this.options.ui.state(this.state);
    this.options.ui.view(this.stateMessage());
  }

  private setServer(state: ControllerState["server"]): void {
    this.serverState = state;
    this.publishState();
    if (state === "running") {
      const listeners = [...this.runningListeners];
      this.runningListeners.clear();
      for (const listener of listeners) listener();
    }
  }

  /**
   * Calls listener once, the next time a server is running: what failed for
   * want of one (a result tab restored before the server could start) tries
   * again then. The returned function takes it back.
   */
  onceRunning(listener: () => void): () => void {
    this.runningListeners.add(listener);
    return () => this.runningListeners.delete(listener);
  }

  /** The running client, started if need be; a failed start is shown once and thrown as ReportedError. */
  private async connection(quiet = false): Promise<AiqClient> {
    if (this.disposed) {
      throw new UserError("AIQ is shutting down.");
    }
    if (this.client?.alive) {
      return this.client;
    }
    this.starting ??= this.startClient().finally(() => (this.starting = undefined));
    try {
      return await this.starting;
    } catch (err) {
      if (!(err instanceof StartError)) {
        throw err;
      }
      if (!this.reported.has(err)) {
        this.reported.add(err);
        if (quiet) {
          // A restart nobody asked for: said in the panel, not in a popup.
          this.post({ type: "notice", level: "error", message: err.message });
        } else {
          this.options.ui.startFailed(err.message);
        }
      }
      throw new ReportedError(err.message);
    }
  }

  private async startClient(): Promise<AiqClient> {
    this.setServer("starting");
    const settings = this.options.settings();
    const ui = this.options.ui;
    // Assigned once started; the exit handler only runs after that.
    let client: AiqClient | undefined;
    try {
      client = await AiqClient.start({
        spawn: await locateServer(settings, this.options.env ?? process.env, this.options.lookup),
        source: this.conversation?.source || settings.source,
        trace: settings.trace,
        clientVersion: this.options.clientVersion,
        initializeTimeoutMs: this.options.initializeTimeoutMs,
        handlers: {
          confirm: (p) => this.confirm(p),
          showMessage: (p) => ui.showMessage(p),
          configChanged: (p) => this.onConfigChanged(client, p),
          stderr: (text) => ui.log(text),
          trace: (line) => ui.log(line + "\n"),
          exit: (info) => this.onExit(client, info),
        },
      });
      if (this.disposed) {
        // The extension went away while the server started: it must not linger.
        await client.shutdown();
        throw new UserError("AIQ is shutting down.");
      }
      this.client = client;
      this.session = undefined;
      this.setServer("running");
      return client;
    } catch (err) {
      this.setServer("stopped");
      throw err;
    }
  }

  private onExit(client: AiqClient | undefined, info: ExitInfo): void {
    if (info.phase !== "running" || this.disposed || (client && this.client !== client)) {
      return; // a failed start (reported by start) or a stop we asked for
    }
    this.client = undefined;
    this.session = undefined;
    this.model = undefined; // a new server starts on config.yaml's model
    this.setServer("stopped");
    const restartNow = this.policy.recordCrash();
    const what = restartNow
      ? " AIQ restarted it."
      : ` It stopped ${this.policy.maxRestarts + 1} times within ${this.policy.windowMs / 60_000} minutes; AIQ restarts it on your next command.`;
    const unanswered = this.dialogs.size > 0 ? " The statement waiting for your answer did not run." : "";
    this.closeDialogs(); // the turn's error, below, says why
    const message = crashMessage(info) + what + unanswered;
    this.crashSaid = true;
    if (this.turn) {
      // The turn's error says it, once: not a notice, a popup and an error.
      this.crashDuringTurn = message;
    } else {
      this.post({ type: "notice", level: "error", message });
      if (this.policy.isFirstInWindow() || !restartNow) {
        this.options.ui.crashed(message);
      }
    }
    if (restartNow) {
      void this.restartAfterCrash();
    }
  }

  private async restartAfterCrash(): Promise<void> {
    try {
      const client = await this.connection(true);
      await this.sessionId(client);
      await this.refreshModel(); // a new server starts on config.yaml's model
    } catch {
      // Said in the view; the next command tries again and shows why.
    }
  }

  /** The conversation's session on this connection: new at first use, reloaded after a restart. */
  private sessionId(client: AiqClient): Promise<string> {
    if (this.session) {
      return Promise.resolve(this.session.id);
    }
    this.opening ??= this.openSession(client).finally(() => {
      this.opening = undefined;
      this.settleRestore();
    });
    return this.opening;
  }

  /** No last conversation is coming (any more): the view draws what it has. */
  private settleRestore(): void {
    if (this.restorePending) {
      this.restorePending = false;
      this.publishState();
    }
  }

  /**
   * The first session of this window: the conversation last held on the
   * source (session/list's `latest`) replaces the new, empty one, and the
   * panel shows it; its id. Undefined when there is none or it cannot be loaded (said
   * in the panel), and the new session stays.
   */
  private async restoreLatest(client: AiqClient, fresh: string, source: string): Promise<string | undefined> {
    let file: string | undefined;
    try {
      file = (await client.list(source)).find((s) => s.latest && !s.error && s.turns > 0 && s.source === source)?.path;
      if (!file) {
        return undefined;
      }
      const r = await client.load(file);
      this.session = { id: r.sessionId, source: r.source };
      this.conversation = { savedPath: r.path, source: r.source };
      await client.closeSession(fresh).catch(() => undefined);
      const history = await this.historyMessage(client, r.sessionId);
      this.restorePending = false;
      this.post(history);
      this.publishState();
      return r.sessionId;
    } catch (err) {
      if (file) {
        this.post({ type: "notice", level: "warning", message: `The last conversation could not be reopened from ${file}: ${messageOf(err)}` });
      }
      return undefined;
    }
  }

  private async openSession(client: AiqClient): Promise<string> {
    const previous = this.conversation;
    if (previous?.savedPath) {
      try {
        const r = await client.load(previous.savedPath);
        this.session = { id: r.sessionId, source: r.source };
        if (!this.crashSaid) {
          this.post({ type: "notice", level: "info", message: `aiq-rpc restarted; the conversation was reloaded from ${r.path}.` });
        }
        this.crashSaid = false;
        this.publishState();
        return r.sessionId;
      } catch (err) {
        this.post({ type: "notice", level: "warning", message: `The conversation could not be reloaded from ${previous.savedPath}: ${messageOf(err)}` });
      }
    }
    const r = await client.newSession(previous?.source || this.options.settings().source);
    this.conversation = { source: r.source };
    this.crashSaid = false;
    // this.session stays unset while the last conversation is reopened, so that a caller meanwhile
    // (a result tab VS Code restores with the window) waits for it rather than reading the new, empty one.
    const restored = !previous && this.options.settings().restoreLastSession ? await this.restoreLatest(client, r.sessionId, r.source) : undefined;
    if (restored) {
      return restored;
    }
    this.session = { id: r.sessionId, source: r.source };
    if (previous) {
      this.post({
        type: "notice",
        level: "warning",
        message: "aiq-rpc restarted with a new conversation: the previous one was never saved, so AIQ does not remember it.",
      });
    }
    this.publishState();
    return r.sessionId;
  }
}

/**
 * A statement as the user saw it: one whose rows were sent before
 * (rowsSent, docs/protocol.md "Rows sent once") takes those of the one
 * shown so far.
 */
export function withRows(st: Statement, seen: Statement | undefined): Statement {
  if (!st.rowsSent) {
    return st;
  }
  const { rowsSent: _sent, ...rest } = st;
  return { ...rest, rows: seen?.rows ?? [] };
}

/** Whether err is result/export's answer to a statement the user declined (-32040, data.status "rejected"). */
function exportDeclined(err: unknown): boolean {
  return err instanceof ResponseError && err.code === EXPORT_FAILED && (err.data as { status?: unknown } | undefined)?.status === "rejected";
}

/** result/export's code for a statement that did not finish. */
const EXPORT_FAILED = -32040;
