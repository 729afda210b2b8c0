// End-to-end: the extension in a real VS Code, talking to the real PerfPilot server.
import * as assert from 'assert';
import * as path from 'path';
import * as vscode from 'vscode';
import type { PerfPilotApi } from '../../../src/extension';
import type { JobStatus } from '../../../src/jobs';
import * as fs from 'fs';
import { consoleLines, e2eConfig, hoverText, queryPage, reloadedWith, reloadWindow, screenshot, sleep, typeKeys, waitFor, waitUpTo } from './helpers';

const FUNCTION = 'sum_values';
const CATEGORIES = [
  'Algorithm Design Optimization',
  'Data Structure Selection',
  'Memory Usage and Allocation',
  'Loop Efficiency Techniques',
  'Compiler Configuration and Tuning',
  'Multithreading and Concurrency',
  'Data Locality and Cache Awareness',
  'Input/Output Throughput Optimization',
  'Instruction-Level Execution Optimization',
  'Function Call Overhead Reduction',
  'Branching Efficiency',
  'Numerical Computation Optimization',
  'Hardware-Aware System Optimization',
  'Resource Lifetime and Scope Management',
  'Efficient Library and API Utilization',
];

suite('PerfPilot in VS Code', () => {
  let api: PerfPilotApi;
  let doc: vscode.TextDocument;
  let editor: vscode.TextEditor;
  let original: string;
  let before: string; // text before the function: an edit must not touch it
  let namePos: vscode.Position;
  let bodyPos: vscode.Position;
  const jobEvents: JobStatus[] = [];
  const logText = (): string => {
    const dir = api.logUri.fsPath;
    return fs.existsSync(dir)
      ? fs.readdirSync(dir).filter((f) => f.endsWith('.log')).map((f) => fs.readFileSync(path.join(dir, f), 'utf8')).join('\n')
      : '';
  };
  /** How often the server logged that it received an API key. */
  const secretsSet = (): number => (logText().match(/secret apiKey set/g) ?? []).length;

  suiteSetup(async () => {
    const folder = vscode.workspace.workspaceFolders![0].uri;
    doc = await vscode.workspace.openTextDocument(vscode.Uri.joinPath(folder, 'sums.cpp'));
    editor = await vscode.window.showTextDocument(doc);
    assert.strictEqual(doc.languageId, 'cpp');
    // After the Reload Window test the suite runs again: the file's text from before it began.
    original = reloadedWith()?.original ?? doc.getText();
    const at = original.indexOf(`${FUNCTION}(`);
    namePos = doc.positionAt(at + 2);
    bodyPos = doc.positionAt(original.indexOf('total += values[i]') + 2);
    before = original.slice(0, original.lastIndexOf('\n', at));
    const ext = vscode.extensions.getExtension<PerfPilotApi>('perfpilot.perfpilot');
    assert.ok(ext, 'the extension under development is loaded');
    api = await ext.activate();
    api.controller.onJobStatus((s) => jobEvents.push(s));
    await waitFor('the server to start', () => (api.controller.state === 'running' ? true : api.controller.state === 'error' ? false : undefined), 90_000);
    assert.strictEqual(
      api.controller.state,
      'running',
      `server did not start: ${api.controller.lastCheck && !api.controller.lastCheck.check.ok ? api.controller.lastCheck.check.message : 'see the PerfPilot log'}`,
    );
  });

  test('the server starts from the configured interpreter and answers perfpilot.status', async () => {
    assert.strictEqual(api.controller.lastCheck?.interpreter.source, 'setting');
    assert.deepStrictEqual(api.controller.lastCheck?.check, { ok: true, version: '0.1.0' });
    const status = (await api.controller.executeCommand('perfpilot.status', {})) as Record<string, unknown>;
    assert.ok(status && 'planner' in status && 'optimizer' in status, JSON.stringify(status));
    assert.match(api.statusBar.text, /PerfPilot/);
  });

  test('Make this faster: the code action runs the job and the server edits the function', async () => {
    editor.selection = new vscode.Selection(bodyPos, bodyPos);
    const actions = await waitFor(
      'our code action',
      async () => {
        const all = await vscode.commands.executeCommand<(vscode.CodeAction | vscode.Command)[]>(
          'vscode.executeCodeActionProvider',
          doc.uri,
          new vscode.Range(bodyPos, bodyPos),
        );
        // A built-in chat action may appear too: keep ours only.
        const ours = (all ?? []).filter(
          (a): a is vscode.CodeAction => 'kind' in a && a.kind?.value === 'refactor.rewrite.perfpilot',
        );
        return ours.length > 0 ? ours : undefined;
      },
      30_000,
    );
    const action = actions[0];
    assert.match(action.title, /^Make this faster/);
    assert.ok(action.command, 'the action carries a command, not an edit');
    assert.strictEqual(action.edit, undefined);

    await vscode.commands.executeCommand('editor.action.quickFix');
    await screenshot('lightbulb-menu');
    await vscode.commands.executeCommand('hideCodeActionWidget');

    // The server applies a rewrite only when it is measured faster; on a busy machine one run
    // may come out noisy, so a second run is allowed before the test fails.
    let change: vscode.TextDocumentChangeEvent | undefined;
    const endings: string[] = [];
    for (let attempt = 1; attempt <= 2 && !change; attempt++) {
      const changed = new Promise<vscode.TextDocumentChangeEvent>((resolve) => {
        const sub = vscode.workspace.onDidChangeTextDocument((e) => {
          if (e.document === doc && e.contentChanges.length > 0) {
            sub.dispose();
            resolve(e);
          }
        });
      });
      const started = jobEvents.length;
      const command = attempt === 1 ? action.command! : { command: 'perfpilot.makeFaster', arguments: [{ uri: doc.uri.toString(), line: bodyPos.line, character: bodyPos.character }] };
      const result = (await vscode.commands.executeCommand(command.command, ...(command.arguments ?? []))) as { jobId?: string } | undefined;
      assert.ok(result?.jobId, `makeFaster answers {jobId}: ${JSON.stringify(result)}`);
      if (attempt === 1) {
        // VS Code re-asks for lenses a few hundred milliseconds after a refresh: show the lens
        // once it had the time to follow the job to the build.
        await waitUpTo(async () => jobEvents.slice(started).find((s) => s.jobId === result.jobId && (s.stage === 'building' || s.done)), 30_000, 100);
        await sleep(1000);
        await screenshot('job-running');
      }
      const done = await waitFor(
        'the job to finish (perfpilot/jobStatus done)',
        () => jobEvents.slice(started).find((s) => s.jobId === result.jobId && s.done),
        180_000,
      );
      endings.push(`${done.stage}: ${done.message ?? ''}`);
      change = await Promise.race([changed, sleep(10_000).then(() => undefined)]);
    }
    assert.ok(change, `the document changed (jobs ended: ${endings.join(' | ')})`);
    const now = doc.getText();
    assert.notStrictEqual(now, original);
    assert.ok(now.startsWith(before), 'text before the function is untouched');
    assert.ok(now.includes(FUNCTION), 'the function keeps its name');
    assert.ok(now.includes('count_duplicates'), 'the other function is untouched');
    for (const c of change.contentChanges) {
      assert.ok(c.range.start.line >= doc.positionAt(before.length).line, 'the edit starts inside the function');
    }
  });

  test('hover on the function shows the plan', async () => {
    const pos = doc.positionAt(doc.getText().indexOf(`${FUNCTION}(`) + 2);
    const hovers = await waitFor(
      'a PerfPilot hover',
      async () => {
        const h = await vscode.commands.executeCommand<vscode.Hover[]>('vscode.executeHoverProvider', doc.uri, pos);
        return h && CATEGORIES.some((c) => hoverText(h).includes(c)) ? h : undefined;
      },
      30_000,
    );
    const text = hoverText(hovers);
    assert.ok(CATEGORIES.some((c) => text.includes(c)), text);
    // Compact: the plan one line per strategy, the result, checks and variants one line each
    // (the explanations in full and every measurement are in Details).
    assert.ok(!text.includes('| measure |'), text);
    editor.selection = new vscode.Selection(pos, pos);
    await vscode.commands.executeCommand('editor.action.showHover');
    // VS Code caps a hover's height: the whole hover fits, nothing scrolls.
    const shown = await waitFor(
      'the hover on screen',
      async () => {
        const q = await queryPage('hover-shown', '.monaco-hover .monaco-hover-content');
        const i = q.texts.findIndex((t) => t.includes('PerfPilot plan for'));
        return i >= 0 ? q.boxes?.[i] : undefined;
      },
      15_000,
    );
    assert.ok(shown.overflow <= 1, `the hover shows its whole content without scrolling: ${JSON.stringify(shown)}`);
    await screenshot('hover');
    await vscode.commands.executeCommand('editor.action.hideHover').then(undefined, () => undefined);
  });

  test('a code lens shows the measured result', async function () {
    const lensTitles = async (): Promise<string[]> => {
      const lenses = await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', doc.uri, 10);
      return (lenses ?? []).map((l) => l.command?.title ?? '');
    };
    const measured = await waitUpTo(async () => {
      const titles = await lensTitles();
      return titles.some((t) => t.includes('×')) ? titles : undefined;
    }, 60_000);
    if (!measured) {
      const status = (await api.controller.executeCommand('perfpilot.status', {})) as Record<string, unknown> | undefined;
      const runner = status?.runner as Record<string, unknown> | string | boolean | undefined;
      const disabled =
        runner === false || runner === 'disabled' || (typeof runner === 'object' && runner !== null && (runner.enabled === false || runner.available === false));
      if (disabled) {
        console.log(`PERFPILOT_E2E lens skipped: the server reports no runner (${JSON.stringify(runner)})`);
        this.skip();
      }
      assert.fail(`no measured lens within 60 s; lenses: ${JSON.stringify(await lensTitles())}; status: ${JSON.stringify(status)}`);
    }
    assert.ok(measured.some((t) => /\d(\.\d+)?×/.test(t)), JSON.stringify(measured));
    assert.ok(measured.some((t) => /Details|Re-run|Revert/.test(t)), JSON.stringify(measured));
    // At 1280 px with the Explorer open, every action of the lens line is on screen: the
    // actions come first and the figures after them.
    await vscode.commands.executeCommand('workbench.view.explorer');
    editor = await vscode.window.showTextDocument(doc);
    editor.revealRange(new vscode.Range(namePos, namePos), vscode.TextEditorRevealType.AtTop);
    const shown = await waitFor(
      'the lens line in the editor',
      async () => {
        const q = await queryPage('codelens-line', '.monaco-editor .codelens-decoration a');
        return q.texts.includes('Revert') ? q : undefined;
      },
      20_000,
    );
    // The final result never shows beside a running lens (a lens a stage behind the job).
    assert.ok(!shown.texts.includes('Cancel') && !shown.texts.some((t) => t.startsWith('PerfPilot: ') && t.endsWith('…')), `no running lens beside the result: ${JSON.stringify(shown.texts)}`);
    const explorer = await queryPage('explorer-open', '.monaco-workbench .part.sidebar .explorer-folders-view');
    assert.ok(explorer.count > 0, 'the Explorer is open');
    for (const action of ['Details', 'Re-run', 'Revert']) {
      const i = shown.texts.indexOf(action);
      assert.ok(i >= 0, `${action} is in the lens line: ${JSON.stringify(shown.texts)}`);
      const box = shown.boxes?.[i];
      assert.ok(box && box.left >= box.clipLeft && box.right <= box.clipRight, `${action} is on screen: ${JSON.stringify(box)}`);
    }
    await screenshot('codelens');
  });

  test('after a server restart the result, its lens and Revert come back', async () => {
    const lensTitles = async (): Promise<string[]> =>
      ((await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', doc.uri, 10)) ?? []).map((l) => l.command?.title ?? '');
    const before = api.controller.languageClient;
    await vscode.commands.executeCommand('perfpilot.client.restartServer');
    await waitFor(
      'a new running server',
      () => (api.controller.state === 'running' && api.controller.languageClient !== before ? true : undefined),
      90_000,
    );
    const titles = await waitFor(
      'the restored lens',
      async () => {
        const t = await lensTitles();
        return t.includes('Revert') && t.some((x) => x.startsWith('⚡')) ? t : undefined;
      },
      30_000,
    );
    assert.ok(titles.indexOf('Revert') < titles.findIndex((x) => x.startsWith('⚡')), JSON.stringify(titles));
    const hints =
      (await vscode.commands.executeCommand<vscode.InlayHint[]>('vscode.executeInlayHintProvider', doc.uri, new vscode.Range(0, 0, doc.lineCount, 0))) ?? [];
    assert.ok(hints.some((h) => (typeof h.label === 'string' ? h.label : h.label.map((p) => p.value).join('')).includes('×')), 'the inlay hint is back');
  });

  test('Show report opens a read-only markdown document', async () => {
    const pos = doc.positionAt(doc.getText().indexOf(`${FUNCTION}(`) + 2);
    editor = await vscode.window.showTextDocument(doc);
    editor.selection = new vscode.Selection(pos, pos);
    const result = (await vscode.commands.executeCommand('perfpilot.client.showReport')) as { markdown?: string } | undefined;
    assert.ok(result?.markdown, `showReport answers {markdown}: ${JSON.stringify(result)}`);
    const reportDoc = await waitFor(
      'the report document',
      () => vscode.workspace.textDocuments.find((d) => d.uri.scheme === 'perfpilot-report'),
      15_000,
    );
    assert.strictEqual(reportDoc.getText(), result.markdown);
    assert.ok(result.markdown.includes(FUNCTION), 'the report names the function');
    await sleep(1500); // the markdown preview renders in a webview, after the document opens
    await screenshot('report');
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
    await vscode.window.showTextDocument(doc);
  });

  test('a changed setting reaches the running server without a restart', async () => {
    const client = api.controller.languageClient;
    const hints = async (): Promise<vscode.InlayHint[]> =>
      (await vscode.commands.executeCommand<vscode.InlayHint[]>(
        'vscode.executeInlayHintProvider',
        doc.uri,
        new vscode.Range(0, 0, doc.lineCount, 0),
      )) ?? [];
    const label = (h: vscode.InlayHint): string => (typeof h.label === 'string' ? h.label : h.label.map((p) => p.value).join(''));
    const config = vscode.workspace.getConfiguration('perfpilot');
    const hadHint = (await hints()).some((h) => label(h).includes('×'));
    await config.update('inlayHints', false, vscode.ConfigurationTarget.Workspace);
    try {
      if (hadHint) {
        await waitFor('the inlay hint to go away', async () => ((await hints()).some((h) => label(h).includes('×')) ? undefined : true), 20_000);
      }
      assert.strictEqual(api.controller.languageClient, client, 'the client was not restarted');
      assert.strictEqual(api.controller.state, 'running');
    } finally {
      await config.update('inlayHints', undefined, vscode.ConfigurationTarget.Workspace);
    }
  });

  test('Re-run: its result replaces the previous result notification', async () => {
    const before = api.results.shown.length;
    const toldBefore = api.controller.shownMessages.length;
    assert.ok(before >= 1 && api.results.shown.some((t) => /rewritten — .*×/.test(t)), JSON.stringify(api.results.shown));
    const pos = doc.positionAt(doc.getText().indexOf(`${FUNCTION}(`) + 2);
    const started = jobEvents.length;
    const result = (await vscode.commands.executeCommand('perfpilot.client.rerun', doc.uri, pos)) as { jobId?: string } | undefined;
    assert.ok(result?.jobId, JSON.stringify(result));
    await waitFor('the re-run to end', () => jobEvents.slice(started).find((s) => s.jobId === result.jobId && s.done), 120_000);
    await waitFor('its result', () => (api.results.shown.length > before ? true : undefined), 10_000);
    // A re-run on a loaded machine may honestly measure noise; either way the new
    // notification is about this function, carries a verdict, and never says that nothing
    // was applied (the rewrite is in the file).
    const latest = api.results.shown[api.results.shown.length - 1];
    assert.ok(latest.includes(FUNCTION) && /×|rewrite stays/.test(latest) && !latest.includes('nothing applied'), latest);
    await sleep(300);
    assert.strictEqual(api.results.open, 1, 'one result notification is open: the new one');
    const told = api.controller.shownMessages.slice(toldBefore);
    assert.deepStrictEqual(told.filter((m) => m.message.includes(FUNCTION)), [], `no second notification about the result: ${JSON.stringify(told)}`);
  });

  test('after Developer: Reload Window, the lens, inlay hint, hover and Revert come back as they were, with the rewrite unsaved and saved; Revert restores the original byte for byte', async () => {
    const lensTitles = async (): Promise<string[]> =>
      ((await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', doc.uri, 10)) ?? []).map((l) => l.command?.title ?? '');
    const hintLabels = async (): Promise<string[]> =>
      ((await vscode.commands.executeCommand<vscode.InlayHint[]>('vscode.executeInlayHintProvider', doc.uri, new vscode.Range(0, 0, doc.lineCount, 0))) ?? []).map((h) =>
        typeof h.label === 'string' ? h.label : h.label.map((p) => p.value).join(''),
      );
    const hoverAt = async (): Promise<string> =>
      hoverText((await vscode.commands.executeCommand<vscode.Hover[]>('vscode.executeHoverProvider', doc.uri, doc.positionAt(doc.getText().indexOf(`${FUNCTION}(`) + 2))) ?? []);
    const onDisk = (): string => fs.readFileSync(doc.uri.fsPath, 'utf8');
    /** What the editor shows about the rewrite, kept across a reload. */
    const shownNow = async (): Promise<Record<string, string>> => {
      const lens = await waitFor('the result lens', async () => {
        const t = await lensTitles();
        return t.includes('Revert') ? t : undefined;
      }, 20_000);
      return { lens: JSON.stringify(lens), hints: JSON.stringify(await hintLabels()), hover: await hoverAt() };
    };
    /** After a reload: a new extension host and a new server; only the workspace's .perfpilot/
     * state (and the editor's backup of an unsaved buffer) is left. Everything is as before. */
    const sameAsBefore = async (saved: Record<string, string>): Promise<void> => {
      const lensBefore = JSON.parse(saved.lens) as string[];
      const lens = await waitUpTo(async () => {
        const t = await lensTitles();
        return t.includes('Revert') && JSON.stringify(t) === saved.lens ? t : undefined;
      }, 30_000);
      assert.deepStrictEqual(lens ?? (await lensTitles()), lensBefore, 'the lens line is as before the reload');
      assert.deepStrictEqual(await hintLabels(), JSON.parse(saved.hints), 'the inlay hints are as before');
      const hover = await hoverAt();
      assert.ok(hover.includes(FUNCTION), `the hover is back: ${hover}`);
      assert.strictEqual(hover, saved.hover, 'the hover is as before');
    };
    const saved = reloadedWith();
    if (!saved) {
      // First reload with the rewrite unsaved: the editor restores the buffer from its backup
      // and sends that text to the new server (the file on disk is the original).
      assert.notStrictEqual(doc.getText(), original, 'the function is rewritten before the reload');
      assert.ok(doc.isDirty && onDisk() === original, `the rewrite is not saved (dirty: ${doc.isDirty})`);
      const shown = await shownNow();
      // VS Code backs an unsaved buffer up a moment after its last change, and refuses to
      // unload the window while that backup is pending.
      await sleep(3000);
      await reloadWindow({ phase: 'unsaved', original, rewritten: doc.getText(), ...shown });
    }
    assert.ok(saved);
    doc = await vscode.workspace.openTextDocument(doc.uri);
    editor = await vscode.window.showTextDocument(doc);
    assert.strictEqual(doc.getText(), saved.rewritten, 'the rewrite is still in the editor');
    if (saved.phase === 'unsaved') {
      assert.ok(doc.isDirty && onDisk() === original, 'the unsaved buffer was restored, the file is as it was');
      await sameAsBefore(saved);
      // Second reload with the rewrite saved: the reload reads it from disk.
      await doc.save();
      await reloadWindow({ ...saved, phase: 'saved', ...(await shownNow()) });
    }
    assert.strictEqual(saved.phase, 'saved');
    assert.ok(!doc.isDirty && onDisk() === saved.rewritten, 'the rewrite is in the file');
    await sameAsBefore(saved);
    const pos = doc.positionAt(doc.getText().indexOf(`${FUNCTION}(`) + 2);
    editor.selection = new vscode.Selection(pos, pos);
    const result = (await vscode.commands.executeCommand('perfpilot.client.revert')) as { applied?: boolean; message?: string } | undefined;
    assert.strictEqual(result?.applied, true, JSON.stringify(result));
    await waitFor('the original text', () => (doc.getText() === original ? true : undefined), 10_000);
    assert.strictEqual(Buffer.from(doc.getText()).compare(Buffer.from(original)), 0, 'byte for byte');
    await doc.save();
    assert.strictEqual(onDisk(), original, 'the file on disk is the original');
    assert.strictEqual(path.basename(doc.uri.fsPath), 'sums.cpp');
  });

  test('Explain performance plans without editing, and the plan shows on hover', async () => {
    const text = doc.getText();
    const inDups = doc.positionAt(text.indexOf('++count') + 1);
    editor = await vscode.window.showTextDocument(doc);
    editor.selection = new vscode.Selection(inDups, inDups);
    const started = jobEvents.length;
    const result = (await vscode.commands.executeCommand('perfpilot.client.explain')) as { jobId?: string } | undefined;
    assert.ok(result?.jobId, JSON.stringify(result));
    await waitFor('the plan job to finish', () => jobEvents.slice(started).find((s) => s.jobId === result.jobId && s.done), 90_000);
    assert.strictEqual(doc.getText(), text, 'explain never edits');
    const namePosDups = doc.positionAt(text.indexOf('count_duplicates(') + 2);
    const hovers = await waitFor(
      'the plan on hover',
      async () => {
        const h = await vscode.commands.executeCommand<vscode.Hover[]>('vscode.executeHoverProvider', doc.uri, namePosDups);
        return h && CATEGORIES.some((c) => hoverText(h).includes(c)) ? h : undefined;
      },
      20_000,
    );
    assert.match(hoverText(hovers), /count_duplicates/);
  });

  test('Cancel stops a running job and leaves the function as it was', async () => {
    const text = doc.getText();
    const inDups = doc.positionAt(text.indexOf('++count') + 1);
    editor = await vscode.window.showTextDocument(doc);
    editor.selection = new vscode.Selection(inDups, inDups);
    const started = jobEvents.length;
    const result = (await vscode.commands.executeCommand('perfpilot.client.makeFaster')) as { jobId?: string } | undefined;
    assert.ok(result?.jobId, JSON.stringify(result));
    await waitFor('the job to be tracked', () => api.controller.jobs.runningJobs().find((j) => j.jobId === result.jobId), 10_000, 100);
    const cancelled = (await vscode.commands.executeCommand('perfpilot.client.cancel')) as { cancelled?: boolean } | undefined;
    assert.strictEqual(cancelled?.cancelled, true, JSON.stringify(cancelled));
    const done = await waitFor('the job to end', () => jobEvents.slice(started).find((s) => s.jobId === result.jobId && s.done), 60_000);
    assert.match(`${done.stage} ${done.message ?? ''}`, /cancel/i);
    await sleep(1000);
    assert.strictEqual(doc.getText(), text, 'a cancelled job does not edit');
    assert.strictEqual(api.controller.jobs.runningJobs().length, 0);
  });

  test('applyMode preview: the rewrite waits in the refactor preview until the user decides', async () => {
    assert.strictEqual(doc.getText(), original);
    const config = vscode.workspace.getConfiguration('perfpilot');
    await config.update('applyMode', 'preview', vscode.ConfigurationTarget.Workspace);
    const hintLabels = async (): Promise<string[]> =>
      (
        (await vscode.commands.executeCommand<vscode.InlayHint[]>('vscode.executeInlayHintProvider', doc.uri, new vscode.Range(0, 0, doc.lineCount, 0))) ?? []
      ).map((h) => (typeof h.label === 'string' ? h.label : h.label.map((p) => p.value).join('')));
    const lensTitles = async (): Promise<string[]> =>
      ((await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', doc.uri, 10)) ?? []).map((l) => l.command?.title ?? '');
    /** Runs Make this faster and waits until the Refactor Preview shows the change. */
    const previewed = async (shot?: string): Promise<string> => {
      const started = jobEvents.length;
      const result = (await vscode.commands.executeCommand('perfpilot.client.makeFaster', doc.uri, bodyPos)) as { jobId?: string } | undefined;
      assert.ok(result?.jobId, JSON.stringify(result));
      await waitFor('the edit to await confirmation', () => jobEvents.slice(started).find((s) => s.jobId === result.jobId && (s.stage === 'awaiting confirmation' || s.done)), 90_000, 500);
      await waitFor('the Refactor Preview', async () => ((await queryPage('refactor-preview', '.monaco-workbench .part.panel >> text=Refactor Preview')).count > 0 ? true : undefined), 20_000);
      // VS Code updates the lenses of a focused editor only (the preview panel took the focus).
      await vscode.window.showTextDocument(doc);
      await sleep(1500);
      if (shot) {
        await screenshot(shot);
      }
      assert.strictEqual(doc.getText(), original, 'nothing is applied before the user decides');
      // One stage stream: the lens line on screen shows the stage the status bar shows.
      assert.match(api.statusBar.text, /· awaiting confirmation/);
      await waitFor(
        'the lens line to show the status bar\'s stage',
        async () => ((await queryPage('preview-lens-stage', '.monaco-editor .codelens-decoration a')).texts.includes('PerfPilot: awaiting confirmation…') ? true : undefined),
        15_000,
      );
      // The change is ticked: its row's checkbox is checked, so the diff shows the rewrite.
      const ticked = await queryPage('refactor-preview-ticked', '.monaco-workbench .part.panel .monaco-list-row:has-text("sums.cpp") .edit-checkbox.checked');
      assert.ok(ticked.count > 0, `the change to sums.cpp is ticked: ${JSON.stringify(ticked)}`);
      // Only the change is listed, every row ticked, and no row squashes its checkbox.
      const rows = await queryPage('refactor-preview-rows', '.monaco-workbench .part.panel .monaco-list-row .edit-checkbox');
      const unticked = await queryPage('refactor-preview-unticked', '.monaco-workbench .part.panel .monaco-list-row .edit-checkbox:not(.checked)');
      assert.ok(rows.count >= 2 && unticked.count === 0, `every row of the preview is ticked: ${rows.count} rows, ${unticked.count} unticked`);
      const widths = (rows.boxes ?? []).map((b) => b.width);
      assert.ok(widths.every((w) => w >= widths[0] - 1), `no checkbox is squashed: ${JSON.stringify(widths)}`);
      return result.jobId;
    };
    try {
      // Apply: the ticked change is applied, and the result is claimed on the rewritten code.
      const applied = await previewed('refactor-preview');
      await vscode.commands.executeCommand('refactorPreview.apply');
      await waitFor('the rewrite in the document', () => (doc.getText() !== original ? true : undefined), 20_000);
      await waitFor('the job to finish', () => jobEvents.find((s) => s.jobId === applied && s.done), 60_000);
      await vscode.window.showTextDocument(doc);
      await waitFor('the result lens with Revert', async () => ((await lensTitles()).includes('Revert') ? true : undefined), 20_000);
      const reverted = (await vscode.commands.executeCommand('perfpilot.client.revert', doc.uri, bodyPos)) as { applied?: boolean } | undefined;
      assert.strictEqual(reverted?.applied, true, JSON.stringify(reverted));
      await waitFor('the original text', () => (doc.getText() === original ? true : undefined), 10_000);
      // Discard: the function stays as it was and nothing claims a figure for it.
      const discarded = await previewed();
      await vscode.commands.executeCommand('refactorPreview.discard').then(undefined, () => undefined);
      await waitFor('the job to finish', () => jobEvents.find((s) => s.jobId === discarded && s.done), 60_000);
      await vscode.window.showTextDocument(doc);
      await sleep(1000);
      assert.strictEqual(doc.getText(), original);
      const titles = await lensTitles();
      assert.ok(!titles.some((t) => t.includes('×')), `no figure on the unchanged function: ${JSON.stringify(titles)}`);
      assert.ok(titles.some((t) => t.startsWith('PerfPilot: not applied')), JSON.stringify(titles));
      assert.ok(!(await hintLabels()).some((l) => l.includes('×')), 'no inlay hint on the unchanged function');
    } finally {
      await config.update('applyMode', undefined, vscode.ConfigurationTarget.Workspace);
    }
  });

  test('applyMode ask: the rewrite shows as a diff beside the question, which quotes the latest figure (a Re-run asks again with its own)', async () => {
    assert.strictEqual(doc.getText(), original);
    const config = vscode.workspace.getConfiguration('perfpilot');
    await config.update('applyMode', 'ask', vscode.ConfigurationTarget.Workspace);
    const confirmations = api.controller.confirmations;
    const figure = (t: string): string | undefined => /(\d+(?:\.\d+)?)×/.exec(t)?.[1];
    const diffTabs = (): vscode.Tab[] =>
      vscode.window.tabGroups.all
        .flatMap((g) => g.tabs)
        .filter((t) => t.input instanceof vscode.TabInputTextDiff && t.input.original.toString() === doc.uri.toString() && t.input.modified.scheme === 'perfpilot-proposal');
    /** Runs the command; its job's question, or undefined when the job ended without one (a noisy run). */
    const questionOf = async (command: string): Promise<(typeof confirmations.asked)[number] | undefined> => {
      const started = jobEvents.length;
      const r = (await vscode.commands.executeCommand(command, doc.uri, bodyPos)) as { jobId?: string } | undefined;
      assert.ok(r?.jobId, JSON.stringify(r));
      await waitFor(
        'the question or the end of the job',
        () => (confirmations.asked.some((q) => q.jobId === r.jobId) || jobEvents.slice(started).some((s) => s.jobId === r.jobId && s.done) ? true : undefined),
        180_000,
      );
      return confirmations.asked.find((q) => q.jobId === r.jobId);
    };
    try {
      // The measurement decides whether there is anything to ask: a busy machine gets a second try.
      const first = (await questionOf('perfpilot.client.makeFaster')) ?? (await questionOf('perfpilot.client.makeFaster'));
      assert.ok(first, 'Make this faster asks before applying');
      assert.strictEqual(first.original, original);
      assert.ok(first.message.startsWith(`PerfPilot: apply the rewrite of ${FUNCTION}? Measured: `) && figure(first.message), first.message);
      await waitFor('the diff of the rewrite', () => (diffTabs().length === 1 ? true : undefined), 10_000);
      const proposal = await vscode.workspace.openTextDocument((diffTabs()[0].input as vscode.TabInputTextDiff).modified);
      assert.strictEqual(proposal.getText(), first.proposed);
      assert.ok(first.proposed !== original && first.proposed.startsWith(before), 'the diff shows a change inside the function');
      assert.strictEqual(doc.getText(), original, 'nothing is applied before the answer');
      await waitFor('the question beside the diff', () => (confirmations.openCount === 1 ? true : undefined), 10_000);
      await screenshot('ask-diff');
      // Re-run while the question is open: the older question closes, and the new
      // measurement asks with its own figure (a noisy one has nothing to ask).
      const second = await questionOf('perfpilot.client.rerun');
      if (!second) {
        await waitFor('the older question to close', () => (confirmations.openCount === 0 && diffTabs().length === 0 ? true : undefined), 10_000);
        assert.strictEqual(doc.getText(), original);
        console.log('PERFPILOT_E2E ask: the re-run came out without a candidate; its older question was withdrawn');
        return;
      }
      assert.notStrictEqual(second.jobId, first.jobId);
      await waitFor('one open question, with one diff', () => (confirmations.openCount === 1 && diffTabs().length === 1 ? true : undefined), 10_000);
      await sleep(1000); // the quick pick takes the focus
      await typeKeys('ask-apply', '{Enter}'); // the first item: Apply
      await waitFor('the rewrite in the document', () => (doc.getText() === second.proposed ? true : undefined), 20_000);
      await waitFor('the diff to close', () => (diffTabs().length === 0 ? true : undefined), 10_000);
      await vscode.window.showTextDocument(doc);
      const titles = await waitFor(
        'the result lens',
        async () => {
          const t = ((await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', doc.uri, 10)) ?? []).map((l) => l.command?.title ?? '');
          return t.includes('Revert') && t.some((x) => x.startsWith('⚡')) ? t : undefined;
        },
        20_000,
      );
      const lens = titles.find((t) => t.startsWith('⚡'))!;
      assert.strictEqual(figure(lens), figure(second.message), `the lens and the question give one figure: ${lens} / ${second.message}`);
    } finally {
      await config.update('applyMode', undefined, vscode.ConfigurationTarget.Workspace);
      if (doc.getText() !== original) {
        const reverted = (await vscode.commands.executeCommand('perfpilot.client.revert', doc.uri, bodyPos)) as { applied?: boolean } | undefined;
        assert.strictEqual(reverted?.applied, true, JSON.stringify(reverted));
        await waitFor('the original text', () => (doc.getText() === original ? true : undefined), 10_000);
      }
    }
  });

  test('needs-spec: a function whose inputs PerfPilot cannot build gets the hint and the Quick Fix, no failure toast, and its saved draft is not measured', async () => {
    const folder = vscode.workspace.workspaceFolders![0].uri;
    const handles = await vscode.workspace.openTextDocument(vscode.Uri.joinPath(folder, 'handles.cpp'));
    await vscode.window.showTextDocument(handles);
    const text = handles.getText();
    const inside = handles.positionAt(text.indexOf('v.front()') + 2);
    const hint = 'PerfPilot cannot build inputs for ends: ';
    const shownBefore = api.results.shown.length;
    const toldBefore = api.controller.shownMessages.length;
    const started = jobEvents.length;
    const result = (await vscode.commands.executeCommand('perfpilot.client.makeFaster', handles.uri, inside)) as { jobId?: string } | undefined;
    assert.ok(result?.jobId, JSON.stringify(result));
    await waitFor('the job to end', () => jobEvents.slice(started).find((s) => s.jobId === result.jobId && s.done), 180_000);
    assert.strictEqual(handles.getText(), text, 'nothing is applied');
    // The result notification says what PerfPilot cannot do and points at the Quick Fix.
    await waitFor('the result notification', () => (api.results.shown.length > shownBefore ? true : undefined), 10_000);
    const told = api.results.shown[api.results.shown.length - 1];
    assert.ok(told.startsWith(hint) && told.includes('Quick Fix'), told);
    assert.ok(!/perfpilot spec|did not build/.test(told) && !told.includes(folder.fsPath), told);
    // The lens: the hint and "Draft a bench spec", a command of the editor, never a command line.
    const lenses = await waitFor(
      'the needs-spec lens',
      async () => {
        const l = (await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', handles.uri, 10)) ?? [];
        return l.some((x) => x.command?.title.startsWith(hint)) ? l : undefined;
      },
      20_000,
    );
    const titles = lenses.map((l) => l.command?.title ?? '');
    assert.ok(!titles.some((t) => /did not build|candidate/.test(t)), `the lens never blames the rewrite: ${JSON.stringify(titles)}`);
    const draftLens = lenses.find((l) => l.command?.title === 'Draft a bench spec');
    assert.strictEqual(draftLens?.command?.command, 'perfpilot.draftBenchSpec', JSON.stringify(titles));
    assert.ok(titles.indexOf('Draft a bench spec') < titles.findIndex((t) => t.startsWith(hint)), JSON.stringify(titles));
    // The diagnostic is a hint linked to the Quick Fix.
    const diag = vscode.languages.getDiagnostics(handles.uri).find((d) => d.message.startsWith(hint));
    assert.ok(diag, JSON.stringify(vscode.languages.getDiagnostics(handles.uri)));
    assert.strictEqual(diag.severity, vscode.DiagnosticSeverity.Information);
    assert.ok(diag.message.includes('Draft a bench spec for ends') && !diag.message.includes('perfpilot spec'), diag.message);
    const actions = (
      (await vscode.commands.executeCommand<(vscode.CodeAction | vscode.Command)[]>('vscode.executeCodeActionProvider', handles.uri, diag.range)) ?? []
    ).filter((a): a is vscode.CodeAction => 'kind' in a && a.kind?.value === 'quickfix.perfpilot.spec');
    assert.strictEqual(actions.length, 1, JSON.stringify(actions.map((a) => a.title)));
    const [fix] = actions;
    assert.strictEqual(fix.title, 'PerfPilot: Draft a bench spec for ends');
    assert.strictEqual(fix.command?.command, 'perfpilot.draftBenchSpec');
    // No failure toast: nothing the server showed besides the result (every window/showMessage
    // passes through the extension, which keeps what it showed).
    const noFailure = (when: string): void => {
      const told = api.controller.shownMessages.slice(toldBefore);
      const failures = told.filter((m) => m.level !== 'info' || /PerfPilot: ends:|did not build|not applied — /.test(m.message));
      assert.deepStrictEqual(failures, [], `no failure notification ${when}: ${JSON.stringify(told)}`);
    };
    noFailure('after the job');
    // Draft opens the spec; saved with its TODO markers, it is not measured.
    const drafted = (await vscode.commands.executeCommand(fix.command!.command, ...(fix.command!.arguments ?? []))) as { created?: boolean; uri?: string } | undefined;
    assert.ok(drafted?.uri?.endsWith('/.perfpilot/ends.bench.cpp'), JSON.stringify(drafted));
    const spec = await waitFor(
      'the draft in an editor',
      () => {
        const active = vscode.window.activeTextEditor?.document;
        return active?.uri.toString() === drafted?.uri ? active : undefined;
      },
      15_000,
    );
    await waitFor('the draft text', () => (spec.getText().includes('TODO') ? true : undefined), 10_000);
    const jobsBefore = jobEvents.length;
    await spec.save();
    await sleep(5000);
    const after = jobEvents.slice(jobsBefore);
    assert.deepStrictEqual(after, [], `nothing runs on the unfinished draft: ${JSON.stringify(after)}`);
    noFailure('after the draft');
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    editor = await vscode.window.showTextDocument(doc);
  });

  test('Set API key stores the key in secret storage and sends it to the server, never to logs', async () => {
    const key = 'sk-e2e-7f3a9c1d';
    const before = secretsSet();
    const done = vscode.commands.executeCommand('perfpilot.client.setApiKey');
    await sleep(1000);
    await typeKeys('api-key-role', '{Enter}'); // "Both roles"
    await sleep(1000);
    await typeKeys('api-key-value', `${key}{Enter}`);
    await done;
    // The server acknowledges in its log (window/logMessage), without the value.
    await waitFor('the server to log that the key was set', () => (secretsSet() > before ? true : undefined), 15_000);
    assert.ok(!logText().includes(key), 'the key never reaches the log');
    const settingsFile = path.join(vscode.workspace.workspaceFolders![0].uri.fsPath, '.vscode', 'settings.json');
    assert.ok(!fs.readFileSync(settingsFile, 'utf8').includes(key), 'the key is not in settings');
  });

  test('a crashed server is restarted and answers again', async () => {
    const client = api.controller.languageClient;
    const keysSent = secretsSet();
    // The client keeps the child process privately; killing it is what a crash looks like.
    const pid = (client as unknown as { _serverProcess?: { pid?: number } } | undefined)?._serverProcess?.pid;
    assert.ok(pid, 'the server process id is known');
    process.kill(pid, 'SIGKILL');
    await waitFor(
      'a new server process',
      () => {
        const now = (api.controller.languageClient as unknown as { _serverProcess?: { pid?: number } } | undefined)?._serverProcess?.pid;
        return now && now !== pid && api.controller.languageClient?.isRunning() ? now : undefined;
      },
      60_000,
    );
    const status = (await api.controller.executeCommand('perfpilot.status', {})) as Record<string, unknown>;
    assert.ok(status && 'planner' in status, JSON.stringify(status));
    assert.strictEqual(api.controller.state, 'running');
    // The key from the previous test lives only in the server's memory: it is sent again.
    await waitFor('the API key to be sent to the new server', () => (secretsSet() > keysSent ? true : undefined), 15_000);
  });

  test('without a configured interpreter and no server on PATH, the user is told and Install fixes it', async function () {
    const config = vscode.workspace.getConfiguration('perfpilot');
    const configured = config.inspect<string[]>('interpreter')?.workspaceValue;
    await config.update('interpreter', undefined, vscode.ConfigurationTarget.Workspace);
    try {
      const settled = await waitFor(
        'the restart without an interpreter setting',
        () => (api.controller.state === 'error' || (api.controller.state === 'running' && api.controller.lastCheck?.interpreter.source !== 'setting') ? api.controller.state : undefined),
        60_000,
      );
      if (settled === 'running') {
        console.log(`PERFPILOT_E2E install skipped: ${api.controller.lastCheck?.interpreter.command} already has the server`);
        this.skip();
      }
      const check = api.controller.lastCheck?.check;
      assert.ok(check && !check.ok && check.reason === 'not-installed', JSON.stringify(api.controller.lastCheck));
      // Extension-test mode logs notifications to the console instead of showing them.
      const note = await waitUpTo(async () => {
        const found = await consoleLines('server-missing', 'The PerfPilot server is not installed for python3');
        return found.count > 0 ? found : undefined;
      }, 10_000);
      assert.ok(note, 'the user is told that the server is not installed');
      if (!e2eConfig().install) {
        console.log('PERFPILOT_E2E install step skipped (PERFPILOT_E2E_INSTALL is not 1)');
        return;
      }
      // The private environment: python3 -m venv in global storage, the bundled wheel pip-installed.
      await vscode.commands.executeCommand('perfpilot.client.installServer');
      await waitFor('the server from the private environment', () => (api.controller.state === 'running' ? true : undefined), 60_000);
      assert.strictEqual(api.controller.lastCheck?.interpreter.source, 'private-venv', JSON.stringify(api.controller.lastCheck));
      const status = (await api.controller.executeCommand('perfpilot.status', {})) as Record<string, unknown>;
      assert.ok(status && 'planner' in status, JSON.stringify(status));
    } finally {
      await config.update('interpreter', configured, vscode.ConfigurationTarget.Workspace);
      await waitFor('the configured server again', () => (api.controller.state === 'running' && api.controller.lastCheck?.interpreter.source === 'setting' ? true : undefined), 60_000);
    }
  });
});
