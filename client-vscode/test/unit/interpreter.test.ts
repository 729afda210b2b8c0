import './fakeVscode';
import assert from 'node:assert/strict';
import { beforeEach, test } from 'node:test';
import { interpreterCandidates, PYTHON_EXTENSION_ID } from '../../src/interpreter';
import { fakeExtensions, fakeSettings, resetFake, Uri } from './fakeVscode';

beforeEach(resetFake);

const venv = '/store/server-venv/bin/python';

function fakePythonExtension(executable: string | undefined): void {
  let activated = 0;
  const exports = {
    environments: {
      getActiveEnvironmentPath: () => ({ path: executable ?? '' }),
      resolveEnvironment: async () => (executable ? { executable: { uri: Uri.file(executable) } } : undefined),
    },
  };
  fakeExtensions.set(PYTHON_EXTENSION_ID, {
    isActive: false,
    exports,
    activate: async () => {
      activated += 1;
      return exports;
    },
  });
  void activated;
}

test('an explicit interpreter setting is the only candidate, with variables expanded', async () => {
  fakeSettings.set('perfpilot.interpreter', ['${workspaceFolder}/.venv/bin/python', '-X', 'utf8']);
  fakePythonExtension('/envs/py311/bin/python');
  const got = await interpreterCandidates(venv, () => true);
  assert.deepEqual(got, [{ command: '/ws/project/.venv/bin/python', args: ['-X', 'utf8'], source: 'setting' }]);
});

test('without a setting: the Python extension, then the private venv, then python3 on PATH', async () => {
  fakePythonExtension('/envs/py311/bin/python');
  const got = await interpreterCandidates(venv, (p) => p === venv);
  assert.deepEqual(
    got.map((i) => [i.command, i.source]),
    [
      ['/envs/py311/bin/python', 'python-extension'],
      [venv, 'private-venv'],
      ['python3', 'path'],
    ],
  );
});

test('the Python extension is optional and the private venv is skipped until it exists', async () => {
  const got = await interpreterCandidates(venv, () => false);
  assert.deepEqual(got, [{ command: 'python3', args: [], source: 'path' }]);
});

test('a Python extension without an active environment, or one that fails, is passed over', async () => {
  fakePythonExtension(undefined);
  assert.deepEqual((await interpreterCandidates(venv, () => false)).map((i) => i.source), ['path']);
  fakeExtensions.set(PYTHON_EXTENSION_ID, {
    isActive: false,
    exports: {},
    activate: async () => {
      throw new Error('activation failed');
    },
  });
  assert.deepEqual((await interpreterCandidates(venv, () => false)).map((i) => i.source), ['path']);
});

test('an empty or blank interpreter setting counts as unset', async () => {
  fakeSettings.set('perfpilot.interpreter', ['']);
  assert.deepEqual((await interpreterCandidates(venv, () => false)).map((i) => i.source), ['path']);
  fakeSettings.set('perfpilot.interpreter', '/usr/bin/python3.11');
  assert.deepEqual((await interpreterCandidates(venv, () => false)).map((i) => i.command), ['/usr/bin/python3.11']);
});
