// Owns the language client: finds and checks the interpreter, starts, restarts and stops the
// server, pushes settings and secrets, and tells the user when something is wrong.
import * as fs from 'fs';
import * as vscode from 'vscode';
import {
  CancellationToken,
  CloseAction,
  CodeLensRequest,
  DidChangeConfigurationNotification,
  ErrorAction,
  ExecuteCommandRequest,
  LanguageClient,
  LanguageClientOptions,
  MessageType,
  NotificationType,
  RequestType,
  RevealOutputChannelOn,
  ServerOptions,
  ShowMessageNotification,
  ShowMessageParams,
  State,
} from 'vscode-languageclient/node';
import { SERVER_COMMANDS, withoutOpen } from './commands';
import { interpreterCandidates } from './interpreter';
import { JobStatus, JobTracker } from './jobs';
import { Interpreter, judgeProbe, serverCommand, ServerCheck, venvPython, versionProbeCommand } from './launch';
import { runProcess } from './processes';
import { RewriteConfirmations } from './confirm';
import { type ConfirmRewriteParams, type ConfirmRewriteResult, NOTIFICATIONS, REQUESTS, type ResultMessage, type SetSecretParams } from './protocol';
import { allSecretMessages } from './secrets';
import { readServerSettings, ServerSettings } from './settings';
import packageJson from '../package.json';

// The version is stated once, in package.json (and kept equal to the server's by a test).
export const EXTENSION_VERSION: string = packageJson.version;
export const JOB_STATUS = new NotificationType<JobStatus>(NOTIFICATIONS.jobStatus);
export const RESULT = new NotificationType<ResultMessage>(NOTIFICATIONS.result);
export const SET_SECRET = new NotificationType<SetSecretParams>(NOTIFICATIONS.setSecret);
export const CONFIRM_REWRITE = new RequestType<ConfirmRewriteParams, ConfirmRewriteResult, void>(REQUESTS.confirmRewrite);
const CRASH_WINDOW_MS = 3 * 60_000;
const MAX_CRASHES = 3;

export type ServerState = 'starting' | 'running' | 'stopped' | 'error';

/** What the extension knows about the server, for commands and the status bar. */
export class ServerController implements vscode.Disposable {
  private client: LanguageClient | undefined;
  private starting: Promise<void> | undefined;
  private stopping = false;
  private crashes: number[] = [];
  private stateValue: ServerState = 'stopped';
  private readonly stateEmitter = new vscode.EventEmitter<ServerState>();
  private readonly jobEmitter = new vscode.EventEmitter<JobStatus>();
  readonly onDidChangeState = this.stateEmitter.event;
  readonly onJobStatus = this.jobEmitter.event;
  private readonly resultEmitter = new vscode.EventEmitter<ResultMessage>();
  /** A job's result (perfpilot/result). */
  readonly onResult = this.resultEmitter.event;
  readonly jobs = new JobTracker();
  /** The server's messages (window/showMessage) shown to the user, oldest first (the last 100). */
  readonly shownMessages: ServerMessage[] = [];
  /** Ask mode's questions, each with the diff of the rewrite. */
  readonly confirmations = new RewriteConfirmations();
  /** The interpreter and check result of the last start attempt. */
  lastCheck: { interpreter: Interpreter; check: ServerCheck } | undefined;
  /** Called with the result of every server command, whoever started it (palette or lens). */
  onCommandResult: (command: string, result: unknown, argument: unknown) => void = () => undefined;
  /** Called when the server cannot start, with the check that failed. */
  onStartProblem: (problem: { interpreter: Interpreter; check: ServerCheck }) => void = () => undefined;

  constructor(
    private readonly context: vscode.ExtensionContext,
    readonly log: vscode.LogOutputChannel,
  ) {}

  get state(): ServerState {
    return this.stateValue;
  }

  get languageClient(): LanguageClient | undefined {
    return this.client;
  }

