// Runs the extension's mocha suite inside a real VS Code: code-server (started with setsid in its
// own process group on a free loopback port, fresh user-data and extensions dirs) opened in headless
// Chromium with the smoke-test driver's ?payload= URL. The suite's exit code comes back through
// window.codeAutomationExit. The suite asks for screenshots by logging a marker line.
//
// Environment: CODE_SERVER_HOME (code-server install prefix), PERFPILOT_PYTHON (the Python with the
// perfpilot server), CHROMIUM (default /usr/bin/chromium), PERFPILOT_E2E_TIMEOUT_S (default 420; 900 for
// the profile suite),
// PERFPILOT_E2E_SUITE: `extension` (default: the fixture workspace, test-artifacts/) or `profile`
// (a copy of examples/profiled, a CMake project profiled with the real profiler;
// test-artifacts-profile/).
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const started = Date.now();
const elapsed = () => `${((Date.now() - started) / 1000).toFixed(1)}s`;
const say = (msg) => console.log(`[e2e ${elapsed()}] ${msg}`);

function fail(msg) {
  console.error(`test-e2e: ${msg}`);
  process.exit(1);
}

const codeServerHome = process.env.CODE_SERVER_HOME ?? fail('CODE_SERVER_HOME is not set');
const codeServer = path.join(codeServerHome, 'node_modules', '.bin', 'code-server');
const python = process.env.PERFPILOT_PYTHON ?? fail('PERFPILOT_PYTHON is not set');
const chromiumPath = process.env.CHROMIUM ?? '/usr/bin/chromium';
for (const [what, p] of [['code-server', codeServer], ['Chromium', chromiumPath], ['PERFPILOT_PYTHON', python]]) {
  if (!fs.existsSync(p)) {
    fail(`${what} not found at ${p} (run scripts/install-test-deps.sh)`);
  }
}
const suite = path.join(root, 'out', 'test', 'e2e', 'suite', 'index.js');
if (!fs.existsSync(suite) || !fs.existsSync(path.join(root, 'dist', 'extension.js'))) {
  fail('the extension is not built (make build)');
}

const suiteName = process.env.PERFPILOT_E2E_SUITE ?? 'extension';
const workspaces = {
  extension: path.join(root, 'test', 'fixtures', 'workspace'),
  profile: path.join(root, '..', 'examples', 'profiled'),
};
if (!(suiteName in workspaces)) {
  fail(`PERFPILOT_E2E_SUITE=${suiteName}: expected one of ${Object.keys(workspaces).join(', ')}`);
}
// The profile suite builds the CMake project three times and times whole runs.
const timeoutS = Number(process.env.PERFPILOT_E2E_TIMEOUT_S ?? (suiteName === 'profile' ? 900 : 420));
const artifacts = path.join(root, suiteName === 'extension' ? 'test-artifacts' : `test-artifacts-${suiteName}`);
fs.rmSync(artifacts, { recursive: true, force: true });
fs.mkdirSync(artifacts, { recursive: true });
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'perfpilot-e2e-'));
const dirs = Object.fromEntries(['home', 'ud', 'ext', 'ws', 'browser'].map((d) => [d, path.join(tmp, d)]));
for (const d of Object.values(dirs)) {
  fs.mkdirSync(d, { recursive: true });
}

// The workspace: the suite's sources (never a build folder or kept results of a local run),
// settings that make the extension start the real server.
fs.cpSync(workspaces[suiteName], dirs.ws, {
  recursive: true,
  filter: (src) => !['build', '.perfpilot'].includes(path.basename(src)),
});
fs.mkdirSync(path.join(dirs.ws, '.vscode'), { recursive: true });
fs.writeFileSync(
  path.join(dirs.ws, '.vscode', 'settings.json'),
  JSON.stringify(
    {
      'perfpilot.interpreter': [python],
      'perfpilot.runner.pairs': 10,
      'perfpilot.runner.callgrind': false,
      'perfpilot.trace.server': 'messages',
      // As in desktop VS Code (the web build saves after a delay by default): a rewrite stays
      // in the buffer, unsaved, until the user saves it.
      ...(suiteName === 'extension' ? { 'files.autoSave': 'off' } : {}),
      'files.exclude': { '.vscode': true, '.perfpilot-e2e.json': true, '.perfpilot': true, build: true },
    },
    null,
    2,
  ),
);
// Read by the suite: where to put screenshots and results.
// install: PERFPILOT_E2E_INSTALL=1 also runs "Install PerfPilot server" (pip needs the package index).
fs.writeFileSync(
  path.join(dirs.ws, '.perfpilot-e2e.json'),
  JSON.stringify({
    artifacts,
    python,
    suite: suiteName,
    install: process.env.PERFPILOT_E2E_INSTALL === '1',
    grep: process.env.PERFPILOT_E2E_GREP || undefined,
  }),
);

