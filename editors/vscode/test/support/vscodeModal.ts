// How VS Code 1.100 turns the items of a modal showWarningMessage into a
// dialog (MainThreadMessageService and the workbench's Dialog): every item
// that is not a close affordance becomes a button in order, the first of
// them primary and focused when the dialog opens, so Enter presses it; the
// first close affordance, or an added "Cancel", is the cancel button, which
// Escape and the close box press, and the extension then gets that item (or
// undefined for the added one). The code-server suite checks this against a
// real VS Code; here it lets the unit tests say what each key gives.

import type { ModalItem } from "../../src/confirm";

export interface ModalKeys {
  /** The buttons left to right (the cancel button last, as VS Code lays it out on Linux). */
  buttons: string[];
  /** What the extension gets for Enter. */
  enter: ModalItem | undefined;
  /** What the extension gets for Escape. */
  escape: ModalItem | undefined;
}

export function modalKeys(items: ModalItem[]): ModalKeys {
  const buttons = items.filter((i) => !i.isCloseAffordance);
  const cancel = items.find((i) => i.isCloseAffordance);
  const labels = [...buttons.map((b) => b.title), cancel ? cancel.title : buttons.length ? "Cancel" : "OK"];
  // With no other button the cancel button is the only one, and focused.
  return { buttons: labels, enter: buttons.length ? buttons[0] : cancel, escape: cancel };
}
