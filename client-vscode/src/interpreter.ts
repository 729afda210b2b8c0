// Finds the Python interpreter that runs the server: the perfpilot.interpreter setting, else the
// Python extension's active environment (optional: no dependency on that extension), else the
// extension's private environment, else python3 on PATH.
import * as os from 'os';
import * as vscode from 'vscode';
import { expandVariables, Interpreter } from './launch';

export const PYTHON_EXTENSION_ID = 'ms-python.python';

/** The part of the Python extension's API used here (environments API, 2023+). */
interface PythonExtensionApi {
  environments?: {
    getActiveEnvironmentPath(resource?: vscode.Uri): { path: string } | undefined;
    resolveEnvironment(env: { path: string } | string): Promise<{ executable?: { uri?: vscode.Uri } } | undefined>;
    onDidChangeActiveEnvironmentPath?: vscode.Event<unknown>;
  };
}

/** The interpreter from the setting, with variables expanded; undefined when the setting is empty. */
export function interpreterFromSetting(resource?: vscode.Uri): Interpreter | undefined {
  const value = vscode.workspace.getConfiguration('perfpilot', resource).get<string[] | string>('interpreter');
  const parts = (Array.isArray(value) ? value : typeof value === 'string' && value ? [value] : []).filter(
    (p) => typeof p === 'string' && p.length > 0,
  );
  if (parts.length === 0) {
    return undefined;
  }
  const folder = resource ? vscode.workspace.getWorkspaceFolder(resource) : vscode.workspace.workspaceFolders?.[0];
  const vars = { workspaceFolder: folder?.uri.fsPath, userHome: os.homedir(), env: process.env };
  const [command, ...args] = parts.map((p) => expandVariables(p, vars));
  return { command, args, source: 'setting' };
}

async function pythonExtensionApi(): Promise<PythonExtensionApi | undefined> {
  const ext = vscode.extensions.getExtension<PythonExtensionApi>(PYTHON_EXTENSION_ID);
  if (!ext) {
    return undefined;
  }
  try {
    return ext.isActive ? ext.exports : await ext.activate();
  } catch {
    return undefined;
  }
}

/** The Python extension's active environment for the resource, when that extension is installed. */
export async function interpreterFromPythonExtension(resource?: vscode.Uri): Promise<Interpreter | undefined> {
  const api = await pythonExtensionApi();
  const envs = api?.environments;
  if (!envs) {
    return undefined;
  }
  try {
    const active = envs.getActiveEnvironmentPath(resource);
    if (!active?.path) {
      return undefined;
    }
    const resolved = await envs.resolveEnvironment(active);
    const exe = resolved?.executable?.uri?.fsPath;
    return exe ? { command: exe, args: [], source: 'python-extension' } : undefined;
  } catch {
    return undefined;
  }
}

/** Subscribes to interpreter changes in the Python extension, when it is installed. */
export async function onPythonEnvironmentChange(listener: () => void): Promise<vscode.Disposable | undefined> {
  const api = await pythonExtensionApi();
  const event = api?.environments?.onDidChangeActiveEnvironmentPath;
  return event ? event(() => listener()) : undefined;
}

/**
 * The interpreters to try, best first. An explicit setting is the only candidate: a user who
 * chose an interpreter must be told when it is unusable, not silently given another one.
 */
export async function interpreterCandidates(
  privateVenvPython: string,
  exists: (p: string) => boolean,
  resource?: vscode.Uri,
): Promise<Interpreter[]> {
  const fromSetting = interpreterFromSetting(resource);
  if (fromSetting) {
    return [fromSetting];
  }
  const out: Interpreter[] = [];
  const fromExtension = await interpreterFromPythonExtension(resource);
  if (fromExtension) {
    out.push(fromExtension);
  }
  if (exists(privateVenvPython)) {
    out.push({ command: privateVenvPython, args: [], source: 'private-venv' });
  }
  out.push({ command: process.platform === 'win32' ? 'python' : 'python3', args: [], source: 'path' });
  return out;
}
