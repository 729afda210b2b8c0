// PerfPilot for VS Code: starts the Python language server and adds commands, a status bar item,
// report documents and API-key storage around it.
import * as vscode from 'vscode';
import {
  clientCommandId,
  positionArgument,
  POSITION_COMMANDS,
  PositionCommand,
  reportTitle,
  resultMessage,
  SERVER_COMMANDS,
} from './commands';
import { PROPOSAL_SCHEME } from './confirm';
import { installServer } from './install';
import { onPythonEnvironmentChange } from './interpreter';
import { statusBarText } from './jobs';
import { venvPython } from './launch';
import { REPORT_SCHEME, reportSource, ReportProvider } from './report';
import { ResultToasts } from './results';
import { secretKey, secretMessageFor } from './secrets';
import { ServerController, SET_SECRET } from './server';
import { backendSummary, changeEffect, Role } from './settings';

/** What the extension exports (used by its tests). */
export interface PerfPilotApi {
  controller: ServerController;
  reports: ReportProvider;
  statusBar: vscode.StatusBarItem;
  /** The result notifications (one open at a time). */
  results: ResultToasts;
  /** Where the PerfPilot log channel writes its file. */
  logUri: vscode.Uri;
}

// The controller of the active extension, for deactivate().
let running: ServerController | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<PerfPilotApi> {
  const log = vscode.window.createOutputChannel('PerfPilot', { log: true });
  const controller = new ServerController(context, log);
  running = controller;
  const reports = new ReportProvider();
  const statusBar = vscode.window.createStatusBarItem('perfpilot.status', vscode.StatusBarAlignment.Right, 100);
  statusBar.name = 'PerfPilot';
  statusBar.command = clientCommandId('statusMenu');
  context.subscriptions.push(log, controller, reports, statusBar);
  context.subscriptions.push(vscode.workspace.registerTextDocumentContentProvider(REPORT_SCHEME, reports));
  context.subscriptions.push(vscode.workspace.registerTextDocumentContentProvider(PROPOSAL_SCHEME, controller.confirmations));

  const refreshStatus = (): void => {
    const { text, tooltip } = statusBarText(
      backendSummary(controller.settingsFor(undefined)),
      controller.jobs.runningJobs(),
      controller.state,
    );
    statusBar.text = text;
    statusBar.tooltip = tooltip;
    statusBar.show();
  };
  context.subscriptions.push(controller.onDidChangeState(refreshStatus), controller.onJobStatus(refreshStatus));
  // One result notification at a time: a new result (a Re-run's) replaces the previous one.
  const results = new ResultToasts();
  context.subscriptions.push(results, controller.onResult((r) => results.show(r.message)));
  refreshStatus();

  const markdownOf = (result: unknown): string | undefined => {
    const markdown = (result as { markdown?: unknown } | null)?.markdown;
    return typeof markdown === 'string' ? markdown : undefined;
  };
  controller.onCommandResult = (command, result, argument) => {
    const source = reportSource(argument);
    // Reports and profiles (the hot functions by share) open in the read-only report view.
    const viewed: string[] = [SERVER_COMMANDS.showReport, SERVER_COMMANDS.profile, SERVER_COMMANDS.showProfile];
    if (viewed.includes(command)) {
      const markdown = markdownOf(result);
      if (markdown !== undefined) {
        void reports.show(reportTitle(markdown, 'PerfPilot report'), markdown,
          command === SERVER_COMMANDS.showReport ? source : undefined);
      }
      return;
    }
    if (command === SERVER_COMMANDS.revert && (result as { applied?: unknown } | null)?.applied === true && source) {
      // An open report of the reverted function would still describe the rewrite.
      void reports.refreshDocument(source.uri, async (s) => markdownOf(await controller.query(SERVER_COMMANDS.showReport, s)));
    }
    const shown = resultMessage(command, result);
    if (shown) {
      const show = { info: vscode.window.showInformationMessage, warning: vscode.window.showWarningMessage, error: vscode.window.showErrorMessage }[shown.level];
      void show(shown.text);
    }
  };

  const install = async (): Promise<void> => {
    const ok = await installServer(context.extensionPath, controller.privateVenv, venvPython(controller.privateVenv), log);
    if (ok) {
      await controller.restart();
    }
  };
  controller.onStartProblem = ({ check }) => {
    if (check.ok) {
      return;
    }
    void vscode.window
      .showErrorMessage(check.message, 'Install PerfPilot server', 'Select interpreter', 'Show log')
      .then(async (choice) => {
        if (choice === 'Install PerfPilot server') {
          await install();
        } else if (choice === 'Select interpreter') {
          await vscode.commands.executeCommand('workbench.action.openSettings', 'perfpilot.interpreter');
        } else if (choice === 'Show log') {
          log.show(true);
        }
      });
  };

  const editorLocation = (uri?: vscode.Uri, position?: vscode.Position) => {
    const editor = vscode.window.activeTextEditor;
    const doc = uri ? vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString()) ?? editor?.document : editor?.document;
    if (!doc) {
      return undefined;
    }
    const pos = position ?? (editor && editor.document === doc ? editor.selection.active : new vscode.Position(0, 0));
    return { uri: doc.uri.toString(), languageId: doc.languageId, version: doc.version, line: pos.line, character: pos.character };
  };

  const runServerCommand = async (command: string, argument: object): Promise<unknown> => {
    try {
      return await controller.executeCommand(command, argument);
    } catch (err) {
      const text = err instanceof Error ? err.message : String(err);
      log.error(`${command}: ${text}`);
      void vscode.window.showErrorMessage(`PerfPilot: ${text}`, 'Show log').then((c) => c && log.show(true));
      return undefined;
    }
  };

  const positionCommand = (name: PositionCommand) => async (uri?: unknown, position?: unknown): Promise<unknown> => {
    const arg = positionArgument(
      name,
      editorLocation(uri instanceof vscode.Uri ? uri : undefined, position instanceof vscode.Position ? position : undefined),
    );
    if (typeof arg === 'string') {
      void vscode.window.showWarningMessage(arg);
      return undefined;
    }
    return runServerCommand(SERVER_COMMANDS[name], arg);
  };

  const cancel = async (): Promise<unknown> => {
    const where = editorLocation();
    const job = controller.jobs.jobFor(where?.uri);
    if (job) {
      return runServerCommand(SERVER_COMMANDS.cancel, { jobId: job.jobId });
    }
    if (where) {
      return runServerCommand(SERVER_COMMANDS.cancel, { uri: where.uri, line: where.line, character: where.character });
    }
    void vscode.window.showInformationMessage('PerfPilot: no running job to cancel.');
    return undefined;
  };

  const testConnection = async (role?: unknown): Promise<unknown> => {
    let roles: Role[];
    if (role === 'planner' || role === 'optimizer') {
      roles = [role];
    } else {
      const picked = await vscode.window.showQuickPick(
        [
          { label: 'Both', roles: ['planner', 'optimizer'] as Role[] },
          { label: 'Planner', roles: ['planner'] as Role[] },
          { label: 'Optimizer', roles: ['optimizer'] as Role[] },
        ],
        { title: 'PerfPilot: test the connection of' },
      );
      if (!picked) {
        return undefined;
      }
      roles = picked.roles;
    }
    const results: unknown[] = [];
    for (const r of roles) {
      results.push(await runServerCommand(SERVER_COMMANDS.testConnection, { role: r }));
    }
    return results.length === 1 ? results[0] : results;
  };

  const setApiKey = async (): Promise<void> => {
    const picked = await vscode.window.showQuickPick(
      [
        { label: 'Both roles', description: 'one key for the planner and the optimizer', role: undefined as Role | undefined },
        { label: 'Planner only', role: 'planner' as Role },
        { label: 'Optimizer only', role: 'optimizer' as Role },
      ],
      { title: 'PerfPilot: which endpoint is the API key for?' },
    );
    if (!picked) {
      return;
    }
    const value = await vscode.window.showInputBox({
      title: `PerfPilot API key (${picked.label.toLowerCase()})`,
      prompt: 'Stored in VS Code secret storage and sent only to the PerfPilot server. Leave empty to remove the key.',
      password: true,
      ignoreFocusOut: true,
    });
    if (value === undefined) {
      return;
    }
    if (value) {
      await context.secrets.store(secretKey(picked.role), value);
      void vscode.window.showInformationMessage('PerfPilot: API key stored.');
    } else {
      await context.secrets.delete(secretKey(picked.role));
      void vscode.window.showInformationMessage('PerfPilot: API key removed.');
    }
  };

  const statusMenu = async (): Promise<void> => {
    const running = controller.jobs.runningJobs();
    const items: (vscode.QuickPickItem & { run: () => unknown })[] = [
      ...running.map((j) => ({ label: `$(close) Cancel ${j.function}`, description: j.stage, run: () => runServerCommand(SERVER_COMMANDS.cancel, { jobId: j.jobId }) })),
      { label: '$(output) Show log', run: () => log.show(true) },
      { label: '$(plug) Test connection', run: () => testConnection() },
      { label: '$(key) Set API key', run: () => setApiKey() },
      { label: '$(settings-gear) Open settings', run: () => vscode.commands.executeCommand('workbench.action.openSettings', '@ext:perfpilot.perfpilot') },
      { label: '$(debug-restart) Restart server', run: () => controller.restart() },
    ];
    if (controller.state === 'error') {
      items.unshift({ label: '$(cloud-download) Install PerfPilot server', run: () => install() });
    }
    const picked = await vscode.window.showQuickPick(items, { title: 'PerfPilot' });
    await picked?.run();
  };

  const register = (name: string, fn: (...args: unknown[]) => unknown): void => {
    context.subscriptions.push(vscode.commands.registerCommand(clientCommandId(name), fn));
  };
  for (const name of POSITION_COMMANDS) {
    register(name, positionCommand(name));
  }
  register('cancel', cancel);
  register('profile', () => runServerCommand(SERVER_COMMANDS.profile, {}));
  register('testConnection', testConnection);
  register('setApiKey', setApiKey);
  register('restartServer', () => controller.restart());
  register('installServer', install);
  register('showLog', () => log.show(true));
  register('statusMenu', statusMenu);

  context.subscriptions.push(
    vscode.workspace.onDidChangeConfiguration((event) => {
      const effect = changeEffect((section) => event.affectsConfiguration(section));
      if (effect === 'restart') {
        void controller.restart();
      } else if (effect === 'push') {
        void controller.pushSettings();
        refreshStatus();
      }
    }),
    context.secrets.onDidChange(async (event) => {
      const message = await secretMessageFor(context.secrets, event.key);
      const client = controller.languageClient;
      if (message && client?.isRunning()) {
        await client.sendNotification(SET_SECRET, message);
      }
    }),
  );
  const pythonChange = await onPythonEnvironmentChange(() => {
    if (!vscode.workspace.getConfiguration('perfpilot').get<string[]>('interpreter')?.length) {
      void controller.restart();
    }
  });
  if (pythonChange) {
    context.subscriptions.push(pythonChange);
  }

  void controller.start();
  return { controller, reports, statusBar, results, logUri: context.logUri };
}

export async function deactivate(): Promise<void> {
  // VS Code waits for this promise, not for disposables: stop the server cleanly here.
  await running?.stop();
}
