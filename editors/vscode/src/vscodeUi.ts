// The controller's Ui in VS Code terms: popups, the chat panel (where the
// write dialog opens; a modal when no turn runs), the output channel and the
// status bar item.

import * as vscode from "vscode";
import type { ChatViewProvider } from "./chatView";
import { confirmModal, modalDecision } from "./confirm";
import type { ControllerUi } from "./controller";
import type { ConfirmPrompt } from "./messages";
import type { ConfirmDecision, ShowMessageParams } from "./protocol";
import { modelBarView, statusBarView, type ControllerState } from "./status";

const OPEN_SETTINGS = "Open Settings";
const SHOW_LOG = "Show Log";

export class VscodeUi implements ControllerUi {
  constructor(
    private readonly chat: ChatViewProvider,
    private readonly output: vscode.OutputChannel,
    private readonly statusItem: vscode.StatusBarItem,
    private readonly modelItem?: vscode.StatusBarItem,
  ) {}

  view(msg: Parameters<ControllerUi["view"]>[0]): void {
    this.chat.post(msg);
  }

  startFailed(message: string): void {
    this.output.appendLine(message);
    void vscode.window.showErrorMessage(message, OPEN_SETTINGS).then((choice) => {
      if (choice === OPEN_SETTINGS) {
        void vscode.commands.executeCommand("workbench.action.openSettings", "aiq.serverPath");
      }
    });
  }

  crashed(message: string): void {
    this.output.appendLine(message);
    void vscode.window.showErrorMessage(message, SHOW_LOG).then((choice) => {
      if (choice === SHOW_LOG) {
        this.output.show(true);
      }
    });
  }

  showMessage(p: ShowMessageParams): void {
    switch (p.type) {
      case 1:
        void vscode.window.showErrorMessage(p.message);
        return;
      case 2:
        void vscode.window.showWarningMessage(p.message);
        return;
      case 3:
        void vscode.window.showInformationMessage(p.message);
        return;
      default:
        this.output.appendLine(p.message);
    }
  }

  async confirmModal(prompt: ConfirmPrompt): Promise<ConfirmDecision> {
    const modal = confirmModal(prompt);
    const choice = await vscode.window.showWarningMessage(modal.message, { modal: true, detail: modal.detail }, ...modal.items);
    return modalDecision(prompt, choice);
  }

  confirmOpened(): void {
    // The dialog is in the panel: show it, with the focus, where Reject is focused.
    void this.chat.reveal(false);
  }

  state(state: ControllerState): void {
    const v = statusBarView(state);
    this.statusItem.text = v.text;
    this.statusItem.tooltip = v.tooltip;
    this.statusItem.command = v.command;
    this.statusItem.show();
    if (this.modelItem) {
      const m = modelBarView(state);
      this.modelItem.text = m.text;
      this.modelItem.tooltip = m.tooltip;
      this.modelItem.command = m.command;
      this.modelItem.show();
    }
  }

  log(text: string): void {
    this.output.append(text);
  }
}
