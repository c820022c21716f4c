import type { Hono } from 'hono';
import type { HttpDeps } from '../context.ts';
import { AuditPage, type AuditFilterValues } from '../../../views/console/audit.tsx';
import { fromZodError } from '../errors.ts';
import { AuditQuery, auditRequest, encodeAuditCursor, nonEmpty } from '../api/audit-log.ts';
import { page, shellOf, type ConsoleEnv } from './context.ts';
import { formErrors } from './forms.ts';

const FIELDS = ['resource_type', 'resource_uuid', 'actor_type', 'actor_id', 'since', 'until'] as const;

/**
 * The Audit log page (`GET /audit-log`, issue 32 point 5): the filters of `GET /v1/audit-log` as a
 * GET form (works without JavaScript), newest first, "Older changes" by cursor. Every signed-in
 * person may read it (a `read` token reads the API's); bad filters → 400 with the field named.
 */
export function auditRoutes(app: Hono<ConsoleEnv>, deps: HttpDeps): void {
  const { core } = deps;
  app.get('/audit-log', async (c) => {
    const raw = nonEmpty(c.req.query());
    const filter = Object.fromEntries(FIELDS.map((k) => [k, raw[k] ?? ''])) as unknown as AuditFilterValues;
    const parsed = AuditQuery.safeParse(raw);
    if (!parsed.success) {
      const errors = formErrors(fromZodError(parsed.error, 'query'));
      return page(c, AuditPage({ s: shellOf(c, '/audit-log'), v: { entries: [], filter, nextHref: null, errors } }), 400);
    }
    const r = auditRequest(parsed.data);
    const got = await core.auditLog.page(r.filter, r.limit, r.cursor);
    let nextHref: string | null = null;
    if (got.next) {
      const q = new URLSearchParams({ ...Object.fromEntries(FIELDS.flatMap((k) => (raw[k] ? [[k, raw[k]]] : []))), cursor: encodeAuditCursor(got.next) });
      if (raw.limit) q.set('limit', raw.limit);
      nextHref = `/audit-log?${q.toString()}`;
    }
    return page(c, AuditPage({ s: shellOf(c, '/audit-log'), v: { entries: got.entries, filter, nextHref } }));
  });
}
