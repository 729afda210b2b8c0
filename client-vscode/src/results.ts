// Result notifications: a new result replaces the previous one, so figures never stack.
//
// VS Code cannot close a notification shown with showInformationMessage; a notification shown
// with withProgress closes when its task ends. Each result is shown that way, complete (a full
// bar), and its task ends when the next result arrives or after a while.

import * as vscode from 'vscode';

/** How long a result stays without a newer one (as long as VS Code keeps an info toast). */
export const RESULT_SHOWN_MS = 20_000;

export class ResultToasts implements vscode.Disposable {
  private closeShown: (() => void) | undefined;
  /** Every result shown, oldest first. */
  readonly shown: string[] = [];
  /** How many result notifications are open now (at most one). */
  open = 0;

  constructor(private readonly shownMs = RESULT_SHOWN_MS) {}

  /** Shows `text`, closing the result shown before. */
  show(text: string): void {
    this.closeShown?.();
    this.shown.push(text);
    let close: () => void = () => undefined;
    const closed = new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, this.shownMs);
      close = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    this.closeShown = close;
    this.open += 1;
    void vscode.window
      .withProgress({ location: vscode.ProgressLocation.Notification, title: text, cancellable: false }, async (progress) => {
        progress.report({ increment: 100 }); // a result, not work in progress
        await closed;
      })
      .then(() => {
        this.open -= 1;
      });
  }

  dispose(): void {
    this.closeShown?.();
  }
}
