// The AIQ commands: each reads what it needs from the editor or the user,
// then calls the controller. Failures are shown once, as presentError says.

import * as os from "node:os";
import * as vscode from "vscode";
import type { ChatViewProvider } from "./chatView";
import { allowanceItems, clearChosen, clearPrompt } from "./confirm";
import type { Controller } from "./controller";
import { detailOf, presentError } from "./errors";
import type { FromView, Statement } from "./messages";
import { keptRef, type KeptStatement } from "./keptResult";
import { adoptResultPanel, openResultPanel, RESULT_VIEW_TYPE, type ResultActions, type ResultTab, type ResultTabPlace } from "./resultPanel";
import { RunLens, type RunRequest } from "./runLens";
import type { Selection } from "./protocol";
import { sessionItems } from "./sessionPick";
import { askSelectionBox } from "./turnRequest";
import { sourceItems } from "./sourcePick";

/** The active editor's selection as chat/turn's `selection`, if it holds text. */
export function editorSelection(editor: vscode.TextEditor | undefined): Selection | undefined {
  if (!editor || editor.selection.isEmpty) {
    return undefined;
  }
  const { start, end } = editor.selection;
  return {
    text: editor.document.getText(editor.selection),
    languageId: editor.document.languageId,
    uri: editor.document.uri.toString(),
    range: { start: { line: start.line, character: start.character }, end: { line: end.line, character: end.character } },
  };
}

/** Runs a command body and shows its failure, unless it was shown already; log gets the detail. */
export async function guarded(body: () => Promise<unknown>, log: (line: string) => void = () => {}): Promise<void> {
  try {
    await body();
  } catch (err) {
    const { level, message } = presentError(err);
    if (level !== "none") {
      log(detailOf(err));
    }
    if (level === "warning") {
      void vscode.window.showWarningMessage(message);
    } else if (level === "error") {
      void vscode.window.showErrorMessage(message);
    }
  }
}

export class Commands {
  constructor(
    private readonly controller: Controller,
    private readonly chat: ChatViewProvider,
    /** The AIQ output channel: the detail of each failure shown. */
    private readonly log: (line: string) => void = () => {},
    /** Where media/ is, for the result tabs. */
    private readonly extensionUri?: vscode.Uri,
    /** Whether SQL files get the "Run with AIQ" lens (aiq.runCodeLens). */
    lensEnabled: () => boolean = () => true,
  ) {
    this.runLens = new RunLens((req) => this.runFromEditor(req), lensEnabled);
  }

  /** Run with AIQ: its CodeLens, its command, and Edit and run's editors. */
  readonly runLens: RunLens;

  /** The result tab of each document run from, reused by its next run. */
  private readonly tabs = new Map<string, ResultTab>();

  register(context: vscode.ExtensionContext): void {
    const table: [string, (...args: unknown[]) => Promise<unknown>][] = [
      ["aiq.runSql", (uri, offset) => this.runLens.runCommand(uri, offset)],
      ["aiq.askSelection", () => this.askSelection()],
      ["aiq.ask", () => this.ask()],
      ["aiq.showHistory", () => this.showHistory()],
      ["aiq.clear", () => this.clear()],
      ["aiq.newChat", () => this.controller.newChat()],
      ["aiq.allowances", () => this.allowances()],
      ["aiq.save", () => this.save()],
      ["aiq.load", () => this.load()],
      ["aiq.cancel", () => this.cancel()],
      ["aiq.selectSource", () => this.selectSource()],
      ["aiq.selectModel", () => this.selectModel()],
    ];
    for (const [id, body] of table) {
      context.subscriptions.push(vscode.commands.registerCommand(id, (...args: unknown[]) => guarded(() => body(...args), this.log)));
    }
    this.runLens.register(context);
    // A result tab comes back after a window reload: its webview kept the SQL and the call that
    // ran it, and its rows come from the conversation (what the user saw, kept beside the session).
    context.subscriptions.push(
      vscode.window.registerWebviewPanelSerializer(RESULT_VIEW_TYPE, {
        deserializeWebviewPanel: async (panel, state) => {
          const ref = keptRef(state);
          if (!ref || !this.extensionUri) {
            panel.dispose();
            return;
          }
          const loading: KeptStatement = { sql: ref.sql, status: "success", callId: ref.callId, loading: true };
          const tab = adoptResultPanel(this.extensionUri, panel, loading, this.resultActions());
          const missing: KeptStatement = { sql: ref.sql, status: "success", callId: ref.callId, missing: true };
          const show = async () => tab.show((await this.controller.keptResult(ref)) ?? missing, false);
          try {
            await show();
          } catch (err) {
            // No server could start yet (as a window reloads, it can be asked before the settings are
            // read): the tab says so, and reads its rows once a server runs.
            this.log(`The rows of a result tab could not be read again (tried again once aiq-rpc runs): ${detailOf(err)}\n`);
            tab.show(missing, false);
            const again = () => show().catch((e: unknown) => this.log(`The rows of a result tab could not be read again: ${detailOf(e)}\n`));
            panel.onDidDispose(this.controller.onceRunning(() => void again()));
          }
        },
      }),
    );
  }

