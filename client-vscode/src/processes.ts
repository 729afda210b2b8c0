// Runs short helper processes (version probe, venv, pip) without a shell.
import { spawn } from 'child_process';
import { CommandLine, ProbeOutcome } from './launch';

/** Runs a command to completion; never rejects (spawn errors come back in the outcome). */
export function runProcess(
  cmd: CommandLine,
  options: { timeoutMs?: number; onLine?: (line: string) => void; env?: NodeJS.ProcessEnv; cancel?: { onCancellationRequested(cb: () => void): unknown } } = {},
): Promise<ProbeOutcome> {
  return new Promise((resolve) => {
    let stdout = '';
    let stderr = '';
    let settled = false;
    const finish = (outcome: ProbeOutcome): void => {
      if (!settled) {
        settled = true;
        clearTimeout(timer);
        resolve(outcome);
      }
    };
    const child = spawn(cmd.command, cmd.args, { env: options.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      finish({ exitCode: null, stdout, stderr: `${stderr}\ntimed out after ${options.timeoutMs} ms`, spawnError: 'timeout' });
    }, options.timeoutMs ?? 60_000);
    options.cancel?.onCancellationRequested(() => child.kill('SIGTERM'));
    const lines = (chunk: string): void => {
      if (options.onLine) {
        for (const line of chunk.split(/\r?\n/)) {
          if (line.trim()) {
            options.onLine(line);
          }
        }
      }
    };
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
      lines(d);
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
      lines(d);
    });
    child.on('error', (err: NodeJS.ErrnoException) => finish({ exitCode: null, stdout, stderr, spawnError: err.code ?? err.message }));
    child.on('close', (code) => finish({ exitCode: code, stdout, stderr }));
  });
}