  /** Where "Install PerfPilot server" puts its virtual environment. */
  get privateVenv(): string {
    return vscode.Uri.joinPath(this.context.globalStorageUri, 'server-venv').fsPath;
  }

  private setState(state: ServerState): void {
    this.stateValue = state;
    this.stateEmitter.fire(state);
  }

  /** Starts the server unless it runs or is starting; resolves when it runs or failed. */
  start(): Promise<void> {
    if (this.client?.state === State.Running) {
      return Promise.resolve();
    }
    this.starting ??= this.doStart().finally(() => {
      this.starting = undefined;
    });
    return this.starting;
  }

  async restart(): Promise<void> {
    await this.stop();
    this.crashes = [];
    await this.start();
  }

  async stop(): Promise<void> {
    await this.starting?.catch(() => undefined);
    const client = this.client;
    this.client = undefined;
    this.jobs.clear();
    if (client) {
      this.stopping = true;
      try {
        await client.stop(5000);
      } catch (err) {
        this.log.warn(`stopping the server: ${String(err)}`);
      } finally {
        this.stopping = false;
        await client.dispose().catch(() => undefined);
      }
    }
    this.setState('stopped');
  }

  /** Tries the interpreter candidates in order; the first that imports the right version wins. */
  async findServer(): Promise<{ interpreter: Interpreter; check: ServerCheck }> {
    const resource = vscode.window.activeTextEditor?.document.uri;
    const candidates = await interpreterCandidates(venvPython(this.privateVenv), (p) => fs.existsSync(p), resource);
    let first: { interpreter: Interpreter; check: ServerCheck } | undefined;
    for (const interpreter of candidates) {
      const probe = versionProbeCommand(interpreter);
      this.log.info(`checking ${[probe.command, ...probe.args].join(' ')}`);
      const outcome = await runProcess(probe, { timeoutMs: 30_000 });
      const check = judgeProbe(interpreter, outcome, EXTENSION_VERSION);
      this.log.info(check.ok ? `found PerfPilot server ${check.version} at ${interpreter.command}` : check.message);
      if (check.ok) {
        return { interpreter, check };
      }
      first ??= { interpreter, check };
    }
    // interpreterCandidates always returns at least python3 on PATH.
    return first!;
  }

  private async doStart(): Promise<void> {
    this.setState('starting');
    const found = await this.findServer();
    this.lastCheck = found;
    if (!found.check.ok) {
      this.setState('error');
      this.onStartProblem(found);
      return;
    }
    const client = this.createClient(found.interpreter);
    this.client = client;
    try {
      await client.start();
    } catch (err) {
      this.log.error(`the server did not start: ${String(err)}`);
      this.client = undefined;
      this.setState('error');
      void vscode.window
        .showErrorMessage('The PerfPilot server did not start.', 'Show log', 'Restart server')
        .then((choice) => this.onCrashChoice(choice));
      return;
    }
    this.setState('running');
    await this.sendSecrets();
  }

