import { fakeProgress, resetFake } from './fakeVscode';
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ResultToasts } from '../../src/results';

const settle = (): Promise<void> => new Promise((r) => setTimeout(r, 10));

test('a new result replaces the previous notification: one result shown at a time', async () => {
  resetFake();
  const toasts = new ResultToasts(60_000);
  toasts.show('PerfPilot: sum_values rewritten — 92.09× faster (95% CI 80.00–99.00)');
  await settle();
  assert.deepEqual(fakeProgress.map((p) => p.open), [true]);
  assert.deepEqual(fakeProgress[0].reported, [{ increment: 100 }]); // a result, not work going on
  toasts.show('PerfPilot: sum_values: 42.50× faster (95% CI 40.00–45.00)');
  await settle();
  assert.deepEqual(fakeProgress.map((p) => p.open), [false, true]);
  assert.match(fakeProgress[1].title, /42\.50×/);
  assert.equal(toasts.open, 1);
  assert.equal(toasts.shown.length, 2);
  toasts.dispose();
  await settle();
  assert.deepEqual(fakeProgress.map((p) => p.open), [false, false]);
});

test('a result closes by itself after a while', async () => {
  resetFake();
  const toasts = new ResultToasts(20);
  toasts.show('PerfPilot: done');
  await new Promise((r) => setTimeout(r, 60));
  assert.deepEqual(fakeProgress.map((p) => p.open), [false]);
});
