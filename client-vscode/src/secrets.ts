// API keys live in VS Code's SecretStorage, never in settings; the server gets them through the
// perfpilot/setSecret notification and holds them in memory only.
import type { SetSecretParams } from './protocol';
import { Role, ROLES } from './settings';

export type { SetSecretParams };

/** The part of vscode.SecretStorage used here. */
export interface SecretStore {
  get(key: string): Thenable<string | undefined>;
}

/** SecretStorage key for the shared key (no role) or a role's own key. */
export function secretKey(role?: Role): string {
  return role ? `perfpilot.apiKey.${role}` : 'perfpilot.apiKey';
}

/** Which role a SecretStorage key belongs to: undefined for the shared key, null when not ours. */
export function roleOfSecretKey(key: string): Role | undefined | null {
  if (key === secretKey()) {
    return undefined;
  }
  const role = ROLES.find((r) => key === secretKey(r));
  return role ?? null;
}

/** The notifications that tell the server every stored key; unset keys are not sent. */
export async function allSecretMessages(store: SecretStore): Promise<SetSecretParams[]> {
  const out: SetSecretParams[] = [];
  for (const role of [undefined, ...ROLES]) {
    const value = await store.get(secretKey(role));
    if (value) {
      out.push(role ? { name: 'apiKey', role, value } : { name: 'apiKey', value });
    }
  }
  return out;
}

/** The notification for one changed key (value '' when it was deleted). */
export async function secretMessageFor(store: SecretStore, key: string): Promise<SetSecretParams | undefined> {
  const role = roleOfSecretKey(key);
  if (role === null) {
    return undefined;
  }
  const value = (await store.get(key)) ?? '';
  return role ? { name: 'apiKey', role, value } : { name: 'apiKey', value };
}
