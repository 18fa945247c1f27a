// The chat panel: a webview view in AIQ's activity bar container. It posts
// the controller's messages once the view's script said it is ready, and
// replays the conversation on every "ready" (a hidden view's webview is
// destroyed; this replaces retainContextWhenHidden).

import { randomBytes } from "node:crypto";
import * as vscode from "vscode";
import { CHAT_SCRIPTS, chatHtml } from "./chatHtml";
import { parseFromView } from "./fromView";
import type { FromView, ToView } from "./messages";

export interface ChatViewActions {
  /** All messages to send a view that just became ready. */
  replay(): ToView[];
  /** The view is shown and ready (after its replay). */
  shown?(): void;
  handle(msg: Exclude<FromView, { type: "ready" }>): void;
}

export class ChatViewProvider implements vscode.WebviewViewProvider {
  static readonly viewType = "aiq.chat";
  private view?: vscode.WebviewView;
  private ready = false;
  private actions: ChatViewActions = { replay: () => [], handle: () => {} };

  constructor(private readonly extensionUri: vscode.Uri) {}

  /** Sets who answers the view (the controller exists after the view). */
  connect(actions: ChatViewActions): void {
    this.actions = actions;
  }

  resolveWebviewView(view: vscode.WebviewView): void {
    this.view = view;
    this.ready = false;
    const media = vscode.Uri.joinPath(this.extensionUri, "media");
    view.webview.options = { enableScripts: true, localResourceRoots: [media] };
    view.webview.html = this.html(view.webview, media);
    view.webview.onDidReceiveMessage((data) => this.receive(data));
    view.onDidDispose(() => {
      if (this.view === view) {
        this.view = undefined;
        this.ready = false;
      }
    });
  }

  /** Sends a message to a ready view; a view not ready yet gets it in its replay. */
  post(msg: ToView): void {
    if (this.view && this.ready) {
      void this.view.webview.postMessage(msg);
    }
  }

  /** Shows the panel, by default without taking the focus from the editor. */
  async reveal(preserveFocus = true): Promise<void> {
    if (this.view) {
      this.view.show(preserveFocus);
      return;
    }
    await vscode.commands.executeCommand(`${ChatViewProvider.viewType}.focus`);
  }

  private html(webview: vscode.Webview, media: vscode.Uri): string {
    const uri = (name: string) => webview.asWebviewUri(vscode.Uri.joinPath(media, name)).toString();
    return chatHtml({
      cspSource: webview.cspSource,
      nonce: randomBytes(16).toString("base64url"),
      scriptUris: CHAT_SCRIPTS.map(uri),
      styleUri: uri("chat.css"),
      locale: vscode.env.language,
    });
  }

  private receive(data: unknown): void {
    const msg = parseFromView(data);
    if (!msg) {
      return;
    }
    if (msg.type === "ready") {
      this.ready = true;
      for (const m of this.actions.replay()) {
        this.post(m);
      }
      this.actions.shown?.();
      return;
    }
    this.actions.handle(msg);
  }
}
