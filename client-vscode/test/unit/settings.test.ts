import './fakeVscode';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { beforeEach, test } from 'node:test';
import * as vscode from 'vscode';
import { backendSummary, changeEffect, readServerSettings } from '../../src/settings';
import { fakeSettings, resetFake } from './fakeVscode';

beforeEach(resetFake);

test('server settings are nested by role, camelCase, and leave client-only keys out', () => {
  fakeSettings.set('perfpilot.planner.backend', 'remote');
  fakeSettings.set('perfpilot.planner.endpoint', 'http://127.0.0.1:8000/v1');
  fakeSettings.set('perfpilot.planner.samples', 3);
  fakeSettings.set('perfpilot.optimizer.maxTokens', 2048);
  fakeSettings.set('perfpilot.runner.flags', ['-O2', '-march=native']);
  fakeSettings.set('perfpilot.runner.callgrind', false);
  fakeSettings.set('perfpilot.applyMode', 'preview');
  fakeSettings.set('perfpilot.inlayHints', false);
  fakeSettings.set('perfpilot.parallelPolicy', 'max-threads');
  fakeSettings.set('perfpilot.interpreter', ['/usr/bin/python3']);
  fakeSettings.set('perfpilot.serverSource', 'perfpilot');
  const settings = readServerSettings(vscode.workspace.getConfiguration('perfpilot'));
  assert.deepEqual(settings, {
    planner: { backend: 'remote', endpoint: 'http://127.0.0.1:8000/v1', samples: 3 },
    optimizer: { maxTokens: 2048 },
    runner: { flags: ['-O2', '-march=native'], callgrind: false },
    applyMode: 'preview',
    parallelPolicy: 'max-threads',
    inlayHints: false,
  });
});

test('unset settings produce empty role objects so server defaults apply', () => {
  const settings = readServerSettings(vscode.workspace.getConfiguration('perfpilot'));
  assert.deepEqual(settings, { planner: {}, optimizer: {}, runner: {} });
});

test("keys the user did not set are left out though VS Code's get answers package.json's default", () => {
  // VS Code answers `get` with the default of an unset key; the workspace's .perfpilot.toml
  // (read by the server) must not be overridden by it.
  const defaults: Record<string, unknown> = { 'profile.runCommand': '', 'profile.confirmPairs': 10, 'runner.pairs': 30 };
  const set: Record<string, unknown> = { 'runner.pairs': 12 };
  const cfg = {
    get: <T>(key: string): T | undefined => (key in set ? set[key] : defaults[key]) as T | undefined,
    inspect: <T>(key: string) => ({ key: `perfpilot.${key}`, defaultValue: defaults[key] as T, workspaceValue: set[key] as T | undefined }),
  };
  assert.deepEqual(readServerSettings(cfg), { planner: {}, optimizer: {}, runner: { pairs: 12 } });
});

test('every server key declared in package.json is read, and nothing else', () => {
  // Compiled to out/test/unit/: the package manifest is three levels up.
  const pkg = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', '..', 'package.json'), 'utf8')) as {
    contributes: { configuration: { properties: Record<string, unknown> }[] };
  };
  const declared = pkg.contributes.configuration.flatMap((g) => Object.keys(g.properties));
  for (const key of declared) {
    fakeSettings.set(key, `value of ${key}`);
  }
  const settings = readServerSettings(vscode.workspace.getConfiguration('perfpilot'));
  const flatten = (node: Record<string, unknown>, prefix: string): string[] =>
    Object.entries(node).flatMap(([k, v]) =>
      typeof v === 'object' && v !== null ? flatten(v as Record<string, unknown>, `${prefix}${k}.`) : [`${prefix}${k}`],
    );
  const read = flatten(settings, 'perfpilot.').sort();
  const clientOnly = ['perfpilot.interpreter', 'perfpilot.serverSource', 'perfpilot.trace.server'];
  assert.deepEqual(read, declared.filter((k) => !clientOnly.includes(k)).sort());
});

test('interpreter changes restart; server settings are pushed; others are ignored', () => {
  const affects = (changed: string) => (section: string) => changed === section || changed.startsWith(`${section}.`);
  assert.equal(changeEffect(affects('perfpilot.interpreter')), 'restart');
  assert.equal(changeEffect(affects('perfpilot.trace.server')), 'none');
  assert.equal(changeEffect(affects('perfpilot.planner.model')), 'push');
  assert.equal(changeEffect(affects('perfpilot.runner.callgrind')), 'push');
  assert.equal(changeEffect(affects('perfpilot.applyMode')), 'push');
  assert.equal(changeEffect(affects('perfpilot.parallelPolicy')), 'push');
  assert.equal(changeEffect(affects('perfpilot.serverSource')), 'none');
  assert.equal(changeEffect(affects('editor.fontSize')), 'none');
});

test('the backend summary names models by their last path part', () => {
  assert.equal(backendSummary({ planner: {}, optimizer: {}, runner: {} }), 'built-in planner');
  assert.equal(
    backendSummary({ planner: {}, optimizer: { backend: 'replay' }, runner: {} }),
    'planner built-in · optimizer replay',
  );
  assert.equal(
    backendSummary({
      planner: { backend: 'local', model: '/models/perfcoder-1.5b/' },
      optimizer: { backend: 'remote', model: 'qwen2.5-coder-32b' },
      runner: {},
    }),
    'planner local:perfcoder-1.5b · optimizer remote:qwen2.5-coder-32b',
  );
});
