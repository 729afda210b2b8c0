import './fakeVscode';
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { clientCommandId, POSITION_COMMANDS, positionArgument, reportTitle, resultMessage, SERVER_COMMANDS, withoutOpen } from '../../src/commands';
import { JobTracker, statusBarText } from '../../src/jobs';
import { allSecretMessages, roleOfSecretKey, secretKey, secretMessageFor } from '../../src/secrets';
import { reportName } from '../../src/report';
import * as fs from 'node:fs';
import * as path from 'node:path';

const where = { uri: 'file:///ws/a.cpp', languageId: 'cpp', version: 7, line: 4, character: 2 };

test('makeFaster carries the document version; other position commands do not', () => {
  assert.deepEqual(positionArgument('makeFaster', where), { uri: 'file:///ws/a.cpp', line: 4, character: 2, version: 7 });
  assert.deepEqual(positionArgument('showReport', where), { uri: 'file:///ws/a.cpp', line: 4, character: 2 });
});

test('position commands explain why they cannot run', () => {
  assert.match(String(positionArgument('makeFaster', undefined)), /Open a C or C\+\+ file/);
  assert.match(String(positionArgument('explain', { ...where, languageId: 'python' })), /not python/);
});

test('every lens action has a palette command that acts on the function at the cursor', () => {
  const pkg = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', '..', 'package.json'), 'utf8')) as {
    contributes: { commands: { command: string; title: string }[]; menus: { commandPalette: { command: string; when?: string }[] } };
  };
  const contributed = new Set(pkg.contributes.commands.map((c) => c.command));
  const inPalette = new Map(pkg.contributes.menus.commandPalette.map((m) => [m.command, m.when ?? '']));
  // The server's lens actions: Details, Re-run, Revert, Confirm in program, Draft a bench spec, Make this faster.
  const lensActions = ['showReport', 'rerun', 'revert', 'confirmInProgram', 'draftBenchSpec', 'makeFaster'] as const;
  for (const name of lensActions) {
    assert.ok(name in SERVER_COMMANDS, name);
    assert.ok(POSITION_COMMANDS.includes(name), `${name} acts on the function at the cursor`);
    const id = clientCommandId(name);
    assert.ok(contributed.has(id), `${id} is contributed`);
    // Shown in the palette wherever C or C++ is edited (never hidden with "when": false).
    assert.match(inPalette.get(id) ?? 'missing', /editorLangId == cpp/, id);
  }
});

test('client command ids never collide with the server command ids that the client auto-registers', () => {
  const pkg = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', '..', 'package.json'), 'utf8')) as {
    contributes: { commands: { command: string }[] };
  };
  const serverIds = new Set<string>(Object.values(SERVER_COMMANDS));
  for (const { command } of pkg.contributes.commands) {
    assert.equal(serverIds.has(command), false, command);
    assert.match(command, /^perfpilot\.client\./);
  }
  assert.equal(clientCommandId('makeFaster'), 'perfpilot.client.makeFaster');
});

test('command results turn into messages only where the editor shows nothing else', () => {
  assert.deepEqual(resultMessage('perfpilot.testConnection', { ok: true, message: 'planner: builtin' }), {
    level: 'info',
    text: 'PerfPilot: planner: builtin',
  });
  assert.equal(resultMessage('perfpilot.testConnection', { ok: false, message: 'refused' })?.level, 'error');
  assert.equal(resultMessage('perfpilot.revert', { applied: true, message: '' }), undefined);
  // The server tells why a Revert did not apply: the client adds no second message.
  assert.equal(resultMessage('perfpilot.revert', { applied: false, message: 'Revert no longer applies: the function changed' }), undefined);
  assert.equal(resultMessage('perfpilot.cancel', { cancelled: false })?.level, 'info');
  assert.equal(resultMessage('perfpilot.makeFaster', { jobId: 'j1' }), undefined);
  assert.equal(resultMessage('perfpilot.draftBenchSpec', { created: true, uri: 'file:///s', message: 'review s' })?.level, 'info');
  assert.equal(resultMessage('perfpilot.draftBenchSpec', { created: false, message: 'no function here' })?.level, 'warning');
});

test('report titles and names come from the first heading, made safe for a URI', () => {
  assert.equal(reportTitle('intro\n## `count_dups` — 2.3× faster\n', 'x'), 'count_dups — 2.3× faster');
  assert.equal(reportTitle('no heading', 'PerfPilot report'), 'PerfPilot report');
  assert.equal(reportName('count_dups — 2.3× faster'), 'count_dups_2.3_faster.md');
  assert.equal(reportName('///'), 'report.md');
});

test('the job tracker follows jobStatus notifications and picks the job to cancel', () => {
  const jobs = new JobTracker();
  jobs.update({ jobId: '1', uri: 'file:///a.cpp', function: 'f', kind: 'optimize', stage: 'planning', done: false, message: '' });
  jobs.update({ jobId: '2', uri: 'file:///b.cpp', function: 'g', kind: 'rerun', stage: 'timing', done: false, message: '' });
  assert.equal(jobs.jobFor('file:///a.cpp')?.jobId, '1');
  assert.equal(jobs.jobFor('file:///c.cpp')?.jobId, '2');
  jobs.update({ jobId: '1', uri: 'file:///a.cpp', function: 'f', kind: 'optimize', stage: 'done', done: true, message: '2.1× faster' });
  assert.deepEqual(jobs.runningJobs().map((j) => j.jobId), ['2']);
  assert.equal(jobs.finished()?.message, '2.1× faster');
  const text = statusBarText('built-in planner', jobs.runningJobs(), 'running');
  assert.equal(text.text, '$(sync~spin) PerfPilot: g · timing');
  assert.equal(statusBarText('built-in planner', [], 'running').text, '$(zap) PerfPilot: built-in planner');
  assert.equal(statusBarText('x', [], 'error').text, '$(error) PerfPilot');
});

test('API keys: one shared and one per role, sent as perfpilot/setSecret, cleared with an empty value', async () => {
  const store = new Map<string, string>([
    [secretKey(), 'sk-shared'],
    [secretKey('optimizer'), 'sk-opt'],
  ]);
  const secrets = { get: async (k: string) => store.get(k) };
  assert.deepEqual(await allSecretMessages(secrets), [
    { name: 'apiKey', value: 'sk-shared' },
    { name: 'apiKey', role: 'optimizer', value: 'sk-opt' },
  ]);
  store.delete(secretKey('optimizer'));
  assert.deepEqual(await secretMessageFor(secrets, secretKey('optimizer')), { name: 'apiKey', role: 'optimizer', value: '' });
  assert.equal(await secretMessageFor(secrets, 'other.extension.key'), undefined);
  assert.equal(roleOfSecretKey('perfpilot.apiKey.planner'), 'planner');
  assert.equal(roleOfSecretKey('perfpilot.apiKey'), undefined);
});

test('report arguments from lens clicks lose their open flag; other arguments pass unchanged', () => {
  assert.deepEqual(withoutOpen({ uri: 'file:///a.cpp', line: 1, character: 0, open: true }), { uri: 'file:///a.cpp', line: 1, character: 0 });
  assert.deepEqual(withoutOpen({ jobId: 'j' }), { jobId: 'j' });
  assert.equal(withoutOpen('x'), 'x');
});
