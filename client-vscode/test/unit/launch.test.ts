import './fakeVscode';
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  expandVariables,
  installCommands,
  installSource,
  Interpreter,
  judgeProbe,
  serverCommand,
  venvPython,
  versionProbeCommand,
} from '../../src/launch';

const py: Interpreter = { command: '/opt/py/bin/python', args: ['-X', 'utf8'], source: 'setting' };

test('the server runs as <python> -m perfpilot serve, keeping the interpreter arguments', () => {
  assert.deepEqual(serverCommand(py), { command: '/opt/py/bin/python', args: ['-X', 'utf8', '-m', 'perfpilot', 'serve'] });
});

test('the version probe imports perfpilot and prints its version', () => {
  assert.deepEqual(versionProbeCommand(py), {
    command: '/opt/py/bin/python',
    args: ['-X', 'utf8', '-c', 'import perfpilot; print(perfpilot.__version__)'],
  });
});

test('a probe printing the expected version is accepted', () => {
  assert.deepEqual(judgeProbe(py, { exitCode: 0, stdout: '0.1.0\n', stderr: '' }, '0.1.0'), { ok: true, version: '0.1.0' });
});

test('a missing module, a wrong version, a broken import and a missing interpreter are told apart', () => {
  const missing = judgeProbe(
    py,
    { exitCode: 1, stdout: '', stderr: "Traceback...\nModuleNotFoundError: No module named 'perfpilot'\n" },
    '0.1.0',
  );
  assert.equal(missing.ok, false);
  assert.equal(!missing.ok && missing.reason, 'not-installed');
  assert.match(!missing.ok ? missing.message : '', /not installed for \/opt\/py\/bin\/python -X utf8 \(from the perfpilot.interpreter setting\)/);

  const old = judgeProbe(py, { exitCode: 0, stdout: '0.0.9\n', stderr: '' }, '0.1.0');
  assert.equal(!old.ok && old.reason, 'wrong-version');
  assert.match(!old.ok ? old.message : '', /has PerfPilot server 0\.0\.9, but this extension needs 0\.1\.0/);

  const broken = judgeProbe(py, { exitCode: 1, stdout: '', stderr: 'ImportError: cannot import name x\n' }, '0.1.0');
  assert.equal(!broken.ok && broken.reason, 'broken');
  assert.match(!broken.ok ? broken.message : '', /ImportError: cannot import name x/);

  const absent = judgeProbe({ ...py, source: 'path' }, { exitCode: null, stdout: '', stderr: '', spawnError: 'ENOENT' }, '0.1.0');
  assert.equal(!absent.ok && absent.reason, 'no-interpreter');
  assert.match(!absent.ok ? absent.message : '', /\(from PATH\) \(ENOENT\)/);
});

test('the install source: a changed setting wins, then a bundled wheel, then the pinned PyPI name', () => {
  assert.equal(installSource('/src/perfpilot', ['/ext/bundled/perfpilot-0.1.0-py3-none-any.whl'], '0.1.0'), '/src/perfpilot');
  assert.equal(
    installSource('perfpilot', ['/ext/bundled/README', '/ext/bundled/perfpilot-0.1.0-py3-none-any.whl'], '0.1.0'),
    '/ext/bundled/perfpilot-0.1.0-py3-none-any.whl',
  );
  assert.equal(installSource('', [], '0.1.0'), 'perfpilot==0.1.0');
  assert.equal(installSource(undefined, ['/ext/bundled/notes.txt'], '0.1.0'), 'perfpilot==0.1.0');
});

test('installing makes a venv with the base python and pip-installs into that venv', () => {
  const cmds = installCommands({ command: 'python3', args: [], source: 'path' }, '/store/server-venv', 'perfpilot==0.1.0');
  assert.deepEqual(cmds, [
    { command: 'python3', args: ['-m', 'venv', '/store/server-venv'] },
    {
      command: '/store/server-venv/bin/python',
      args: ['-m', 'pip', 'install', '--disable-pip-version-check', '--upgrade', 'perfpilot==0.1.0'],
    },
  ]);
  assert.equal(venvPython('C:\\store\\venv', 'win32').endsWith('python.exe'), true);
});

test('variables in the interpreter setting are expanded', () => {
  const vars = { workspaceFolder: '/ws/p', userHome: '/home/u', env: { VENV: '/opt/v' } };
  assert.equal(expandVariables('${workspaceFolder}/.venv/bin/python', vars), '/ws/p/.venv/bin/python');
  assert.equal(expandVariables('~/py/bin/python', vars), '/home/u/py/bin/python');
  assert.equal(expandVariables('${env:VENV}/bin/python', vars), '/opt/v/bin/python');
  assert.equal(expandVariables('${env:NOPE}x', vars), 'x');
  assert.equal(expandVariables('${userHome}/p', vars), '/home/u/p');
});