fs.mkdirSync(path.join(dirs.ud, 'User'), { recursive: true });
fs.writeFileSync(
  path.join(dirs.ud, 'User', 'settings.json'),
  JSON.stringify({
    'security.workspace.trust.enabled': false,
    'workbench.startupEditor': 'none',
    'workbench.tips.enabled': false,
    'workbench.secondarySideBar.defaultVisibility': 'hidden',
    'chat.disableAIFeatures': true,
    'telemetry.telemetryLevel': 'off',
    'extensions.autoUpdate': false,
    'extensions.autoCheckUpdates': false,
    'update.mode': 'none',
    'remote.autoForwardPorts': false,
    'editor.codeLens': true,
    'editor.inlayHints.enabled': 'on',
    'editor.minimap.enabled': false,
  }),
);

async function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

const port = await freePort();
const config = path.join(tmp, 'config.yaml');
fs.writeFileSync(config, `bind-addr: 127.0.0.1:${port}\nauth: none\ncert: false\n`);
const serverLog = fs.openSync(path.join(artifacts, 'code-server.log'), 'w');
const env = {
  ...process.env,
  HOME: dirs.home,
  PATH: `${path.dirname(process.execPath)}:${process.env.PATH}`,
  PERFPILOT_E2E_ARTIFACTS: artifacts,
};
// setsid: code-server and every child (extension hosts, the language server) share one process
// group that is stopped as a whole at the end.
const cs = spawn(
  'setsid',
  [
    codeServer,
    '--config', config,
    '--bind-addr', `127.0.0.1:${port}`,
    '--auth', 'none',
    '--disable-telemetry',
    '--disable-update-check',
    '--disable-workspace-trust',
    '--reconnection-grace-time', '5',
    '--user-data-dir', dirs.ud,
    '--extensions-dir', dirs.ext,
    '--vscode-option', 'enable-smoke-test-driver',
    dirs.ws,
  ],
  // Not detached: setsid(1) then calls setsid() without forking, so the group id is cs.pid.
  { env, stdio: ['ignore', serverLog, serverLog] },
);
say(`code-server pid ${cs.pid} on 127.0.0.1:${port}`);

let browser;
let exitCode = 1;
function stopAll() {
  try {
    process.kill(-cs.pid, 'SIGTERM');
  } catch {
    // already gone
  }
}
process.on('exit', () => {
  try {
    process.kill(-cs.pid, 'SIGKILL');
  } catch {
    // already gone
  }
  // The workbench's and extension hosts' logs (the PerfPilot channel among them) are artifacts too.
  try {
    fs.cpSync(path.join(dirs.ud, 'logs'), path.join(artifacts, 'logs'), { recursive: true });
  } catch {
    // no logs written
  }
  fs.rmSync(tmp, { recursive: true, force: true });
});
for (const sig of ['SIGINT', 'SIGTERM']) {
  process.on(sig, () => {
    stopAll();
    process.exit(130);
  });
}

