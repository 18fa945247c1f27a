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
  /** The tab's Run again: the tab's statement, to run and show in the tab. */
  runSql(sql: string, tab: ResultTab): void;
}

/** An open result tab, which shows another result of its statement (Run again) or another statement (the next run from its file). */
export interface ResultTab {
  readonly panel: vscode.WebviewPanel;
  /** Shows statement; reveal false leaves a tab in the background where it is (a restored tab's rows). */
  show(statement: Statement, reveal?: boolean): void;
}

/** Where a tab opens: over the active editor (the panel's Open), or beside it without the focus (a run from a file). */
export interface ResultTabPlace {
  column: vscode.ViewColumn;
  preserveFocus: boolean;
}

/** The first line of a statement, shortened, as the tab's title. */
export function resultTitle(sql: string): string {
  const line = sql.split("\n").map((l) => l.trim()).find((l) => l !== "") ?? "Result";
  return line.length > 40 ? `${line.slice(0, 39)}…` : line;
}

/** The webview panels' type: VS Code restores them after a reload through the serializer of this type. */
export const RESULT_VIEW_TYPE = "aiq.result";

export function openResultPanel(
  extensionUri: vscode.Uri,
  first: Statement,
  actions: ResultActions,
  place: ResultTabPlace = { column: vscode.ViewColumn.Active, preserveFocus: false },
): ResultTab {
  const panel = vscode.window.createWebviewPanel(
    RESULT_VIEW_TYPE,
    resultTitle(first.sql),
    { viewColumn: place.column, preserveFocus: place.preserveFocus },
    resultPanelOptions(extensionUri),
  );
  return adoptResultPanel(extensionUri, panel, first, actions);
}

function resultPanelOptions(extensionUri: vscode.Uri): vscode.WebviewOptions {
  return { enableScripts: true, localResourceRoots: [vscode.Uri.joinPath(extensionUri, "media")] };
}

/** Draws statement in panel, a new one or one VS Code restored after a reload, and answers its buttons. */
export function adoptResultPanel(extensionUri: vscode.Uri, panel: vscode.WebviewPanel, first: Statement, actions: ResultActions): ResultTab {
  let statement = first;
  const media = vscode.Uri.joinPath(extensionUri, "media");
  panel.webview.options = resultPanelOptions(extensionUri);
  panel.title = resultTitle(statement.sql);
  let ready = false;
  let closed = false;
  panel.onDidDispose(() => (closed = true));
  const tab: ResultTab = {
    panel,
    show(next: Statement, reveal = true) {
      if (closed) {
        return; // closed while its statement ran: the panel shows the result
      }
      statement = next;
      panel.title = resultTitle(next.sql);
      if (ready) void panel.webview.postMessage({ type: "result", statement });
      if (reveal && !panel.visible) panel.reveal(undefined, true);
    },
  };
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
        ready = true;
        void panel.webview.postMessage({ type: "result", statement });
        return;
      case "copy":
        if (typeof m.text === "string") actions.copy(m.text);
        return;
      case "export":
        actions.export(statement);
        return;
      case "runSql":
        actions.runSql(statement.sql, tab); // the tab's own statement, whatever the script says
        return;
    }
  });
  return tab;
}
