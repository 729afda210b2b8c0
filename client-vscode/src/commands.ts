// Arguments of the server's commands, built from the editor (docs/protocol.md, executeCommand).

import { type PositionArgument, SERVER_COMMANDS } from './protocol';

export { SERVER_COMMANDS };
export type { PositionArgument };

export type PositionCommand = 'makeFaster' | 'explain' | 'rerun' | 'revert' | 'showReport' | 'draftBenchSpec' | 'confirmInProgram';

/** The palette commands that act on the function at the cursor: one for every lens action. */
export const POSITION_COMMANDS: readonly PositionCommand[] = ['makeFaster', 'explain', 'rerun', 'revert', 'showReport', 'draftBenchSpec', 'confirmInProgram'];

/** The client-side command id for each palette entry (distinct from the server's ids). */
export function clientCommandId(name: string): string {
  return `perfpilot.client.${name}`;
}

export interface EditorLocation {
  uri: string;
  languageId: string;
  version: number;
  line: number;
  character: number;
}

export const SUPPORTED_LANGUAGES: readonly string[] = ['c', 'cpp'];

/** The argument for a position command, or an explanation of why there is none. */
export function positionArgument(command: PositionCommand, where: EditorLocation | undefined): PositionArgument | string {
  if (!where) {
    return 'Open a C or C++ file and put the cursor inside a function.';
  }
  if (!SUPPORTED_LANGUAGES.includes(where.languageId)) {
    return `PerfPilot works on C and C++ files, not ${where.languageId}.`;
  }
  const arg: PositionArgument = { uri: where.uri, line: where.line, character: where.character };
  if (command === 'makeFaster') {
    arg.version = where.version;
  }
  return arg;
}

/** What the user is told about a command's result; undefined when the editor shows it already. */
export function resultMessage(command: string, result: unknown): { level: 'info' | 'warning' | 'error'; text: string } | undefined {
  const r = (typeof result === 'object' && result !== null ? result : {}) as Record<string, unknown>;
  const message = typeof r.message === 'string' ? r.message : '';
  switch (command) {
    case SERVER_COMMANDS.testConnection:
      return r.ok === true
        ? { level: 'info', text: `PerfPilot: ${message || 'connection works'}` }
        : { level: 'error', text: `PerfPilot: ${message || 'connection failed'}` };
    case SERVER_COMMANDS.revert:
      // The server tells the user why a Revert did not apply (once: no second message here).
      return undefined;
    case SERVER_COMMANDS.cancel:
      return r.cancelled === false ? { level: 'info', text: 'PerfPilot: no running job to cancel.' } : undefined;
    case SERVER_COMMANDS.draftBenchSpec:
      // The draft (or the existing spec) is opened; the message says what to do with it.
      return message ? { level: r.created === true || typeof r.uri === 'string' ? 'info' : 'warning', text: `PerfPilot: ${message}` } : undefined;
    default:
      return undefined;
  }
}

/** The report's title: its first markdown heading, else the fallback. */
export function reportTitle(markdown: string, fallback: string): string {
  const heading = /^#{1,6}\s+(.+)$/m.exec(markdown);
  return heading ? heading[1].replace(/[`*]/g, '').trim() : fallback;
}

/** A command argument without its `open` flag (the server opens a report file when it is set). */
export function withoutOpen(arg: unknown): unknown {
  if (typeof arg !== 'object' || arg === null || !('open' in arg)) {
    return arg;
  }
  const { open: _open, ...rest } = arg as Record<string, unknown>;
  return rest;
}
