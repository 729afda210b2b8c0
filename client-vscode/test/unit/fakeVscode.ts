// A fake of the small part of the `vscode` module that the unit-tested code touches. Importing
// this file first makes `require('vscode')` return the fake.
import Module = require('module');
import * as path from 'path';

/** Flat configuration values, keyed like `perfpilot.planner.backend`. */
export const fakeSettings = new Map<string, unknown>();

/** Installed extensions by id, as `vscode.extensions.getExtension` returns them. */
export const fakeExtensions = new Map<string, { isActive: boolean; exports: unknown; activate(): Promise<unknown> }>();

export class Uri {
  private constructor(
    readonly scheme: string,
    readonly path: string,
  ) {}
  static file(p: string): Uri {
    return new Uri('file', p);
  }
  static from(parts: { scheme: string; path: string }): Uri {
    return new Uri(parts.scheme, parts.path);
  }
  static joinPath(base: Uri, ...segments: string[]): Uri {
    return new Uri(base.scheme, path.posix.join(base.path, ...segments));
  }
  get fsPath(): string {
    return this.path;
  }
  toString(): string {
    return `${this.scheme}://${this.path}`;
  }
}

export class EventEmitter<T> {
  private listeners: ((e: T) => void)[] = [];
  readonly event = (listener: (e: T) => void): { dispose(): void } => {
    this.listeners.push(listener);
    return { dispose: () => (this.listeners = this.listeners.filter((l) => l !== listener)) };
  };
  fire(e: T): void {
    for (const l of this.listeners) {
      l(e);
    }
  }
  dispose(): void {
    this.listeners = [];
  }
}

export const fakeWorkspaceFolder = { uri: Uri.file('/ws/project'), name: 'project', index: 0 };

/** Notifications shown with withProgress: their titles, and whether each is still open. */
export const fakeProgress: { title: string; open: boolean; reported: unknown[] }[] = [];

export const fakeVscode = {
  Uri,
  EventEmitter,
  ProgressLocation: { SourceControl: 1, Window: 10, Notification: 15 },
  workspace: {
    workspaceFolders: [fakeWorkspaceFolder],
    getWorkspaceFolder: () => fakeWorkspaceFolder,
    getConfiguration(section?: string) {
      const prefix = section ? `${section}.` : '';
      return {
        get<T>(key: string, fallback?: T): T | undefined {
          const full = prefix + key;
          return fakeSettings.has(full) ? (fakeSettings.get(full) as T) : fallback;
        },
        has: (key: string) => fakeSettings.has(prefix + key),
      };
    },
  },
  extensions: {
    getExtension: (id: string) => fakeExtensions.get(id),
  },
  window: {
    withProgress<R>(options: { title?: string }, task: (progress: { report(value: unknown): void }) => Promise<R>): Promise<R> {
      const shown = { title: options.title ?? '', open: true, reported: [] as unknown[] };
      fakeProgress.push(shown);
      return task({ report: (value) => shown.reported.push(value) }).finally(() => {
        shown.open = false;
      });
    },
  },
  commands: {},
};

/** Resets the fake's state between tests. */
export function resetFake(): void {
  fakeProgress.length = 0;
  fakeSettings.clear();
  fakeExtensions.clear();
}

type Loader = (request: string, parent: unknown, isMain: boolean) => unknown;
const moduleWithLoad = Module as unknown as { _load: Loader };
const realLoad = moduleWithLoad._load;
moduleWithLoad._load = function load(request: string, parent: unknown, isMain: boolean): unknown {
  return request === 'vscode' ? fakeVscode : realLoad.call(this, request, parent, isMain);
};
