// A result in an editor tab: a webview panel with the whole kept result of
// one statement (media/result.js), full width, under the same CSP as the
// chat panel.

import { randomBytes } from "node:crypto";
import * as vscode from "vscode";
import { chatHtml } from "./chatHtml";
import type { Statement } from "./messages";

export interface ResultActions {
  copy(text: string): void;
  export(statement: Statement): void;
  runSql(sql: string): void;
}

/** The first line of a statement, shortened, as the tab's title. */
export function resultTitle(sql: string): string {
  const line = sql.split("\n").map((l) => l.trim()).find((l) => l !== "") ?? "Result";
  return line.length > 40 ? `${line.slice(0, 39)}…` : line;
}

export function openResultPanel(extensionUri: vscode.Uri, statement: Statement, actions: ResultActions): vscode.WebviewPanel {
  const media = vscode.Uri.joinPath(extensionUri, "media");
  const panel = vscode.window.createWebviewPanel("aiq.result", resultTitle(statement.sql), vscode.ViewColumn.Active, {
    enableScripts: true,
    localResourceRoots: [media],
  });
  const uri = (name: string) => panel.webview.asWebviewUri(vscode.Uri.joinPath(media, name)).toString();
  panel.webview.html = chatHtml({
    cspSource: panel.webview.cspSource,
    nonce: randomBytes(16).toString("base64url"),
    scriptUris: [uri("result.js")],
    styleUri: uri("result.css"),
  });
  panel.webview.onDidReceiveMessage((data: unknown) => {
    if (typeof data !== "object" || data === null) {
      return;
    }
    const m = data as { [key: string]: unknown };
    switch (m.type) {
      case "ready":
        void panel.webview.postMessage({ type: "result", statement });
        return;
      case "copy":
        if (typeof m.text === "string") actions.copy(m.text);
        return;
      case "export":
        actions.export(statement);
        return;
      case "runSql":
        actions.runSql(statement.sql); // the tab's own statement, whatever the script says
        return;
    }
  });
  return panel;
}
