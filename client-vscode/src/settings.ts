// The server's settings as the extension sends them: section `perfpilot`, nested objects,
// camelCase keys (docs/protocol.md). Client-only keys (interpreter, serverSource, trace) stay here.

/** Reads one key of the `perfpilot` configuration section (dotted, e.g. `planner.backend`). */
export interface ConfigReader {
  get<T>(key: string): T | undefined;
  /** Where the value comes from (VS Code's WorkspaceConfiguration.inspect). */
  inspect?<T>(key: string): ConfigSources<T> | undefined;
}

/** The values a setting has at each level; `defaultValue` is package.json's. */
export interface ConfigSources<T> {
  defaultValue?: T;
  globalValue?: T;
  workspaceValue?: T;
  workspaceFolderValue?: T;
  defaultLanguageValue?: T;
  globalLanguageValue?: T;
  workspaceLanguageValue?: T;
  workspaceFolderLanguageValue?: T;
}

/** Whether the user set the key at some level (VS Code's `get` answers package.json's default
 * for an unset key, which would hide the workspace's .perfpilot.toml from the server). */
function isSet(cfg: ConfigReader, key: string): boolean {
  const sources = cfg.inspect?.<unknown>(key);
  if (!sources) {
    return true; // a reader that cannot tell: its `get` answers only set keys
  }
  const levels = [
    sources.globalValue,
    sources.workspaceValue,
    sources.workspaceFolderValue,
    sources.globalLanguageValue,
    sources.workspaceLanguageValue,
    sources.workspaceFolderLanguageValue,
  ];
  return levels.some((v) => v !== undefined && v !== null);
}

import packageJson from '../package.json';

/** Keys that only the extension reads; changing `interpreter` needs a server restart. */
export const CLIENT_ONLY_KEYS = ['interpreter', 'serverSource', 'trace.server'] as const;

/**
 * The server's keys (dotted, without `perfpilot.`), read from the settings package.json
 * contributes: they are stated once there, and a server test keeps them equal to its own.
 */
export const SERVER_KEYS: readonly string[] = packageJson.contributes.configuration
  .flatMap((group: { properties: object }) => Object.keys(group.properties))
  .map((key) => key.replace(/^perfpilot\./, ''))
  .filter((key) => !(CLIENT_ONLY_KEYS as readonly string[]).includes(key));

/** Top-level sections (`planner`, `runner`, ...) and keys (`applyMode`) of the server's settings. */
export const SERVER_SECTIONS: readonly string[] = [...new Set(SERVER_KEYS.map((k) => k.split('.')[0]))];

export type Role = 'planner' | 'optimizer';
export const ROLES: readonly Role[] = ['planner', 'optimizer'];

export interface ServerSettings {
  planner: Record<string, unknown>;
  optimizer: Record<string, unknown>;
  runner: Record<string, unknown>;
  [section: string]: unknown;
}

/** The server's part of the configuration, shaped as the server expects it: nested objects. */
export function readServerSettings(cfg: ConfigReader): ServerSettings {
  const out: ServerSettings = { planner: {}, optimizer: {}, runner: {} };
  for (const key of SERVER_KEYS) {
    const value = cfg.get<unknown>(key);
    // Unset keys are left out so that the server's defaults and config files apply.
    if (value === undefined || value === null || !isSet(cfg, key)) {
      continue;
    }
    const parts = key.split('.');
    let node: Record<string, unknown> = out;
    for (const part of parts.slice(0, -1)) {
      if (typeof node[part] !== 'object' || node[part] === null) {
        node[part] = {};
      }
      node = node[part] as Record<string, unknown>;
    }
    node[parts[parts.length - 1]] = value;
  }
  return out;
}

/** What a configuration change means for the running server. */
export type ChangeEffect = 'restart' | 'push' | 'none';

/** Classifies a change; `affects(section)` answers ConfigurationChangeEvent.affectsConfiguration. */
export function changeEffect(affects: (section: string) => boolean): ChangeEffect {
  // The language client follows perfpilot.trace.server by itself.
  if (affects('perfpilot.interpreter')) {
    return 'restart';
  }
  const serverSections = SERVER_SECTIONS.map((k) => `perfpilot.${k}`);
  return serverSections.some(affects) ? 'push' : 'none';
}

/** Short text for the status bar, in words: `built-in planner` with the built-in backends,
 * else each role with its backend and model (`planner local:perfcoder-1.5b · optimizer built-in`). */
export function backendSummary(settings: ServerSettings): string {
  const describe = (role: Record<string, unknown>): string => {
    const backend = typeof role.backend === 'string' ? role.backend : 'builtin';
    const model = typeof role.model === 'string' && role.model ? role.model : '';
    if (backend === 'builtin') {
      return 'built-in';
    }
    if (!model) {
      return backend;
    }
    const tail = model.split(/[\\/]/).filter(Boolean).pop() ?? model;
    return `${backend}:${tail}`;
  };
  const planner = describe(settings.planner);
  const optimizer = describe(settings.optimizer);
  if (planner === 'built-in' && optimizer === 'built-in') {
    return 'built-in planner';
  }
  return `planner ${planner} · optimizer ${optimizer}`;
}
