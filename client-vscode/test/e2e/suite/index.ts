// Entry point that VS Code's extension host loads as extensionTestsPath: runs the mocha (tdd)
// suite, logs each result to the console (it reaches the driver as page console messages) and
// writes results.json into the artifacts folder.
import * as fs from 'fs';
import Mocha from 'mocha';
import * as path from 'path';
import { e2eConfig, progressFile, reload, reloadedWith } from './helpers';

interface TestResult {
  title: string;
  state: 'passed' | 'failed' | 'pending';
  durationMs: number;
  error?: string;
}

export function run(): Promise<void> {
  const mocha = new Mocha({ ui: 'tdd', timeout: 240_000, color: false, reporter: Mocha.reporters.Base });
  // One suite per workspace: the driver opened the workspace the suite is written for.
  mocha.addFile(path.join(__dirname, `${e2eConfig().suite ?? 'extension'}.test.js`));
  // After a Reload Window (a test's own), the suite runs again in the new extension host:
  // the tests that already ran keep their results and do not run again.
  const results: TestResult[] =
    reloadedWith() && fs.existsSync(progressFile()) ? (JSON.parse(fs.readFileSync(progressFile(), 'utf8')) as TestResult[]) : [];
  const escape = (t: string): string => t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const done = results.length > 0 ? `(?!(?:${results.map((r) => escape(r.title)).join('|')})$)` : '';
  // PERFPILOT_E2E_GREP (a regular expression): run only the tests whose titles match.
  const grep = e2eConfig().grep;
  if (grep || done) {
    mocha.grep(new RegExp(`^${done}${grep ? `(?=.*(?:${grep}))` : ''}`));
  }
  /** Keeps a result and logs it, unless this host is going down for a reload (the suite
   * goes on in the next one). */
  const keep = (r: TestResult, line: string): void => {
    if (reload.started) {
      return;
    }
    results.push(r);
    fs.writeFileSync(progressFile(), JSON.stringify(results));
    console.log(line);
  };
  return new Promise((resolve, reject) => {
    const runner = mocha.run((failures) => {
      if (reload.started) {
        return; // never settles: the new extension host reports
      }
      const summary = {
        passed: results.filter((r) => r.state === 'passed').length,
        failed: results.filter((r) => r.state === 'failed').length,
        skipped: results.filter((r) => r.state === 'pending').length,
        tests: results,
      };
      try {
        fs.writeFileSync(path.join(e2eConfig().artifacts, 'results.json'), JSON.stringify(summary, null, 2));
      } catch (err) {
        console.log(`PERFPILOT_E2E could not write results: ${String(err)}`);
      }
      console.log(`PERFPILOT_E2E ${summary.passed} passing, ${summary.failed} failing, ${summary.skipped} pending`);
      if (failures > 0) {
        reject(new Error(`${failures} tests failed`));
      } else {
        resolve();
      }
    });
    const started = new Map<string, number>();
    runner.on('test', (t) => started.set(t.fullTitle(), Date.now()));
    const since = (t: Mocha.Test): number => Date.now() - (started.get(t.fullTitle()) ?? Date.now());
    runner.on('pass', (t) => {
      keep({ title: t.fullTitle(), state: 'passed', durationMs: since(t) }, `PERFPILOT_E2E ✔ ${t.fullTitle()} (${since(t)} ms)`);
    });
    runner.on('pending', (t) => {
      keep({ title: t.fullTitle(), state: 'pending', durationMs: since(t) }, `PERFPILOT_E2E - ${t.fullTitle()} (skipped)`);
    });
    runner.on('fail', (t, err: Error) => {
      const title = t.fullTitle();
      const error = err?.stack ?? String(err);
      keep({ title, state: 'failed', durationMs: since(t as Mocha.Test), error }, `PERFPILOT_E2E ✖ ${title}: ${error}`);
    });
  });
}
