import './fakeVscode';
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { REPORT_SCHEME, ReportProvider } from '../../src/report';

test('reports are served read-only under their own scheme, refreshed under the same URI', () => {
  const reports = new ReportProvider();
  const changed: string[] = [];
  reports.onDidChange((uri) => changed.push(uri.toString()));
  const first = reports.put('PerfPilot report: sum_values', '# one\n');
  assert.equal(first.scheme, REPORT_SCHEME);
  assert.equal(first.path, '/PerfPilot_report_sum_values.md');
  assert.equal(reports.provideTextDocumentContent(first), '# one\n');
  const again = reports.put('PerfPilot report: sum_values', '# two\n');
  assert.equal(again.toString(), first.toString());
  assert.equal(reports.provideTextDocumentContent(first), '# two\n');
  assert.deepEqual(changed, [first.toString(), first.toString()]);
});

test('an unknown report URI explains how to get the report again', () => {
  const reports = new ReportProvider();
  const other = reports.put('x', 'y');
  reports.dispose();
  const fresh = new ReportProvider();
  assert.match(fresh.provideTextDocumentContent(other), /Show report/);
});

test('after Revert, the reports of that document are asked for again under the same URI', async () => {
  const reports = new ReportProvider();
  const source = { uri: 'file:///w/a.cpp', line: 2, character: 0 };
  const shown = reports.put('PerfPilot report: ends', '# applied 2.00x faster\n', source);
  const other = reports.put('PerfPilot report: other', '# other\n', { uri: 'file:///w/b.cpp', line: 0, character: 0 });
  const asked: unknown[] = [];
  const count = await reports.refreshDocument('file:///w/a.cpp', async (s) => {
    asked.push(s);
    return 'No PerfPilot result for this function yet.';
  });
  assert.equal(count, 1);
  assert.deepEqual(asked, [source]);
  assert.equal(reports.provideTextDocumentContent(shown), 'No PerfPilot result for this function yet.');
  assert.equal(reports.provideTextDocumentContent(other), '# other\n');
});
