// End-to-end: profile-guided targeting in a real VS Code. The workspace is a copy of
// examples/profiled (a CMake project whose .perfpilot.toml says how to build, run and test it):
// "Profile with PerfPilot" builds it and runs it under the real profiler, the two hot functions
// get lenses with their share of the run time, and after a rewrite "Confirm in program" puts the
// whole program's figure on the lens.
import * as assert from 'assert';
import * as vscode from 'vscode';
import type { PerfPilotApi } from '../../../src/extension';
import type { JobStatus } from '../../../src/jobs';
import { queryPage, screenshot, sleep, waitFor, waitUpTo } from './helpers';

const HOT = ['third_moment', 'count_equal_pairs'];

suite('Profile-guided targeting in VS Code', () => {
  let api: PerfPilotApi;
  let doc: vscode.TextDocument;
  const jobEvents: JobStatus[] = [];

  /** The lens titles on each line of the document. */
  const lensesByLine = async (): Promise<Map<number, string[]>> => {
    const lenses = (await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', doc.uri, 20)) ?? [];
    const byLine = new Map<number, string[]>();
    for (const lens of lenses) {
      byLine.set(lens.range.start.line, [...(byLine.get(lens.range.start.line) ?? []), lens.command?.title ?? '']);
    }
    return byLine;
  };
  /** The line of the function's signature (where its lenses sit). */
  const signatureLine = (name: string): number => doc.positionAt(doc.getText().search(new RegExp(`\\b${name}\\(`))).line;
  const showSource = async (name: string): Promise<vscode.TextEditor> => {
    const editor = await vscode.window.showTextDocument(doc, vscode.ViewColumn.One);
    const at = new vscode.Position(Math.max(signatureLine(name) - 2, 0), 0);
    editor.revealRange(new vscode.Range(at, at), vscode.TextEditorRevealType.AtTop);
    return editor;
  };

  suiteSetup(async () => {
    const folder = vscode.workspace.workspaceFolders![0].uri;
    doc = await vscode.workspace.openTextDocument(vscode.Uri.joinPath(folder, 'src', 'stats.cpp'));
    await vscode.window.showTextDocument(doc);
    const ext = vscode.extensions.getExtension<PerfPilotApi>('perfpilot.perfpilot');
    assert.ok(ext, 'the extension under development is loaded');
    api = await ext.activate();
    api.controller.onJobStatus((s) => jobEvents.push(s));
    await waitFor('the server to start', () => (api.controller.state === 'running' ? true : api.controller.state === 'error' ? false : undefined), 90_000);
    assert.strictEqual(api.controller.state, 'running', 'the server started (see the PerfPilot log)');
  });

  test('Profile with PerfPilot: the project\'s own function is named first, and the two hot functions get lenses with their share of the run time', async () => {
    assert.deepStrictEqual([...(await lensesByLine()).values()].flat().filter((t) => t.includes('of run time')), [], 'no profile yet');
    // The palette command: builds with CMake, runs the program under the profiler.
    const result = (await vscode.commands.executeCommand('perfpilot.client.profile')) as
      | { error?: string; functions?: { name: string; file?: string; selfShare?: number }[]; markdown?: string }
      | undefined;
    assert.ok(result && !result.error && result.functions, `the profile was taken: ${JSON.stringify(result)}`);
    for (const name of HOT) {
      assert.ok(result.functions.some((f) => f.name.startsWith(name)), `${name} is among the hot functions: ${JSON.stringify(result.functions.map((f) => f.name))}`);
    }
    // The first function the toast and the report name is the project's own (library code,
    // libm's pow here, comes under it).
    const toast = await waitFor(
      'the profile notification',
      () => api.controller.shownMessages.find((m) => m.message.startsWith('PerfPilot: profile taken; ')),
      15_000,
    );
    const lead = /^PerfPilot: profile taken; your hottest function is (\w+(?:::\w+)*)/.exec(toast.message)?.[1];
    assert.ok(lead && HOT.includes(lead), `the notification leads with the project's function: ${JSON.stringify(toast)}`);
    const markdown = result.markdown ?? '';
    const firstNamed = /`([^`]+)`/.exec(markdown)?.[1] ?? '';
    assert.ok(HOT.some((h) => firstNamed.startsWith(h)), `the report's first function is the project's own: ${firstNamed}`);
    const own = markdown.indexOf('### Your functions');
    const library = markdown.indexOf('### Library and system code');
    assert.ok(own >= 0 && (library < 0 || own < library), markdown);
    const hasShares = (lenses: Map<number, string[]>): boolean =>
      HOT.every((name) => (lenses.get(signatureLine(name)) ?? []).some((t) => /\d+(\.\d)?% of run time/.test(t)));
    await waitUpTo(async () => (hasShares(await lensesByLine()) ? true : undefined), 20_000);
    const byLine = await lensesByLine();
    const hot = result.functions.slice(0, 8).map((f) => `${f.name} ${f.file ?? '-'} ${f.selfShare}`);
    assert.ok(hasShares(byLine), `share lenses on ${HOT.join(', ')}: ${JSON.stringify([...byLine])}; hottest: ${JSON.stringify(hot)}`);
    for (const name of HOT) {
      const titles = byLine.get(signatureLine(name)) ?? [];
      assert.ok(titles.some((t) => /^\$\(flame\) \d+(\.\d)?% of run time/.test(t) && !t.includes('stale')), `${name}: ${JSON.stringify(titles)}`);
      assert.ok(titles.includes('Make this faster'), `${name}: ${JSON.stringify(titles)}`);
    }
    // third_moment's time is in libm's pow, which it calls: its lens leads with that share.
    assert.ok(
      (byLine.get(signatureLine(HOT[0])) ?? []).some((t) => /^\$\(flame\) \d+% of run time with callees \(\d+(\.\d)?% itself\)$/.test(t)),
      JSON.stringify([...byLine]),
    );

    // What the user sees: the lenses rendered above the functions in the editor.
    // The hot functions' list opened in the report view: close it, keep the source alone.
    await waitUpTo(() => (vscode.window.tabGroups.all.flatMap((g) => g.tabs).length > 1 ? true : undefined), 10_000);
    await sleep(1000);
    await vscode.window.showTextDocument(doc, vscode.ViewColumn.One);
    await vscode.commands.executeCommand('workbench.action.closeOtherEditors');
    await vscode.commands.executeCommand('workbench.action.closeEditorsInOtherGroups');
    await showSource(HOT[0]);
    const shown = await waitFor(
      'the lenses in the editor',
      async () => {
        const found = await queryPage('profile-lenses', '.part.editor .codelens-decoration');
        return found.texts.filter((t) => t.includes('of run time')).length >= HOT.length ? found : undefined;
      },
      20_000,
    );
    assert.ok(shown.texts.some((t) => t.includes('Make this faster')), JSON.stringify(shown.texts));
    await screenshot('profile-lenses');
  });

  test('after a rewrite of the hottest function, Confirm in program puts the program figure on the lens', async function () {
    this.timeout(480_000);
    const editor = await showSource(HOT[0]);
    const inBody = doc.positionAt(doc.getText().indexOf('std::pow(') + 2);
    editor.selection = new vscode.Selection(inBody, inBody);
    const original = doc.getText();
    const started = jobEvents.length;
    const job = (await vscode.commands.executeCommand('perfpilot.client.makeFaster', doc.uri, inBody)) as { jobId?: string } | undefined;
    assert.ok(job?.jobId, JSON.stringify(job));
    const done = await waitFor('the rewrite job to finish', () => jobEvents.slice(started).find((s) => s.jobId === job.jobId && s.done), 240_000);
    await waitFor(`the rewrite to be applied (job ended ${done.stage}: ${done.message})`, () => (doc.getText() !== original ? true : undefined), 10_000);
    assert.ok(!doc.getText().includes('std::pow(v[i] - centre, 3)'), 'the pow call was rewritten');

    const line = signatureLine(HOT[0]);
    const confirmTitle = await waitFor(
      'the Confirm in program lens',
      async () => ((await lensesByLine()).get(line) ?? []).find((t) => t.startsWith('Confirm in program')),
      20_000,
    );
    assert.strictEqual(confirmTitle, 'Confirm in program');
    // At 1280 px with the Explorer open, every action of the lens line is on screen.
    await vscode.commands.executeCommand('workbench.view.explorer');
    await showSource(HOT[0]);
    const shown = await waitFor(
      'the lens line with Confirm in program',
      async () => {
        const q = await queryPage('confirm-lens-line', '.monaco-editor .codelens-decoration a');
        return q.texts.includes('Confirm in program') ? q : undefined;
      },
      20_000,
    );
    for (const action of ['Details', 'Re-run', 'Revert', 'Confirm in program']) {
      const i = shown.texts.indexOf(action);
      const box = shown.boxes?.[i];
      assert.ok(i >= 0 && box && box.left >= box.clipLeft && box.right <= box.clipRight, `${action} is on screen: ${JSON.stringify(shown)}`);
    }
    // What the lens runs, from the palette with the cursor in the function: builds both
    // versions with CMake, runs ctest on the rewrite, times pairs of whole runs.
    const verdict = (await vscode.commands.executeCommand('perfpilot.client.confirmInProgram', doc.uri, new vscode.Position(line, 2))) as
      | { verdict?: string; speedup?: number; error?: string; message?: string }
      | undefined;
    assert.ok(verdict && !verdict.error, JSON.stringify(verdict));
    assert.ok(['faster', 'slower', 'no-change', 'noisy'].includes(verdict.verdict ?? ''), `the program was built, tested and timed: ${JSON.stringify(verdict)}`);
    const titles = await waitFor(
      'the program figure on the lens',
      async () => {
        const t = (await lensesByLine()).get(line) ?? [];
        return t.some((x) => x.startsWith('program: ')) ? t : undefined;
      },
      20_000,
    );
    assert.ok(titles.some((t) => /^program: \d+\.\d\d× .* \(95% CI \d+\.\d\d–\d+\.\d\d\)$/.test(t)), JSON.stringify(titles));
    // The profile describes the file before the rewrite: the share lens says it is stale.
    const shares = [...(await lensesByLine()).values()].flat().filter((t) => t.includes('of run time'));
    assert.ok(shares.length > 0 && shares.every((t) => t.includes('profile is stale')), JSON.stringify(shares));
    await showSource(HOT[0]);
    await waitUpTo(async () => ((await queryPage('program-lens', '.part.editor .codelens-decoration')).texts.some((t) => t.includes('program: ')) ? true : undefined), 15_000);
    await sleep(500);
    await screenshot('profile-confirmed');
  });
});
