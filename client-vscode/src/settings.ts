// The server's settings as the extension sends them: section `perfpilot`, nested objects,
// camelCase keys (docs/protocol.md). Client-only keys (interpreter, serverSource, trace) stay here.

/** Reads one key of the `perfpilot` configuration section (dotted, e.g. `planner.backend`). */
export interface ConfigReader {
  get<T>(key: string): T | undefined;
}

export const ROLE_KEYS = [
  'backend',
  'model',
  'endpoint',
  'apiKeyEnv',
  'samples',
  'temperature',
  'maxTokens',
  'timeoutS',
  'device',
  'dtype',
  'threads',
] as const;

export const RUNNER_KEYS = [
  'enabled',
  'compiler',
  'flags',
  'threads',
  'openmp',
  'buildTimeoutS',
  'runTimeoutS',
  'pairs',
  'callgrind',
  'sandbox',
  'allowUnsandboxed',
] as const;

export const TOP_KEYS = ['applyMode', 'parallelPolicy', 'inlayHints'] as const;

/** Keys that only the extension reads; changing `interpreter` needs a server restart. */
export const CLIENT_ONLY_KEYS = ['interpreter', 'serverSource', 'trace.server'] as const;

export type Role = 'planner' | 'optimizer';
export const ROLES: readonly Role[] = ['planner', 'optimizer'];

export interface ServerSettings {
  planner: Record<string, unknown>;
  optimizer: Record<string, unknown>;
  runner: Record<string, unknown>;
  applyMode?: unknown;
  parallelPolicy?: unknown;
  inlayHints?: unknown;
}

function pick(cfg: ConfigReader, prefix: string, keys: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of keys) {
    const value = cfg.get<unknown>(prefix ? `${prefix}.${key}` : key);
    // Unset keys are left out so that the server's defaults and config files apply.
    if (value !== undefined && value !== null) {
      out[key] = value;
    }
  }
  return out;
}

/** The server's part of the configuration, shaped as the server expects it. */
export function readServerSettings(cfg: ConfigReader): ServerSettings {
  return {
    planner: pick(cfg, 'planner', ROLE_KEYS),
    optimizer: pick(cfg, 'optimizer', ROLE_KEYS),
    runner: pick(cfg, 'runner', RUNNER_KEYS),
    ...pick(cfg, '', TOP_KEYS),
  };
}

/** What a configuration change means for the running server. */
export type ChangeEffect = 'restart' | 'push' | 'none';

/** Classifies a change; `affects(section)` answers ConfigurationChangeEvent.affectsConfiguration. */
export function changeEffect(affects: (section: string) => boolean): ChangeEffect {
  // The language client follows perfpilot.trace.server by itself.
  if (affects('perfpilot.interpreter')) {
    return 'restart';
  }
  const serverSections = ['planner', 'optimizer', 'runner', ...TOP_KEYS].map((k) => `perfpilot.${k}`);
  return serverSections.some(affects) ? 'push' : 'none';
}

/** Short text for the status bar: `planner/optimizer` backends, with the model when there is one. */
export function backendSummary(settings: ServerSettings): string {
  const describe = (role: Record<string, unknown>): string => {
    const backend = typeof role.backend === 'string' ? role.backend : 'builtin';
    const model = typeof role.model === 'string' && role.model ? role.model : '';
    if (backend === 'builtin' || !model) {
      return backend;
    }
    const tail = model.split(/[\\/]/).filter(Boolean).pop() ?? model;
    return `${backend}:${tail}`;
  };
  return `${describe(settings.planner)} → ${describe(settings.optimizer)}`;
}
