// The entry point. activate only wires things together; aiq-rpc starts on
// the first command that needs it.

import * as vscode from "vscode";
import { ChatViewProvider } from "./chatView";
import { Commands } from "./commands";
import { Controller } from "./controller";
import { normalizeSettings, type Settings } from "./settings";
import { VscodeUi } from "./vscodeUi";

let controller: Controller | undefined;

function readSettings(): Settings {
  const c = vscode.workspace.getConfiguration("aiq");
  return normalizeSettings({
    serverPath: c.get("serverPath"),
    home: c.get("home"),
    source: c.get("source"),
    trace: c.get("trace.server"),
    restoreLastSession: c.get("restoreLastSession"),
    runCodeLens: c.get("runCodeLens"),
  });
}

export function activate(context: vscode.ExtensionContext): void {
  const output = vscode.window.createOutputChannel("AIQ");
  const statusItem = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Right, 100);
  const modelItem = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Right, 99);
  context.subscriptions.push(output, statusItem, modelItem);

  const chat = new ChatViewProvider(context.extensionUri);
  const ui = new VscodeUi(chat, output, statusItem, modelItem);
  const ctl = new Controller({
    settings: readSettings,
    ui,
    clientVersion: String(context.extension.packageJSON.version ?? "0.0.0"),
  });
  controller = ctl;
  const commands = new Commands(ctl, chat, (line) => output.appendLine(line), context.extensionUri, () => readSettings().runCodeLens);
  commands.register(context);
  chat.connect({ replay: () => ctl.replay(), handle: (msg) => commands.handleView(msg), shown: () => ctl.warmUp() });
  context.subscriptions.push(vscode.window.registerWebviewViewProvider(ChatViewProvider.viewType, chat));
  context.subscriptions.push(
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (["aiq.serverPath", "aiq.home", "aiq.trace.server"].some((s) => e.affectsConfiguration(s))) {
        output.appendLine(`AIQ's settings changed: aiq.serverPath is now ${JSON.stringify(readSettings().serverPath)}.`);
        void ctl.restartOnNextCommand();
      }
    }),
  );
  ui.state(ctl.state);
}

export async function deactivate(): Promise<void> {
  await controller?.dispose();
  controller = undefined;
}
