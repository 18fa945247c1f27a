// Edit and run: a statement of the conversation opens in an untitled SQL
// editor, whose CodeLens "Run with AIQ" runs what it holds (or its
// selection) through chat/runSql, without the model.

import * as vscode from "vscode";

/** The command of the CodeLens; not in the Command Palette. */
export const RUN_LENS_COMMAND = "aiq.runSqlLens";

export class RunLens implements vscode.CodeLensProvider {
  /** The documents AIQ opened for editing, which get the lens. */
  private readonly docs = new Set<string>();
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeCodeLenses = this.changed.event;

  constructor(private readonly run: (sql: string) => Promise<void>) {}

  register(context: vscode.ExtensionContext): void {
    context.subscriptions.push(
      vscode.languages.registerCodeLensProvider({ language: "sql" }, this),
      vscode.commands.registerCommand(RUN_LENS_COMMAND, (uri?: vscode.Uri) => this.runDocument(uri)),
      vscode.workspace.onDidCloseTextDocument((doc) => this.docs.delete(doc.uri.toString())),
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
    if (!this.docs.has(doc.uri.toString())) {
      return [];
    }
    return [
      new vscode.CodeLens(new vscode.Range(0, 0, 0, 0), {
        title: "Run with AIQ",
        tooltip: "Run this statement (or the selected text) without the model; a write asks first",
        command: RUN_LENS_COMMAND,
        arguments: [doc.uri],
      }),
    ];
  }

  private async runDocument(uri?: vscode.Uri): Promise<void> {
    const editor = vscode.window.visibleTextEditors.find((e) => e.document.uri.toString() === uri?.toString()) ?? vscode.window.activeTextEditor;
    if (!editor) {
      return;
    }
    const sql = editor.selection.isEmpty ? editor.document.getText() : editor.document.getText(editor.selection);
    await this.run(sql);
  }
}
