import type { ChannelType } from './channels/index.ts';
import { isSecretPath, MASK } from './integration.ts';

/**
 * The audit log (issue 32 point 5): who changed what and when, with a diff whose secrets are masked.
 * It replaces the git history a team had of config.yaml once configuration lives in the database.
 */

/** What was done. */
export const AUDIT_ACTIONS = ['create', 'update', 'delete'] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** Who did it: a person signed in, an API token, or Pharos itself (provisioning from config.yaml, import). */
export const AUDIT_ACTOR_TYPES = ['user', 'token', 'system'] as const;
export type AuditActorType = (typeof AUDIT_ACTOR_TYPES)[number];

/** What it was done to. */
export const AUDIT_RESOURCE_TYPES = ['monitor', 'healthcheck', 'integration', 'escalation_policy', 'statuspage', 'user', 'token', 'settings', 'tag', 'maintenance_window', 'on_call_schedule'] as const;
export type AuditResourceType = (typeof AUDIT_RESOURCE_TYPES)[number];

/** The actor of an entry: its id (user uuid, token id, `config.yaml`…) and its name at the time. */
export interface AuditActor {
  type: AuditActorType;
  id: string;
  name: string;
}

/**
 * Changed fields: the dotted path of each changed leaf (nested objects are walked, arrays compared
 * whole) → its value before and after; `before` is absent for a field that did not exist, `after`
 * for one removed. Secrets are `***` on each side where they were set.
 */
export type AuditDiff = Record<string, { before?: unknown; after?: unknown }>;

/** One audit log entry. */
export interface AuditEntry {
  id: number;
  /** Epoch ms. */
  at: number;
  actor: AuditActor;
  action: AuditAction;
  resourceType: AuditResourceType;
  resourceUuid: string;
  /** The resource's name at the time (kept after a delete). */
  resourceName: string;
  diff: AuditDiff;
}

/** An entry to append (the store numbers it). */
export type NewAuditEntry = Omit<AuditEntry, 'id'>;

/** Filters of a page of the audit log; every one optional. */
export interface AuditFilter {
  resourceType?: AuditResourceType | undefined;
  resourceUuid?: string | undefined;
  actorType?: AuditActorType | undefined;
  actorId?: string | undefined;
  /** From this epoch ms, inclusive. */
  since?: number | undefined;
  /** Before this epoch ms, exclusive. */
  until?: number | undefined;
}

/** Where a page ends: the next page holds the entries older than this one (by `at`, then `id`). */
export interface AuditCursor {
  at: number;
  id: number;
}

/** A page of entries, newest first, and the cursor of the next page (null at the end). */
export interface AuditPage {
  entries: AuditEntry[];
  next: AuditCursor | null;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Leaves of `v`: path → value (an empty object is a leaf; arrays are leaves). */
function leaves(v: unknown, at: string[], out: Map<string, { path: string[]; value: unknown }>): void {
  if (isObject(v) && Object.keys(v).length > 0) {
    for (const [k, x] of Object.entries(v)) if (x !== undefined) leaves(x, [...at, k], out);
  } else if (at.length > 0) {
    out.set(JSON.stringify(at), { path: at, value: v });
  }
}

function equal(a: unknown, b: unknown): boolean {
  return a === b || JSON.stringify(a) === JSON.stringify(b);
}

/**
 * The changed fields between `before` and `after` (null: created / deleted), secrets masked: a leaf
 * whose path `isSecret` accepts is `***` on each side where it is set, and is listed only when its
 * plaintext changed, was set or removed (pass plaintext in, masked values would hide a change).
 */
export function auditDiff(before: Record<string, unknown> | null, after: Record<string, unknown> | null, isSecret: (path: readonly string[]) => boolean = () => false): AuditDiff {
  const b = new Map<string, { path: string[]; value: unknown }>();
  const a = new Map<string, { path: string[]; value: unknown }>();
  leaves(before ?? {}, [], b);
  leaves(after ?? {}, [], a);
  const diff: AuditDiff = {};
  for (const key of new Set([...b.keys(), ...a.keys()])) {
    const was = b.get(key);
    const now = a.get(key);
    if (was && now && equal(was.value, now.value)) continue;
    const path = (was ?? now)!.path;
    const show = (v: unknown) => (isSecret(path) && v !== null ? MASK : structuredClone(v));
    const entry: { before?: unknown; after?: unknown } = {};
    if (was) entry.before = show(was.value);
    if (now) entry.after = show(now.value);
    diff[path.join('.')] = entry;
  }
  return diff;
}

/**
 * The secret test of an integration's audit view `{name, kind, enabled, settings}`: the settings
 * paths that are secrets of `kind`.
 */
export function integrationSecretTest(kind: ChannelType): (path: readonly string[]) => boolean {
  return (path) => path[0] === 'settings' && isSecretPath(kind, path.slice(1));
}
