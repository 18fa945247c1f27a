// Run SQL where it is written: in a SQL file (and in the untitled editor
// "Edit and run" opens) a CodeLens "Run with AIQ" above each statement, and
// the command aiq.runSql (Ctrl+Enter, Cmd+Enter on macOS) for the statement
// under the cursor or the selection, in any file. It runs through
// chat/runSql on the panel's data source, without the model: a write asks
// in the panel as every write does.

import * as vscode from "vscode";
import { isSqlLanguage, looksLikeSql, splitStatements, SQL_LANGUAGES, statementAt } from "./sqlStatements";

/** The command of the lens, the key and the editor's context menu. */
export const RUN_SQL_COMMAND = "aiq.runSql";

/** The setting that turns the lens off in SQL files. */
export const LENS_SETTING = "aiq.runCodeLens";

/** Set while the selection of the active editor reads as SQL: Ctrl+Enter then runs it in any file. */
const SQL_SELECTED = "aiq.sqlSelected";

/** What a run is: the SQL, and the document it came from (a result tab per document). */
export interface RunRequest {
  sql: string;
  uri: vscode.Uri;
}

export class RunLens implements vscode.CodeLensProvider {
  /** The documents AIQ opened for editing, which get the lens whatever their language. */
  private readonly docs = new Set<string>();
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeCodeLenses = this.changed.event;

  constructor(
    private readonly run: (req: RunRequest) => Promise<void>,
    private readonly enabled: () => boolean,
  ) {}

  register(context: vscode.ExtensionContext): void {
    context.subscriptions.push(
      vscode.languages.registerCodeLensProvider(SQL_LANGUAGES.map((language) => ({ language })), this),
      vscode.workspace.onDidCloseTextDocument((doc) => this.docs.delete(doc.uri.toString())),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration(LENS_SETTING)) this.changed.fire();
      }),
      vscode.window.onDidChangeTextEditorSelection((e) => this.selectionChanged(e.textEditor)),
      vscode.window.onDidChangeActiveTextEditor((editor) => this.selectionChanged(editor)),
      this.changed,
    );
  }

  /** Opens sql in a new untitled SQL editor with the lens. */
  async edit(sql: string): Promise<void> {
    const doc = await vscode.workspace.openTextDocument({ language: "sql", content: sql });
    this.docs.add(doc.uri.toString());
    this.changed.fire();
    await vscode.window.showTextDocument(doc, { preview: false });
  }

  provideCodeLenses(doc: vscode.TextDocument): vscode.CodeLens[] {
    const ours = this.docs.has(doc.uri.toString());
    if (!ours && !(this.enabled() && isSqlLanguage(doc.languageId))) {
      return [];
    }
    return splitStatements(doc.getText()).map((s) => {
      const at = doc.positionAt(s.start);
      return new vscode.CodeLens(new vscode.Range(at, at), {
        title: "Run with AIQ",
        tooltip: "Run this statement on AIQ's data source (the status bar names it), without the model; a write asks first",
        command: RUN_SQL_COMMAND,
        arguments: [doc.uri, s.start],
      });
    });
  }

  /**
   * The command: from the lens, the statement at offset in uri; from the
   * key or the palette, the active editor's selection, else the statement
   * under its cursor.
   */
  async runCommand(uri?: unknown, offset?: unknown): Promise<void> {
    const editor = uri instanceof vscode.Uri
      ? vscode.window.visibleTextEditors.find((e) => e.document.uri.toString() === uri.toString())
      : vscode.window.activeTextEditor;
    const doc = editor?.document ?? (uri instanceof vscode.Uri ? await vscode.workspace.openTextDocument(uri) : undefined);
    if (!doc) {
      void vscode.window.showInformationMessage("Open a SQL file, or select SQL in an editor, then run it with AIQ (Ctrl+Enter).");
      return;
    }
    let sql: string | undefined;
    if (typeof offset === "number") {
      sql = statementAt(doc.getText(), offset)?.text;
    } else if (editor && !editor.selection.isEmpty) {
      sql = doc.getText(editor.selection);
    } else if (editor) {
      sql = statementAt(doc.getText(), doc.offsetAt(editor.selection.active))?.text;
    }
    if (!sql?.trim()) {
      void vscode.window.showInformationMessage("There is no SQL statement here to run.");
      return;
    }
    await this.run({ sql, uri: doc.uri });
  }

  /** The context key's value as last set: a cursor that moves must not call setContext each time. */
  private sqlSelected = false;

  private selectionChanged(editor: vscode.TextEditor | undefined): void {
    const sel = editor && !editor.selection.isEmpty ? editor.document.getText(editor.selection) : "";
    const now = sel !== "" && looksLikeSql(sel);
    if (now !== this.sqlSelected) {
      this.sqlSelected = now;
      void vscode.commands.executeCommand("setContext", SQL_SELECTED, now);
    }
  }
}
