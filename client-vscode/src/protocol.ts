// PerfPilot's own protocol: command names, command arguments and custom notifications, as the
// server declares them (server/perfpilot/lsp/protocol.py; docs/protocol.md). Keep the two in step.

/** The server's executeCommand names. */
export const SERVER_COMMANDS = {
  makeFaster: 'perfpilot.makeFaster',
  explain: 'perfpilot.explain',
  rerun: 'perfpilot.rerun',
  revert: 'perfpilot.revert',
  cancel: 'perfpilot.cancel',
  showReport: 'perfpilot.showReport',
  testConnection: 'perfpilot.testConnection',
  status: 'perfpilot.status',
  profile: 'perfpilot.profile',
  showProfile: 'perfpilot.showProfile',
  confirmInProgram: 'perfpilot.confirmInProgram',
  cancelProfile: 'perfpilot.cancelProfile',
  draftBenchSpec: 'perfpilot.draftBenchSpec',
  showFlagPlace: 'perfpilot.showFlagPlace',
} as const;

/** The custom notifications' methods. */
export const NOTIFICATIONS = {
  jobStatus: 'perfpilot/jobStatus',
  result: 'perfpilot/result',
  setSecret: 'perfpilot/setSecret',
} as const;

/** Server → client requests. */
export const REQUESTS = {
  /** Ask mode, to a client that passed `confirmsRewrites: true`: show the rewrite and ask. */
  confirmRewrite: 'perfpilot/confirmRewrite',
} as const;

/** `PositionArgument`: a 0-based position inside a function (makeFaster, explain, rerun,
 * revert, showReport, confirmInProgram). `version`: the document version the action was
 * offered for; `open`: showReport also writes the report to a file and opens it. */
export interface PositionArgument {
  uri: string;
  line: number;
  character: number;
  version?: number | null;
  open?: boolean;
}

/** `DraftSpecArgument`: the function to draft a bench spec for, by qualified name (as the
 * code action sends it) or by a position inside it (the palette command). */
export interface DraftSpecArgument {
  uri: string;
  function?: string | null;
  line?: number;
  character?: number;
}

/** The result of `perfpilot.draftBenchSpec`: `created` when the draft was created through a
 * workspace edit; `uri`: the spec, opened either way (an existing one is never overwritten). */
export interface DraftSpecResult {
  created: boolean;
  uri?: string;
  message: string;
}

/** `CancelArgument`: a job by id, or the jobs of the function at a position. */
export interface CancelArgument {
  jobId?: string;
  uri?: string;
  line?: number;
  character?: number;
}

/** `TestConnectionArgument`: the role whose endpoint to test (default optimizer). */
export interface TestConnectionArgument {
  role?: 'planner' | 'optimizer';
}

/** `ProfileArgument`: profile the workspace's program ({}), or import a recorded profile. */
export interface ProfileArgument {
  import?: string;
  binary?: string;
}

/** Params of the server's `perfpilot/jobStatus` notification. */
export interface JobStatus {
  jobId: string;
  uri: string;
  function: string;
  kind: 'optimize' | 'explain' | 'rerun';
  stage: string;
  done: boolean;
  message: string;
}

/** Params of `perfpilot/setSecret`; an empty value clears the key. */
export interface SetSecretParams {
  name: 'apiKey';
  role?: 'planner' | 'optimizer';
  value: string;
}

/** Params of the server's `perfpilot/result` notification (sent instead of
 * `window/showMessage` to a client that passed `showsResults: true`): a job's result, which
 * replaces the previous result's notification. */
export interface ResultMessage {
  jobId: string;
  uri: string;
  function: string;
  message: string;
}

/** Params of the server's `perfpilot/confirmRewrite` request: the document's text now
 * (`original`) and with the rewrite (`proposed`), the question (`message`, quoting the latest
 * measured figure, which `measured` gives alone); `weak`: only weakly verified. */
export interface ConfirmRewriteParams {
  jobId: string;
  uri: string;
  function: string;
  message: string;
  measured: string;
  original: string;
  proposed: string;
  weak: boolean;
}

/** The answer to `perfpilot/confirmRewrite` ('' when the question was dismissed). */
export interface ConfirmRewriteResult {
  choice: 'Apply' | 'Discard' | '';
}
