// How the server process is started, checked and installed: argument lists only, no side effects.
import * as path from 'path';

/** A Python interpreter with its leading arguments, and where it came from. */
export interface Interpreter {
  command: string;
  args: string[];
  source: 'setting' | 'python-extension' | 'private-venv' | 'path';
}

export interface CommandLine {
  command: string;
  args: string[];
}

export const SERVER_MODULE = 'perfpilot';
export const VERSION_PROBE = 'import perfpilot; print(perfpilot.__version__)';

/** `<python> -m perfpilot serve`. */
export function serverCommand(interp: Interpreter): CommandLine {
  return { command: interp.command, args: [...interp.args, '-m', SERVER_MODULE, 'serve'] };
}

/** `<python> -c "import perfpilot; print(perfpilot.__version__)"`. */
export function versionProbeCommand(interp: Interpreter): CommandLine {
  return { command: interp.command, args: [...interp.args, '-c', VERSION_PROBE] };
}

/** Result of running the version probe. */
export interface ProbeOutcome {
  /** Spawn error code (ENOENT...) when the interpreter could not start. */
  spawnError?: string;
  exitCode: number | null;
  stdout: string;
  stderr: string;
}

export type ServerCheck =
  | { ok: true; version: string }
  | { ok: false; reason: 'no-interpreter' | 'not-installed' | 'wrong-version' | 'broken'; message: string; version?: string };

/** Judges a probe: the server must import and report exactly the extension's version. */
export function judgeProbe(interp: Interpreter, outcome: ProbeOutcome, expected: string): ServerCheck {
  const who = describeInterpreter(interp);
  if (outcome.spawnError) {
    return {
      ok: false,
      reason: 'no-interpreter',
      message: `PerfPilot could not run the Python interpreter ${who} (${outcome.spawnError}).`,
    };
  }
  if (outcome.exitCode !== 0) {
    if (/ModuleNotFoundError|No module named ['"]?perfpilot/.test(outcome.stderr)) {
      return {
        ok: false,
        reason: 'not-installed',
        message: `The PerfPilot server is not installed for ${who}.`,
      };
    }
    const last = outcome.stderr.trim().split('\n').pop() ?? '';
    return {
      ok: false,
      reason: 'broken',
      message: `The PerfPilot server failed to import with ${who}: ${last || `exit code ${outcome.exitCode}`}.`,
    };
  }
  const version = outcome.stdout.trim().split('\n').pop()?.trim() ?? '';
  if (version !== expected) {
    return {
      ok: false,
      reason: 'wrong-version',
      version,
      message: `${who} has PerfPilot server ${version || '(unknown version)'}, but this extension needs ${expected}.`,
    };
  }
  return { ok: true, version };
}

export function describeInterpreter(interp: Interpreter): string {
  const shown = [interp.command, ...interp.args].join(' ');
  const from = {
    setting: 'the perfpilot.interpreter setting',
    'python-extension': "the Python extension's environment",
    'private-venv': "the extension's own environment",
    path: 'PATH',
  }[interp.source];
  return `${shown} (from ${from})`;
}

/** The python executable inside a virtual environment. */
export function venvPython(venvDir: string, platform: NodeJS.Platform = process.platform): string {
  return platform === 'win32' ? path.join(venvDir, 'Scripts', 'python.exe') : path.join(venvDir, 'bin', 'python');
}

/**
 * What `pip install` gets: the serverSource setting when the user changed it; otherwise a
 * server wheel bundled with the extension (newest name last), else the PyPI name pinned to the
 * extension's version.
 */
export function installSource(setting: string | undefined, bundled: readonly string[], version: string): string {
  const value = (setting ?? '').trim();
  if (value && value !== SERVER_MODULE) {
    return value;
  }
  const wheels = bundled.filter((f) => f.endsWith('.whl') || f.endsWith('.tar.gz')).sort();
  if (wheels.length > 0) {
    return wheels[wheels.length - 1];
  }
  return `${SERVER_MODULE}==${version}`;
}

/** The commands that make the private environment and install the server into it. */
export function installCommands(basePython: Interpreter, venvDir: string, source: string): CommandLine[] {
  const py = venvPython(venvDir);
  return [
    { command: basePython.command, args: [...basePython.args, '-m', 'venv', venvDir] },
    { command: py, args: ['-m', 'pip', 'install', '--disable-pip-version-check', '--upgrade', source] },
  ];
}

/** Expands ${workspaceFolder}, ${userHome}, ${env:NAME} and a leading ~ in a setting value. */
export function expandVariables(
  value: string,
  vars: { workspaceFolder?: string; userHome: string; env: Record<string, string | undefined> },
): string {
  let out = value.replace(/\$\{(workspaceFolder|userHome|env:([A-Za-z_][A-Za-z0-9_]*))\}/g, (whole, name, envName) => {
    if (name === 'workspaceFolder') {
      return vars.workspaceFolder ?? whole;
    }
    if (name === 'userHome') {
      return vars.userHome;
    }
    return vars.env[envName] ?? '';
  });
  if (out === '~' || out.startsWith('~/')) {
    out = vars.userHome + out.slice(1);
  }
  return out;
}
