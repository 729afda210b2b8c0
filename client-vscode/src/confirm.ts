// Ask mode: the rewrite is shown as a diff (the document as it is against a read-only document
// with the rewrite) while a quick pick asks whether to apply it, quoting the job's measurement.
// A newer question about the same function (a Re-run's) replaces the older one.
import * as vscode from 'vscode';
import type { ConfirmRewriteParams, ConfirmRewriteResult } from './protocol';

export const PROPOSAL_SCHEME = 'perfpilot-proposal';

type Choice = ConfirmRewriteResult['choice'];

/** The proposal documents' provider and the open questions. */
export class RewriteConfirmations implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly texts = new Map<string, string>();
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;
  /** Closes the open question about a function (`uri#function`), answering ''. */
  private readonly open = new Map<string, () => void>();
  /** Every question asked, oldest first. */
  readonly asked: ConfirmRewriteParams[] = [];

  /** How many questions are open (at most one per function). */
  get openCount(): number {
    return this.open.size;
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.texts.get(uri.toString()) ?? '';
  }

  /** Shows the diff and the question; resolves with the user's answer. */
  async confirm(params: ConfirmRewriteParams, token?: vscode.CancellationToken): Promise<ConfirmRewriteResult> {
    const key = `${params.uri}#${params.function}`;
    this.open.get(key)?.();
    this.asked.push(params);
    const current = vscode.Uri.parse(params.uri);
    // The file's own path (its extension picks the language), told apart by the job.
    const proposal = current.with({ scheme: PROPOSAL_SCHEME, query: `job=${params.jobId}` });
    this.texts.set(proposal.toString(), params.proposed);
    this.changed.fire(proposal);
    try {
      await vscode.commands.executeCommand('vscode.diff', current, proposal, `${params.function}: now ↔ PerfPilot's rewrite`, {
        preview: true,
        preserveFocus: true,
      });
      return { choice: await this.ask(key, params, token) };
    } finally {
      await closeDiff(proposal);
      this.texts.delete(proposal.toString());
    }
  }

  private ask(key: string, params: ConfirmRewriteParams, token?: vscode.CancellationToken): Promise<Choice> {
    return new Promise((resolve) => {
      const pick = vscode.window.createQuickPick<vscode.QuickPickItem & { choice: Choice }>();
      pick.title = params.message;
      pick.placeholder = 'The diff shows the change. Apply puts it in the file.';
      pick.items = [
        // The title quotes the figure: the items stay short enough to read whole.
        { label: 'Apply', description: 'put the rewrite in the file', choice: 'Apply' },
        { label: 'Discard', description: 'keep the function as it is', choice: 'Discard' },
      ];
      // Stays open while the user reads the diff.
      pick.ignoreFocusOut = true;
      let choice: Choice = '';
      const close = (): void => pick.hide();
      const cancelled = token?.onCancellationRequested(close);
      pick.onDidAccept(() => {
        choice = pick.selectedItems[0]?.choice ?? '';
        pick.hide();
      });
      pick.onDidHide(() => {
        cancelled?.dispose();
        if (this.open.get(key) === close) {
          this.open.delete(key);
        }
        pick.dispose();
        resolve(choice);
      });
      this.open.set(key, close);
      pick.show();
    });
  }

  dispose(): void {
    for (const close of [...this.open.values()]) {
      close();
    }
    this.changed.dispose();
  }
}

/** Closes the diff editors that show a proposal. */
async function closeDiff(proposal: vscode.Uri): Promise<void> {
  const tabs = vscode.window.tabGroups.all
    .flatMap((g) => g.tabs)
    .filter((t) => t.input instanceof vscode.TabInputTextDiff && t.input.modified.toString() === proposal.toString());
  if (tabs.length > 0) {
    await vscode.window.tabGroups.close(tabs).then(undefined, () => undefined);
  }
}