  private createClient(interpreter: Interpreter): LanguageClient {
    const cmd = serverCommand(interpreter);
    this.log.info(`starting ${[cmd.command, ...cmd.args].join(' ')}`);
    const serverOptions: ServerOptions = {
      command: cmd.command,
      args: cmd.args,
      options: { env: { ...process.env, PYTHONUNBUFFERED: '1', PYTHONIOENCODING: 'utf-8' } },
    };
    const clientOptions: LanguageClientOptions = {
      documentSelector: [
        { scheme: 'file', language: 'c' },
        { scheme: 'file', language: 'cpp' },
      ],
      outputChannel: this.log,
      traceOutputChannel: this.log,
      revealOutputChannelOn: RevealOutputChannelOn.Never,
      // VS Code runs this extension only in trusted workspaces (package.json), so the
      // workspace's own .perfpilot.toml may choose endpoints, key variables and compilers.
      initializationOptions: {
        settings: this.settingsFor(undefined),
        trustWorkspace: vscode.workspace.isTrusted,
        // The status bar item shows perfpilot/jobStatus: the server then sends no work-done
        // progress, which VS Code would show as a second status item for the same job.
        showsJobStatus: true,
        // Results come as perfpilot/result, which the extension shows so that a new result
        // replaces the previous one (window/showMessage notifications stack).
        showsResults: true,
        // Ask mode's question comes as perfpilot/confirmRewrite, with the text before and
        // after: the extension shows the diff beside the question.
        confirmsRewrites: true,
      },
      // Model text is untrusted: markdown stays untrusted and without HTML.
      markdown: { isTrusted: false, supportHtml: false },
      errorHandler: {
        error: (_error, _message, count) => ({ action: (count ?? 0) <= 3 ? ErrorAction.Continue : ErrorAction.Shutdown }),
        closed: () => this.onClosed(),
      },
      middleware: {
        executeCommand: async (command, args, next) => {
          // The extension shows reports itself (a read-only virtual document), so the server
          // is not asked to write a report file and open it (`open: true` from lens clicks).
          const sent = command === SERVER_COMMANDS.showReport ? args.map(withoutOpen) : args;
          const result: unknown = await next(command, sent);
          this.onCommandResult(command, result, sent[0]);
          return result;
        },
        workspace: {
          configuration: async (params, token, next) => {
            const answers = await next(params, token);
            if (!Array.isArray(answers)) {
              return answers;
            }
            // Our section is answered in the server's shape, without client-only keys.
            return params.items.map((item, i) => {
              if (item.section !== 'perfpilot') {
                return answers[i];
              }
              const scope = item.scopeUri ? vscode.Uri.parse(item.scopeUri) : undefined;
              return this.settingsFor(scope);
            });
          },
        },
      },
    };
    const client = new LanguageClient('perfpilot', 'PerfPilot', serverOptions, clientOptions);
    client.onNotification(JOB_STATUS, (status: JobStatus) => {
      const moved = this.jobs.update(status);
      this.jobEmitter.fire(status);
      if (moved) {
        // The lens line shows the job's stage: it follows the notification that updates the
        // status bar, whether or not the server's workspace/codeLens/refresh got through.
        refreshLenses(client, status.uri);
      }
    });
    client.onNotification(RESULT, (result: ResultMessage) => this.resultEmitter.fire(result));
    // Shown as the client would by default, and kept: what the server told the user is known
    // to the extension (its tests read it; notifications are not in the page in test mode).
    client.onNotification(ShowMessageNotification.type, (params: ShowMessageParams) => {
      const shown = showServerMessage(params);
      this.shownMessages.push(shown);
      this.shownMessages.splice(0, Math.max(0, this.shownMessages.length - 100));
    });
    client.onRequest(CONFIRM_REWRITE, async (params: ConfirmRewriteParams, token: CancellationToken) => {
      const answer = await this.confirmations.confirm(params, token);
      this.log.info(`${params.jobId} ${params.function}: ${answer.choice || 'no answer'}${token.isCancellationRequested ? ' (question withdrawn)' : ''}`);
      return answer;
    });
    return client;
  }

  private onClosed(): { action: CloseAction; handled: boolean } {
    if (this.stopping) {
      return { action: CloseAction.DoNotRestart, handled: true };
    }
    this.jobs.clear();
    const now = Date.now();
    this.crashes = [...this.crashes.filter((t) => now - t < CRASH_WINDOW_MS), now];
    if (this.crashes.length <= MAX_CRASHES) {
      this.log.error('the PerfPilot server stopped unexpectedly; restarting it');
      void vscode.window
        .showWarningMessage('The PerfPilot server stopped unexpectedly and was restarted.', 'Show log')
        .then((choice) => this.onCrashChoice(choice));
      // Secrets live only in the server's memory: send them again once it is back.
      const client = this.client;
      const sub = client?.onDidChangeState((e) => {
        if (e.newState === State.Running) {
          sub?.dispose();
          void this.sendSecrets();
        }
      });
      return { action: CloseAction.Restart, handled: true };
    }
    this.log.error(`the PerfPilot server crashed ${this.crashes.length} times in 3 minutes; not restarting it`);
    this.setState('error');
    void vscode.window
      .showErrorMessage(
        `The PerfPilot server crashed ${this.crashes.length} times in the last 3 minutes and will not be restarted.`,
        'Show log',
        'Restart server',
      )
      .then((choice) => this.onCrashChoice(choice));
    return { action: CloseAction.DoNotRestart, handled: true };
  }

