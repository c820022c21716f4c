import type { AuditAction, AuditActorType, AuditCursor, AuditDiff, AuditEntry, AuditFilter, AuditPage, AuditResourceType, NewAuditEntry } from '../domain/audit.ts';
import type { Db, Statement } from './driver.ts';

interface Row {
  id: number;
  at: number;
  actor_type: string;
  actor_id: string;
  actor_name: string;
  action: string;
  resource_type: string;
  resource_uuid: string;
  resource_name: string;
  diff: string;
}

const toEntry = (r: Row): AuditEntry => ({
  id: r.id,
  at: r.at,
  actor: { type: r.actor_type as AuditActorType, id: r.actor_id, name: r.actor_name },
  action: r.action as AuditAction,
  resourceType: r.resource_type as AuditResourceType,
  resourceUuid: r.resource_uuid,
  resourceName: r.resource_name,
  diff: JSON.parse(r.diff) as AuditDiff,
});

/** Largest page {@link auditLogStore}'s `page` returns. */
export const AUDIT_PAGE_MAX = 500;

/** Filter columns, in the order their conditions are written (one statement per combination, prepared once). */
const CONDITIONS: Array<[keyof AuditFilter, string]> = [
  ['resourceType', 'resource_type = ?'],
  ['resourceUuid', 'resource_uuid = ?'],
  ['actorType', 'actor_type = ?'],
  ['actorId', 'actor_id = ?'],
  ['since', 'at >= ?'],
  ['until', 'at < ?'],
];

/**
 * The audit log (issue 32 point 5): table `audit_log`, append-only. Diffs arrive masked (domain/audit.ts
 * `auditDiff`); the store keeps them as given.
 */
export function auditLogStore(db: Db) {
  const insert = db.prepare<[number, string, string, string, string, string, string, string, string], { id: number }>(
    `INSERT INTO audit_log(at, actor_type, actor_id, actor_name, action, resource_type, resource_uuid, resource_name, diff)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
  );
  const pages = new Map<string, Statement<unknown[], Row>>();
  const creator = db.prepare<[string, string], { actor_name: string }>(
    "SELECT actor_name FROM audit_log WHERE resource_type = ? AND resource_uuid = ? AND action = 'create' ORDER BY id LIMIT 1",
  );
  return {
    /** Per uuid of `resourceType`: the name of the actor of its `create` entry, when there is one. */
    createdBy(resourceType: AuditResourceType, uuids: string[]): Record<string, string> {
      return Object.fromEntries(uuids.flatMap((u) => {
        const r = creator.get(resourceType, u);
        return r ? [[u, r.actor_name]] : [];
      }));
    },
    /**
     * Appends one entry.
     * @returns its id (ascending in insertion order on one database)
     */
    append(e: NewAuditEntry): number {
      return insert.get(e.at, e.actor.type, e.actor.id, e.actor.name, e.action, e.resourceType, e.resourceUuid, e.resourceName, JSON.stringify(e.diff))!.id;
    },
    /**
     * One page of entries matching `filter`, newest first (by `at`, then `id`), starting after
     * `after` (the `next` of the previous page). `limit` is clamped to 1..{@link AUDIT_PAGE_MAX}.
     */
    page(filter: AuditFilter, limit: number, after?: AuditCursor | null): AuditPage {
      const used = CONDITIONS.filter(([k]) => filter[k] !== undefined);
      const shape = used.map(([k]) => k).join(',') + (after ? ',after' : '');
      let stmt = pages.get(shape);
      if (!stmt) {
        const where = used.map(([, c]) => c);
        if (after) where.push('(at < ? OR (at = ? AND id < ?))');
        stmt = db.prepare<unknown[], Row>(`SELECT * FROM audit_log ${where.length ? 'WHERE ' + where.join(' AND ') : ''} ORDER BY at DESC, id DESC LIMIT ?`);
        pages.set(shape, stmt);
      }
      const n = Math.min(Math.max(Math.trunc(limit) || 1, 1), AUDIT_PAGE_MAX);
      const args: unknown[] = used.map(([k]) => filter[k]);
      if (after) args.push(after.at, after.at, after.id);
      const rows = stmt.all(...args, n + 1);
      const entries = rows.slice(0, n).map(toEntry);
      const last = entries.at(-1);
      return { entries, next: rows.length > n && last ? { at: last.at, id: last.id } : null };
    },
  };
}

/** The audit log store's interface. */
export type AuditLogStore = ReturnType<typeof auditLogStore>;
