import type { AuditAction, AuditActor, AuditCursor, AuditDiff, AuditFilter, AuditPage, AuditResourceType } from '../domain/audit.ts';
import type { Store } from '../store/index.ts';

/** What a write records of itself in the audit log: who acted, and when (epoch ms). */
export interface AuditStamp {
  actor: AuditActor;
  now: number;
}

/**
 * Appends an audit entry inside the write's own transaction (issue 32 point 5: the entry commits or
 * rolls back with the change). An update whose diff is empty (a form saved unchanged) records nothing.
 * @param tx the transaction-scoped store of the write's procedure
 */
export function recordAudit(
  tx: Store,
  stamp: AuditStamp,
  what: { action: AuditAction; resourceType: AuditResourceType; resourceUuid: string; resourceName: string; diff: AuditDiff },
): void {
  if (what.action === 'update' && Object.keys(what.diff).length === 0) return;
  tx.auditLog.append({ at: stamp.now, actor: stamp.actor, ...what });
}

/**
 * The actor of `pharos` CLI commands (`id` `cli`), of `pharos import kuma` (`kuma-import`), of
 * provisioning (`config.yaml`) and of a person's first console single sign-on (`sso`, named by the
 * OIDC provider's config name or the SAML connection's name).
 */
export const systemActor = (id: 'cli' | 'kuma-import' | 'config.yaml' | 'sso', name: string): AuditActor => ({ type: 'system', id, name });

/**
 * Reading the audit log (`GET /v1/audit-log`, the console's Audit log page): pages newest first,
 * without blocking the event loop.
 */
export function auditLogService(deps: { store: Store }) {
  const { store } = deps;
  return {
    /**
     * One page of entries matching `filter`, newest first; `limit` clamped to 1..500 by the store;
     * `cursor` the `next` of the previous page.
     */
    page: (filter: AuditFilter, limit: number, cursor: AuditCursor | null): Promise<AuditPage> => store.async.auditLog.page(filter, limit, cursor),
  };
}

/** The audit log service's interface. */
export type AuditLogService = ReturnType<typeof auditLogService>;