  private onCrashChoice(choice: string | undefined): void {
    if (choice === 'Show log') {
      this.log.show(true);
    } else if (choice === 'Restart server') {
      void this.restart();
    }
  }

  settingsFor(scope: vscode.Uri | undefined): ServerSettings {
    return readServerSettings(vscode.workspace.getConfiguration('perfpilot', scope));
  }

  /** Pushes changed settings; the server also pulls them with workspace/configuration. */
  async pushSettings(): Promise<void> {
    const client = this.client;
    if (client?.state !== State.Running) {
      return;
    }
    await client.sendNotification(DidChangeConfigurationNotification.type, {
      settings: { perfpilot: this.settingsFor(undefined) },
    });
  }

  /** Sends every stored API key (or its removal) to the server. */
  async sendSecrets(): Promise<void> {
    const client = this.client;
    if (client?.state !== State.Running) {
      return;
    }
    for (const message of await allSecretMessages(this.context.secrets)) {
      await client.sendNotification(SET_SECRET, message);
    }
  }

  /** Runs a server command; the result also goes through onCommandResult. */
  async executeCommand(command: string, argument: object): Promise<unknown> {
    await this.start();
    const client = this.client;
    if (client?.state !== State.Running) {
      throw new Error('The PerfPilot server is not running.');
    }
    const result: unknown = await client.sendRequest(ExecuteCommandRequest.type, { command, arguments: [argument] });
    this.onCommandResult(command, result, argument);
    return result;
  }

  /** Runs a server command for its answer only (no onCommandResult): reports refreshing quietly. */
  async query(command: string, argument: object): Promise<unknown> {
    const client = this.client;
    if (client?.state !== State.Running) {
      return undefined;
    }
    return client.sendRequest(ExecuteCommandRequest.type, { command, arguments: [argument] });
  }

  dispose(): void {
    void this.stop();
    this.confirmations.dispose();
    this.stateEmitter.dispose();
    this.jobEmitter.dispose();
    this.resultEmitter.dispose();
  }
}


/** Asks VS Code for the lenses again (the editors showing `uri`'s document and any other). */
function refreshLenses(client: LanguageClient, uri: string): void {
  const feature = client.getFeature(CodeLensRequest.method);
  const wanted = vscode.Uri.parse(uri).toString();
  const docs = vscode.workspace.textDocuments;
  // One provider serves every document of the selector: firing its event once is enough.
  for (const doc of [...docs.filter((d) => d.uri.toString() === wanted), ...docs]) {
    const shape = feature?.getProvider(doc);
    if (shape) {
      shape.onDidChangeCodeLensEmitter.fire();
      return;
    }
  }
}

/** A server message as shown: its level and text. */
export interface ServerMessage {
  level: 'error' | 'warning' | 'info';
  message: string;
}

/** Shows a window/showMessage notification as VS Code's client does by default. */
function showServerMessage(params: ShowMessageParams): ServerMessage {
  const level = params.type === MessageType.Error ? 'error' : params.type === MessageType.Warning ? 'warning' : 'info';
  const show = level === 'error' ? vscode.window.showErrorMessage : level === 'warning' ? vscode.window.showWarningMessage : vscode.window.showInformationMessage;
  void show(params.message);
  return { level, message: params.message };
}