try {
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      const res = await fetch(`http://127.0.0.1:${port}/healthz`);
      if (res.ok) {
        break;
      }
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline || cs.exitCode !== null) {
      throw new Error('code-server did not come up (see test-artifacts/code-server.log)');
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  say('code-server is up');

  browser = await chromium.launchPersistentContext(dirs.browser, {
    executablePath: chromiumPath,
    headless: true,
    viewport: { width: 1280, height: 800 },
    env: { ...process.env, HOME: dirs.home },
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  const page = browser.pages()[0] ?? (await browser.newPage());
  let resolveExit;
  const exited = new Promise((resolve) => (resolveExit = resolve));
  await page.exposeFunction('codeAutomationExit', (code) => {
    resolveExit(Number(code));
  });
  const consoleLog = fs.createWriteStream(path.join(artifacts, 'browser-console.log'));
  const marker = 'PERFPILOT_E2E_SCREENSHOT:';
  const consoleLines = [];
  page.on('console', async (msg) => {
    const text = msg.text();
    consoleLog.write(`${text}\n`);
    consoleLines.push(text);
    const consoleQuery = 'PERFPILOT_E2E_CONSOLE:';
    const c = text.indexOf(consoleQuery);
    if (c >= 0) {
      // NAME|TEXT: which console lines so far contain TEXT. In extension-test mode the workbench
      // logs extension notifications to the console instead of showing them.
      const [name, needle] = text.slice(c + consoleQuery.length).trim().split('|', 2);
      const lines = consoleLines.filter((l) => l.includes(needle) && !l.includes(consoleQuery));
      fs.writeFileSync(path.join(artifacts, `${name}.query.json`), JSON.stringify({ count: lines.length, texts: lines }));
      return;
    }
    const keys = 'PERFPILOT_E2E_KEYS:';
    const k = text.indexOf(keys);
    if (k >= 0) {
      // NAME|TEXT: types into whatever has focus (quick picks, input boxes); {Enter} presses Enter.
      const [name, typed] = text.slice(k + keys.length).split('|', 2);
      for (const [i, part] of typed.split('{Enter}').entries()) {
        if (i > 0) {
          await page.keyboard.press('Enter');
        }
        if (part) {
          await page.keyboard.type(part, { delay: 20 });
        }
      }
      fs.writeFileSync(path.join(artifacts, `${name}.query.json`), JSON.stringify({ count: 1, texts: [] }));
      return;
    }
    const query = 'PERFPILOT_E2E_QUERY:';
    const q = text.indexOf(query);
    if (q >= 0) {
      // NAME|LOCATOR: the suite asks what the page shows (the extension host cannot see the UI).
      const [name, locator] = text.slice(q + query.length).trim().split('|', 2);
      let answer;
      try {
        const found = page.locator(locator);
        // Each element's text, its box and the box of the editor that clips it (its overflow
        // guard), so the suite can tell whether an element is on screen or cut off. One pass:
        // a lens line re-rendered between two reads would pair texts with other boxes.
        const seen = await found.evaluateAll((els) =>
          els.map((e) => {
            const r = e.getBoundingClientRect();
            const guard = e.closest('.overflow-guard')?.getBoundingClientRect();
            const text = e instanceof HTMLElement ? e.innerText : (e.textContent ?? '');
            // overflow: how far its content reaches past its own height (a scrolled box).
            return {
              text,
              box: {
                left: r.left,
                right: r.right,
                clipLeft: guard ? guard.left : 0,
                clipRight: guard ? guard.right : window.innerWidth,
                width: r.width,
                height: r.height,
                overflow: e.scrollHeight - e.clientHeight,
              },
            };
          }),
        );
        answer = { count: seen.length, texts: seen.map((x) => x.text), boxes: seen.map((x) => x.box) };
      } catch (err) {
        answer = { count: 0, texts: [], error: String(err) };
      }
      fs.writeFileSync(path.join(artifacts, `${name}.query.json`), JSON.stringify(answer));
      return;
    }
    const at = text.indexOf(marker);
    if (at >= 0) {
      const name = text.slice(at + marker.length).trim().split(/\s/)[0];
      const file = path.join(artifacts, `${name}.png`);
      try {
        // The editor area alone (hover and menus included) is what the docs show.
        await page.locator('.part.editor').screenshot({ path: file.replace(/\.png$/, '.editor.png') }).catch(() => undefined);
        await page.screenshot({ path: `${file}.tmp.png` });
        fs.renameSync(`${file}.tmp.png`, file);
        say(`screenshot ${name}.png`);
      } catch (err) {
        say(`screenshot ${name} failed: ${err}`);
      }
    } else if (/PERFPILOT_E2E\b|✔|✖|passing|failing|pending/.test(text)) {
      console.log(`  ${text.replace(/^.*?PERFPILOT_E2E /, '')}`);
    }
  });
  const authority = `127.0.0.1:${port}`;
  const payload = JSON.stringify([
    ['extensionDevelopmentPath', `vscode-remote://${authority}${root}`],
    ['extensionTestsPath', `vscode-remote://${authority}${suite}`],
  ]);
  const url = `http://${authority}/?folder=${encodeURIComponent(dirs.ws)}&payload=${encodeURIComponent(payload)}`;
  await page.goto(url);
  await page.waitForSelector('.monaco-workbench', { timeout: 60_000 });
  say('workbench loaded; running the suite in the extension host');
  const timer = new Promise((resolve) => setTimeout(() => resolve('timeout'), timeoutS * 1000));
  const result = await Promise.race([exited, timer]);
  if (result === 'timeout') {
    await page.screenshot({ path: path.join(artifacts, 'timeout.png') }).catch(() => undefined);
    throw new Error(`the suite did not finish within ${timeoutS}s`);
  }
  exitCode = result;
  consoleLog.end();
} catch (err) {
  console.error(`test-e2e: ${err instanceof Error ? err.message : err}`);
  exitCode = 1;
} finally {
  await browser?.close().catch(() => undefined);
  stopAll();
  await new Promise((r) => setTimeout(r, 500));
}

const resultsFile = path.join(artifacts, 'results.json');
if (fs.existsSync(resultsFile)) {
  const r = JSON.parse(fs.readFileSync(resultsFile, 'utf8'));
  for (const t of r.tests) {
    console.log(`  ${t.state === 'passed' ? 'ok  ' : t.state === 'pending' ? 'skip' : 'FAIL'} ${t.title} (${t.durationMs} ms)${t.error ? `\n       ${t.error}` : ''}`);
  }
  console.log(`e2e: ${r.passed} passed, ${r.failed} failed, ${r.skipped} skipped`);
  if (exitCode === 0 && r.failed > 0) {
    exitCode = 1;
  }
} else {
  console.log('e2e: the suite wrote no results (see test-artifacts/browser-console.log and code-server.log)');
  exitCode = exitCode || 1;
}
say(`done, exit code ${exitCode}`);
process.exit(exitCode);
