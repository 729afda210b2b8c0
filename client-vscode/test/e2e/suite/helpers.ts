// Helpers for the end-to-end suite: polling, screenshots through the driver, the test config.
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';

export interface E2EConfig {
  artifacts: string;
  python: string;
  /** Which suite runs: `extension` (the fixture workspace) or `profile` (examples/profiled). */
  suite?: string;
  install: boolean;
  /** Only the tests whose titles match this regular expression (PERFPILOT_E2E_GREP). */
  grep?: string;
}

export function e2eConfig(): E2EConfig {
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  if (!folder) {
    throw new Error('the e2e suite needs the fixture workspace open');
  }
  return JSON.parse(fs.readFileSync(path.join(folder, '.perfpilot-e2e.json'), 'utf8')) as E2EConfig;
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Polls until the probe returns a value (not undefined), or throws after timeoutMs. */
export async function waitFor<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, timeoutMs: number, everyMs = 500): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) {
      return value;
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    }
    await sleep(everyMs);
  }
}

/** Like waitFor, but returns undefined instead of throwing. */
export async function waitUpTo<T>(probe: () => Promise<T | undefined> | T | undefined, timeoutMs: number, everyMs = 500): Promise<T | undefined> {
  try {
    return await waitFor('', probe, timeoutMs, everyMs);
  } catch {
    return undefined;
  }
}

/** Asks the driver for a screenshot of the page and waits until it is written. */
export async function screenshot(name: string): Promise<void> {
  const file = path.join(e2eConfig().artifacts, `${name}.png`);
  fs.rmSync(file, { force: true });
  await sleep(600); // let the UI settle (animations of hovers and menus)
  console.log(`PERFPILOT_E2E_SCREENSHOT:${name}`);
  await waitUpTo(() => (fs.existsSync(file) ? true : undefined), 15_000, 200);
}

/** The text of hover contents, whatever form they take. */
export function hoverText(hovers: vscode.Hover[]): string {
  return hovers
    .flatMap((h) => h.contents)
    .map((c) => (typeof c === 'string' ? c : 'value' in c ? c.value : ''))
    .join('\n');
}

/** Where an element lies on the page, and the box of the editor that clips it. */
export interface ElementBox {
  left: number;
  right: number;
  clipLeft: number;
  clipRight: number;
  width: number;
  height: number;
  /** How far its content reaches past its height (more than 0: it scrolls). */
  overflow: number;
}

/** Asks the driver how many elements match a Playwright locator in the page, their texts and boxes. */
export async function queryPage(name: string, locator: string): Promise<{ count: number; texts: string[]; boxes?: ElementBox[]; error?: string }> {
  return askDriver('PERFPILOT_E2E_QUERY', name, locator);
}

/** Asks the driver which browser console lines so far contain the text. */
export async function consoleLines(name: string, text: string): Promise<{ count: number; texts: string[]; error?: string }> {
  return askDriver('PERFPILOT_E2E_CONSOLE', name, text);
}

/** Asks the driver to type into the focused element of the page; `{Enter}` presses Enter. */
export async function typeKeys(name: string, text: string): Promise<void> {
  await askDriver('PERFPILOT_E2E_KEYS', name, text);
}

async function askDriver(kind: string, name: string, what: string): Promise<{ count: number; texts: string[]; boxes?: ElementBox[]; error?: string }> {
  const file = path.join(e2eConfig().artifacts, `${name}.query.json`);
  fs.rmSync(file, { force: true });
  console.log(`${kind}:${name}|${what}`);
  await waitUpTo(() => (fs.existsSync(file) ? true : undefined), 15_000, 200);
  return fs.existsSync(file)
    ? (JSON.parse(fs.readFileSync(file, 'utf8')) as { count: number; texts: string[]; boxes?: ElementBox[] })
    : { count: 0, texts: [], error: 'no answer' };
}

/** Set once this extension host is going down for a reload: its results no longer count. */
export const reload = { started: false };

/** Where a suite that reloads the window keeps what it needs across the reload. */
function reloadFile(): string {
  return path.join(e2eConfig().artifacts, 'reload.json');
}

/** Where the suite runner keeps the results so far (read again after a reload). */
export function progressFile(): string {
  return path.join(e2eConfig().artifacts, 'progress.json');
}

/** The data saved by reloadWindow, once the window was reloaded (undefined before). */
export function reloadedWith(): Record<string, string> | undefined {
  const file = reloadFile();
  return fs.existsSync(file) ? (JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, string>) : undefined;
}

/**
 * Developer: Reload Window, for real. It ends this extension host; the new one runs the suite
 * again, skipping the tests that already ran (their results are kept), so the test that called
 * this runs again and finds `reloadedWith()` set. Never returns.
 */
export async function reloadWindow(data: Record<string, string>): Promise<never> {
  fs.writeFileSync(reloadFile(), JSON.stringify(data));
  reload.started = true;
  console.log('PERFPILOT_E2E reloading the window');
  // The command's promise is cancelled as the host goes down: not awaited, so this test keeps
  // waiting (and the suite in this host never ends and reports) until the host is gone.
  void vscode.commands.executeCommand('workbench.action.reloadWindow').then(undefined, () => undefined);
  await sleep(120_000);
  // Still here: the workbench refused to unload (an unsaved buffer not yet backed up, say).
  reload.started = false;
  fs.rmSync(reloadFile(), { force: true });
  throw new Error('the window did not reload');
}
