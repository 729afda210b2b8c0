// Read-only virtual documents for the server's reports (`perfpilot-report:` scheme).
import * as vscode from 'vscode';

export const REPORT_SCHEME = 'perfpilot-report';

/** A file name safe for a URI path, from a function or document name. */
export function reportName(title: string): string {
  const safe = title.replace(/[^A-Za-z0-9_.-]+/g, '_').replace(/^_+|_+$/g, '');
  return `${safe || 'report'}.md`;
}

/** The server command argument a report was made from: the function's document and position. */
export interface ReportSource {
  uri: string;
  line: number;
  character: number;
}

/** The report source in a command argument `{uri, line, character}`, if it is one. */
export function reportSource(argument: unknown): ReportSource | undefined {
  const a = (typeof argument === 'object' && argument !== null ? argument : {}) as Record<string, unknown>;
  if (typeof a.uri !== 'string' || typeof a.line !== 'number' || typeof a.character !== 'number') {
    return undefined;
  }
  return { uri: a.uri, line: a.line, character: a.character };
}

/** Holds report texts and serves them to VS Code; the documents cannot be edited or saved. */
export class ReportProvider implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly reports = new Map<string, string>();
  private readonly sources = new Map<string, { title: string; source: ReportSource }>();
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.reports.get(uri.toString()) ?? '_This report is no longer available. Run **PerfPilot: Show report** again._\n';
  }

  /** Stores a report and returns its URI (the same URI for the same title, refreshed). */
  put(title: string, markdown: string, source?: ReportSource): vscode.Uri {
    const uri = vscode.Uri.from({ scheme: REPORT_SCHEME, path: `/${reportName(title)}` });
    this.reports.set(uri.toString(), markdown);
    if (source) {
      this.sources.set(uri.toString(), { title, source });
    }
    this.changed.fire(uri);
    return uri;
  }

  /**
   * Asks again for every report made from a function of this document (after Revert, say) and
   * updates it under the same URI, so an open preview shows the new state.
   */
  async refreshDocument(documentUri: string, fetch: (source: ReportSource) => Promise<string | undefined>): Promise<number> {
    let refreshed = 0;
    for (const { title, source } of [...this.sources.values()]) {
      if (source.uri !== documentUri) {
        continue;
      }
      const markdown = await fetch(source);
      if (markdown !== undefined) {
        this.put(title, markdown, source);
        refreshed += 1;
      }
    }
    return refreshed;
  }

  /** Opens a report: rendered in the markdown preview when available, else as markdown text. */
  async show(title: string, markdown: string, source?: ReportSource): Promise<vscode.Uri> {
    const uri = this.put(title, markdown, source);
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
