import assert from 'node:assert/strict';
import { test } from 'node:test';
import { JobStatus, JobTracker, statusBarText } from '../../src/jobs';

const status = (stage: string, done = false, message = ''): JobStatus => ({
  jobId: 'j1',
  uri: 'file:///w/sums.cpp',
  function: 'sum_values',
  kind: 'optimize',
  stage,
  done,
  message,
});

test('each notification that moves a job to a new stage or ends it asks for the lenses again', () => {
  const jobs = new JobTracker();
  const asked: string[] = [];
  const notify = (s: JobStatus): void => {
    if (jobs.update(s)) {
      asked.push(s.stage);
    }
  };
  notify(status('planning'));
  notify(status('building'));
  notify(status('building', false, '2 of 3 built')); // progress inside a stage: no new lens
  notify(status('timing'));
  notify(status('done', true, 'sum_values rewritten'));
  assert.deepEqual(asked, ['planning', 'building', 'timing', 'done']);
  assert.deepEqual(jobs.runningJobs(), []);
});

test('the status bar and the lens refresh come from the same notification: the stage the bar shows is the last one refreshed', () => {
  const jobs = new JobTracker();
  let refreshedAt = '';
  for (const stage of ['planning', 'building', 'validating', 'timing']) {
    if (jobs.update(status(stage))) {
      refreshedAt = stage;
    }
    const bar = statusBarText('built-in planner', jobs.runningJobs(), 'running').text;
    assert.ok(bar.endsWith(`· ${refreshedAt}`), `${bar} / lens asked at ${refreshedAt}`);
  }
});
