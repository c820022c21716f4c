import { OpenAPIHono, createRoute, z } from '@hono/zod-openapi';
import { AUDIT_ACTOR_TYPES, AUDIT_RESOURCE_TYPES, type AuditCursor, type AuditEntry, type AuditFilter } from '../../domain/audit.ts';
import { iso } from '../../domain/time.ts';
import type { AppEnv, HttpDeps } from '../context.ts';
import { validationHook } from '../errors.ts';
import { COMMON_ERRORS, ErrorSchema, json } from './common.ts';

/** Entries per page unless `limit` says otherwise. */
export const AUDIT_DEFAULT_LIMIT = 50;

/** An opaque cursor: base64url of `<at>.<id>` of the last entry of the previous page. */
export const encodeAuditCursor = (c: AuditCursor): string => Buffer.from(`${c.at}.${c.id}`).toString('base64url');

/** The cursor `s` stands for, or null when it is not one this API gave. */
export function decodeAuditCursor(s: string): AuditCursor | null {
  const m = /^(\d{1,16})\.(\d{1,16})$/.exec(Buffer.from(s, 'base64url').toString('utf8'));
  return m ? { at: Number(m[1]), id: Number(m[2]) } : null;
}

const isoDate = z
  .string()
  .max(40, 'must be an ISO 8601 date or date-time')
  .refine((s) => /^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(s) && !Number.isNaN(Date.parse(s)), 'must be an ISO 8601 date or date-time, e.g. 2025-01-31 or 2025-01-31T12:00:00Z');

/** The filters of `GET /v1/audit-log` and of the console's Audit log page (empty values are left out first). */
export const AuditQuery = z.object({
  resource_type: z.enum(AUDIT_RESOURCE_TYPES, { error: `must be one of ${AUDIT_RESOURCE_TYPES.join(', ')}` }).optional(),
  resource_uuid: z.string().max(200, 'must be at most 200 characters').optional(),
  actor_type: z.enum(AUDIT_ACTOR_TYPES, { error: `must be one of ${AUDIT_ACTOR_TYPES.join(', ')}` }).optional(),
  actor_id: z.string().max(200, 'must be at most 200 characters').optional(),
  since: isoDate.optional().openapi({ description: 'entries at or after this ISO 8601 date or date-time (UTC unless it names a zone)' }),
  until: isoDate.optional().openapi({ description: 'entries before this ISO 8601 date or date-time' }),
  cursor: z
    .string()
    .max(100, 'is not a cursor this API gave')
    .refine((s) => decodeAuditCursor(s) !== null, 'is not a cursor this API gave: pass next_cursor of the previous page')
    .optional(),
  limit: z.coerce.number({ error: 'must be a whole number from 1 to 500' }).int('must be a whole number from 1 to 500').min(1, 'must be a whole number from 1 to 500').max(500, 'must be a whole number from 1 to 500').optional(),
});

/** A parsed {@link AuditQuery}. */
export type AuditQueryValues = z.infer<typeof AuditQuery>;

/** The core's page request of parsed filters. */
export function auditRequest(q: AuditQueryValues): { filter: AuditFilter; limit: number; cursor: AuditCursor | null } {
  return {
    filter: {
      resourceType: q.resource_type,
      resourceUuid: q.resource_uuid,
      actorType: q.actor_type,
      actorId: q.actor_id,
      since: q.since === undefined ? undefined : Date.parse(q.since),
      until: q.until === undefined ? undefined : Date.parse(q.until),
    },
    limit: q.limit ?? AUDIT_DEFAULT_LIMIT,
    cursor: q.cursor === undefined ? null : decodeAuditCursor(q.cursor),
  };
}

/** A query string's values with empty ones dropped (a GET form sends every field, most of them empty). */
export const nonEmpty = (q: Record<string, string>): Record<string, string> => Object.fromEntries(Object.entries(q).filter(([, v]) => v.trim() !== ''));

const EntrySchema = z
  .object({
    id: z.number().int(),
    at: z.string().openapi({ description: 'ISO 8601, UTC' }),
    actor: z.object({ type: z.enum(AUDIT_ACTOR_TYPES), id: z.string(), name: z.string() }),
    action: z.enum(['create', 'update', 'delete']),
    resource_type: z.enum(AUDIT_RESOURCE_TYPES),
    resource_uuid: z.string().openapi({ description: 'healthchecks: the public hc_ uuid' }),
    resource_name: z.string(),
    diff: z.record(z.string(), z.object({ before: z.unknown().optional(), after: z.unknown().optional() })).openapi({ description: 'changed fields (dotted paths) → before/after; secrets "***"' }),
  })
  .openapi('AuditEntry');

const PageSchema = z.object({ entries: z.array(EntrySchema), next_cursor: z.string().nullable() }).openapi('AuditLogPage');

/** An entry as the API shows it. */
export const auditEntryJson = (e: AuditEntry): z.infer<typeof EntrySchema> => ({
  id: e.id,
  at: iso(e.at),
  actor: e.actor,
  action: e.action,
  resource_type: e.resourceType,
  resource_uuid: e.resourceUuid,
  resource_name: e.resourceName,
  diff: e.diff,
});

/**
 * `GET /v1/audit-log` (issue 32 point 5): who changed what and when, newest first, filtered, paged by
 * cursor. Readable with a read or write token, as every read route.
 */
export function auditLogRouter(deps: Pick<HttpDeps, 'core'>) {
  const { core } = deps;
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  app.openapi(
    createRoute({
      method: 'get',
      path: '/',
      tags: ['Audit log'],
      summary: 'List audit log entries, newest first (filters; pages by next_cursor)',
      request: { query: AuditQuery },
      responses: { 200: json(PageSchema, 'A page of entries'), ...COMMON_ERRORS, 400: json(ErrorSchema, 'A filter is invalid; names the parameter') },
    }),
    async (c) => {
      const r = auditRequest(c.req.valid('query'));
      const page = await core.auditLog.page(r.filter, r.limit, r.cursor);
      return c.json({ entries: page.entries.map(auditEntryJson), next_cursor: page.next ? encodeAuditCursor(page.next) : null }, 200);
    },
  );
  return app;
}