  async askSelection(): Promise<void> {
    const selection = editorSelection(vscode.window.activeTextEditor);
    if (!selection) {
      void vscode.window.showInformationMessage(
        "Select some text in an editor (a question or SQL) first, then run AIQ: Ask About Selection.",
      );
      return;
    }
    const box = askSelectionBox(selection);
    const query = await vscode.window.showInputBox({ ...box, ignoreFocusOut: true });
    if (query === undefined) {
      return; // dismissed
    }
    await this.askWith(query, selection);
  }

  async ask(): Promise<void> {
    const selection = editorSelection(vscode.window.activeTextEditor);
    const query = await vscode.window.showInputBox({
      title: "AIQ: Ask",
      prompt: selection ? "Your question; the selected text goes with it." : "Your question about the data.",
      placeHolder: "Which customers ordered most last week?",
      ignoreFocusOut: true,
    });
    if (query === undefined) {
      return; // dismissed
    }
    await this.askWith(query, selection);
  }

  /** What the panel asks for. */
  handleView(msg: Exclude<FromView, { type: "ready" }>): void {
    switch (msg.type) {
      case "ask": // the panel's input: a question on its own
        void guarded(() => this.askWith(msg.query, undefined), this.log);
        return;
      case "cancel":
        this.controller.cancel();
        return;
      case "confirmAnswer":
        this.controller.answerConfirm(msg.id, msg.decision);
        return;
      case "copy":
        void guarded(() => this.copy(msg.text), this.log);
        return;
      case "insert":
        void guarded(() => this.insert(msg.text), this.log);
        return;
      case "runSql":
        void guarded(() => this.runSql(msg.sql), this.log);
        return;
      case "openResult":
        this.openResult(msg.statement);
        return;
      case "editSql":
        void guarded(() => this.runLens.edit(msg.sql), this.log);
        return;
      case "exportResult":
        void guarded(() => this.exportResult(msg.statement), this.log);
        return;
    }
  }

  /** Opens a result in an editor tab of its own. */
  openResult(statement: Statement): void {
    if (!this.extensionUri) {
      return;
    }
    this.resultTab(statement);
  }

  /** A new result tab; its Run again runs in the panel and shows the new result in the tab. */
  private resultTab(statement: Statement, place?: ResultTabPlace): ResultTab | undefined {
    if (!this.extensionUri) {
      return undefined;
    }
    return openResultPanel(this.extensionUri, statement, this.resultActions(), place);
  }

  private resultActions(): ResultActions {
    return {
      copy: (text) => void guarded(() => this.copy(text), this.log),
      export: (st) => void guarded(() => this.exportResult(st), this.log),
      runSql: (sql, tab) => void guarded(() => this.runSql(sql, tab), this.log),
    };
  }

