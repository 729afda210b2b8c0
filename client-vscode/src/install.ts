// "Install PerfPilot server": a private virtual environment in the extension's global storage,
// with the server pip-installed into it, shown with progress.
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import { interpreterCandidates, interpreterFromSetting } from './interpreter';
import { CommandLine, installCommands, installSource, Interpreter } from './launch';
import { runProcess } from './processes';
import { EXTENSION_VERSION } from './server';

/** Server wheels or sdists shipped inside the extension (`bundled/`). */
export function bundledServerFiles(extensionPath: string): string[] {
  const dir = path.join(extensionPath, 'bundled');
  try {
    return fs.readdirSync(dir).map((f) => path.join(dir, f));
  } catch {
    return [];
  }
}

/** A Python that can create the environment: the configured or discovered one, never the venv itself. */
async function basePython(privateVenvPython: string): Promise<Interpreter | undefined> {
  const candidates = await interpreterCandidates(privateVenvPython, () => false);
  for (const interp of candidates) {
    const outcome = await runProcess(
      { command: interp.command, args: [...interp.args, '-c', 'import sys, venv; sys.exit(0 if sys.version_info >= (3, 10) else 3)'] },
      { timeoutMs: 30_000 },
    );
    if (outcome.exitCode === 0) {
      return interp;
    }
  }
  return undefined;
}

/** Creates the environment and installs the server; returns true on success. */
export async function installServer(
  extensionPath: string,
  venvDir: string,
  venvPythonPath: string,
  log: vscode.LogOutputChannel,
): Promise<boolean> {
  const source = installSource(
    vscode.workspace.getConfiguration('perfpilot').get<string>('serverSource'),
    bundledServerFiles(extensionPath),
    EXTENSION_VERSION,
  );
  return vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: 'Installing PerfPilot server', cancellable: true },
    async (progress, token) => {
      progress.report({ message: 'finding Python 3.10 or newer…' });
      // An interpreter the user chose gets the server itself; otherwise a private environment.
      const chosen = interpreterFromSetting();
      const base = chosen ?? (await basePython(venvPythonPath));
      if (!base) {
        void vscode.window.showErrorMessage(
          'PerfPilot needs Python 3.10 or newer with the venv module. Install it, or set perfpilot.interpreter.',
          'Open settings',
        ).then((c) => c && vscode.commands.executeCommand('workbench.action.openSettings', 'perfpilot.interpreter'));
        return false;
      }
      let steps: CommandLine[];
      let labels: string[];
      if (chosen) {
        steps = [{ command: chosen.command, args: [...chosen.args, '-m', 'pip', 'install', '--disable-pip-version-check', '--upgrade', source] }];
        labels = [`installing ${path.basename(source)}…`];
      } else {
        fs.mkdirSync(path.dirname(venvDir), { recursive: true });
        steps = installCommands(base, venvDir, source);
        labels = ['creating the environment…', `installing ${path.basename(source)}…`];
      }
      for (const [i, step] of steps.entries()) {
        if (token.isCancellationRequested) {
          return false;
        }
        progress.report({ message: labels[i] });
        log.info(`install: ${[step.command, ...step.args].join(' ')}`);
        const outcome = await runProcess(step, {
          timeoutMs: 15 * 60_000,
          cancel: token,
          onLine: (line) => {
            log.info(`install: ${line}`);
            const m = /^(Collecting|Installing collected packages|Successfully installed|Processing|Building)\b.*/.exec(line);
            if (m) {
              progress.report({ message: m[0].slice(0, 80) });
            }
          },
        });
        if (outcome.exitCode !== 0) {
          log.error(`install failed: ${outcome.spawnError ?? `exit code ${outcome.exitCode}`}`);
          if (!token.isCancellationRequested) {
            void vscode.window
              .showErrorMessage(`Installing the PerfPilot server failed (${labels[i].replace('…', '')}).`, 'Show log')
              .then((c) => c && log.show(true));
          }
          return false;
        }
      }
      void vscode.window.showInformationMessage(`PerfPilot server installed for ${chosen ? chosen.command : venvDir}.`);
      return true;
    },
  );
}
