// Read-only virtual documents for the server's reports (`perfpilot-report:` scheme).
import * as vscode from 'vscode';

export const REPORT_SCHEME = 'perfpilot-report';

/** A file name safe for a URI path, from a function or document name. */
export function reportName(title: string): string {
  const safe = title.replace(/[^A-Za-z0-9_.-]+/g, '_').replace(/^_+|_+$/g, '');
  return `${safe || 'report'}.md`;
}

/** Holds report texts and serves them to VS Code; the documents cannot be edited or saved. */
export class ReportProvider implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly reports = new Map<string, string>();
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.reports.get(uri.toString()) ?? '_This report is no longer available. Run **PerfPilot: Show report** again._\n';
  }

  /** Stores a report and returns its URI (the same URI for the same title, refreshed). */
  put(title: string, markdown: string): vscode.Uri {
    const uri = vscode.Uri.from({ scheme: REPORT_SCHEME, path: `/${reportName(title)}` });
    this.reports.set(uri.toString(), markdown);
    this.changed.fire(uri);
    return uri;
  }

  /** Opens a report: rendered in the markdown preview when available, else as markdown text. */
  async show(title: string, markdown: string): Promise<vscode.Uri> {
    const uri = this.put(title, markdown);
    try {
      await vscode.commands.executeCommand('markdown.showPreview', uri);
    } catch {
      const doc = await vscode.workspace.openTextDocument(uri);
      await vscode.languages.setTextDocumentLanguage(doc, 'markdown');
      await vscode.window.showTextDocument(doc, { preview: true });
    }
    return uri;
  }

  dispose(): void {
    this.changed.dispose();
  }
}