  /**
   * Run with AIQ from a file: in the panel, as every statement without the
   * model (a write asks there), then its rows in the document's result
   * tab, beside the file, which keeps the focus.
   */
  private async runFromEditor(req: RunRequest): Promise<void> {
    await guarded(async () => {
      const key = req.uri.toString();
      const shown = await this.runSql(req.sql, this.tabs.get(key));
      if (!shown || this.tabs.has(key)) {
        return;
      }
      const tab = this.resultTab(shown, { column: vscode.ViewColumn.Beside, preserveFocus: true });
      if (tab) {
        this.tabs.set(key, tab);
        tab.panel.onDidDispose(() => this.tabs.get(key) === tab && this.tabs.delete(key));
      }
    }, this.log);
  }

  /**
   * Writes every row of a result to a file: a format, then where (the
   * workspace folder first), then result/export with a progress
   * notification that can be cancelled. The save dialog asks before
   * replacing a file.
   */
  async exportResult(statement: Statement): Promise<void> {
    const formats = [
      { label: "CSV", format: "csv", ext: "csv" },
      { label: "JSON", format: "json", ext: "json" },
      { label: "Markdown", format: "markdown", ext: "md" },
    ] as const;
    const picked = await vscode.window.showQuickPick(formats.map((f) => ({ label: f.label, f })), {
      title: "AIQ: Export the result",
      placeHolder: "Every row, not only those shown: the statement runs again, read-only",
    });
    if (!picked) {
      return;
    }
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri ?? vscode.Uri.file(os.homedir());
    const target = await vscode.window.showSaveDialog({
      defaultUri: vscode.Uri.joinPath(folder, `result.${picked.f.ext}`),
      filters: { [picked.f.label]: [picked.f.ext] },
      title: "AIQ: Export the result",
    });
    if (!target) {
      return;
    }
    const done = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: "AIQ: exporting", cancellable: true },
      (progress, token) =>
        this.controller.exportResult(
          { ...(statement.callId ? { callId: statement.callId } : { sql: statement.sql }), format: picked.f.format, path: target.fsPath, overwrite: true },
          token,
          (rows) => progress.report({ message: `${rows.toLocaleString()} rows written` }),
        ),
    );
    if (done) {
      void vscode.window.showInformationMessage(`AIQ: exported ${done.rowCount.toLocaleString()} rows to ${done.path}.`);
    }
  }

  /**
   * Runs a statement without the model, in the panel; a result with rows
   * goes to tab when there is one. Resolves with that result, if any.
   */
  async runSql(sql: string, tab?: ResultTab): Promise<Statement | undefined> {
    await this.chat.reveal();
    let shown: Statement | undefined;
    await this.controller.runSql(sql, (st) => {
      if (st.status === "success" && st.columns?.length) shown = st;
    });
    if (shown && tab) {
      tab.show(shown);
    }
    return shown;
  }

  private async askWith(query: string | undefined, selection: Selection | undefined): Promise<void> {
    await this.chat.reveal();
    await this.controller.ask(query, selection);
  }

  async showHistory(): Promise<void> {
    await this.chat.reveal();
    await this.controller.showHistory();
  }

  async clear(): Promise<void> {
    const prompt = clearPrompt();
    const choice = await vscode.window.showWarningMessage(prompt.message, { modal: true, detail: prompt.detail }, ...prompt.items);
    if (clearChosen(choice)) {
      await this.controller.clear();
    }
  }

  /** Lists what "Allow always" covers in this conversation; picking one revokes it. */
  async allowances(): Promise<void> {
    const items = allowanceItems(await this.controller.allowances());
    if (items.length === 0) {
      void vscode.window.showInformationMessage('No "Allow always" is in force: every statement that writes asks first.');
      return;
    }
    const picked = await vscode.window.showQuickPick(items, {
      title: "AIQ: Allowances",
      placeHolder: 'What "Allow always" covers in this conversation: pick one to revoke it',
    });
    if (!picked) {
      return;
    }
    const left = await this.controller.revoke(picked.id);
    void vscode.window.showInformationMessage(
      `Revoked. ${left.length === 0 ? "Every statement that writes asks first." : `${left.length} allowance(s) left.`}`,
    );
  }

  async save(): Promise<void> {
    const r = await this.controller.save();
    const COPY = "Copy Command";
    const choice = await vscode.window.showInformationMessage(`AIQ saved the conversation to ${r.path}. ${r.hint}`, COPY);
    if (choice === COPY) {
      await vscode.env.clipboard.writeText(`aiq -s ${shellQuote(r.path)}`);
    }
  }

  async load(): Promise<void> {
    const picked = await vscode.window.showQuickPick(sessionItems(await this.controller.sessions()), {
      title: "AIQ: Load Session",
      placeHolder: "The saved conversations, newest first: type to filter by question, source or file",
      matchOnDescription: true,
      matchOnDetail: true,
    });
    if (!picked) {
      return;
    }
    const file = picked.path ?? (await this.browseSession());
    if (!file) {
      return;
    }
    await this.chat.reveal();
    const r = await this.controller.load(file);
    if (r.warnings?.length) {
      // One popup for all of them: a session with several problems must not stack dialogs.
      void vscode.window.showWarningMessage(`AIQ loaded the session with warnings: ${r.warnings.join(" ")}`);
    }
    if (!r.sourceAvailable) {
      const SELECT = "Select Data Source";
      const choice = await vscode.window.showWarningMessage(
        `This session used the data source "${r.source}", which is not configured here, so AIQ cannot run its SQL. Select a data source to go on.`,
        SELECT,
      );
      if (choice === SELECT) {
        await this.selectSource();
      }
    }
  }

  /** Picks the conversation's model among those the endpoint serves. */
  async selectModel(): Promise<void> {
    const list = await this.controller.models();
    if (list.warning) {
      void vscode.window.showWarningMessage(list.warning);
    }
    const items = list.models.map((m) => ({
      label: m,
      description: [m === list.current ? "current" : "", m === list.configured ? "config.yaml" : ""].filter(Boolean).join(", "),
    }));
    const pick = await vscode.window.showQuickPick(items, { title: "AIQ: Select Model", placeHolder: `Current: ${list.current}` });
    if (pick && pick.label !== list.current) {
      await this.controller.setModel(pick.label);
    }
  }

  /** A session file chosen in the open dialog, starting in the sessions folder. */
  private async browseSession(): Promise<string | undefined> {
    const folder = await this.controller.sessionsFolder();
    const picked = await vscode.window.showOpenDialog({
      title: "AIQ: Load Session",
      defaultUri: vscode.Uri.file(folder),
      canSelectMany: false,
      openLabel: "Load Session",
      filters: { "AIQ sessions": ["json"] },
    });
    return picked?.[0]?.fsPath;
  }

  async cancel(): Promise<void> {
    if (!this.controller.cancel()) {
      vscode.window.setStatusBarMessage("AIQ: no question is being answered.", 3000);
    }
  }

  async selectSource(): Promise<void> {
    const sources = await this.controller.sources();
    const picked = await vscode.window.showQuickPick(sourceItems(sources, this.controller.state.source), {
      title: "AIQ: Select Data Source",
      placeHolder: "The database AIQ's questions run on",
    });
    if (picked) {
      await this.controller.setSource(picked.name);
    }
  }

  /** Copies or inserts SQL that the panel offers. */
  async insert(text: string): Promise<void> {
    const editor = vscode.window.activeTextEditor ?? vscode.window.visibleTextEditors[0];
    if (!editor) {
      void vscode.window.showWarningMessage("Open an editor to insert the SQL into.");
      return;
    }
    await editor.edit((edit) => edit.replace(editor.selection, text));
  }

  async copy(text: string): Promise<void> {
    await vscode.env.clipboard.writeText(text);
    vscode.window.setStatusBarMessage("AIQ: copied.", 2000);
  }
}

/** A path as one shell word, for the `aiq -s` hint. */
export function shellQuote(p: string): string {
  return /^[\w@%+=:,./-]+$/.test(p) ? p : `'${p.replace(/'/g, `'\\''`)}'`;
}
