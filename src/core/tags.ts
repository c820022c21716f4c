import type { Clock } from '../lib/clock.ts';
import { conflict, notFound } from '../lib/errors.ts';
import { ID_PREFIX, newId } from '../domain/ids.ts';
import { defaultTagColor, tagKey, type Tag } from '../domain/tags.ts';
import type { AuditActor } from '../domain/audit.ts';
import { auditDiff } from '../domain/audit.ts';
import { procedure } from '../store/async.ts';
import type { Store } from '../store/index.ts';
import { recordAudit } from './audit-log.ts';
import type { EventBus } from './events.ts';

const view = (t: Tag | null) => (t ? { name: t.name, color: t.color } : null);

/** @throws AppError 409 `tags.name_taken` when another tag already has `name` (any case) */
function mustBeFree(tx: Store, name: string, self?: string): void {
  const had = tx.tags.byName(name);
  if (had && had.uuid !== self) throw conflict('tags.name_taken', `name: a tag named "${had.name}" exists already`);
}

const createTag = procedure('tags.create', (tx: Store, a: { name: string; color: string | undefined; now: number; actor: AuditActor }): Tag => {
  mustBeFree(tx, a.name);
  const t = tx.tags.insert(newId(ID_PREFIX.tag), a.name, a.color ?? defaultTagColor(a.name), a.now);
  recordAudit(tx, a, { action: 'create', resourceType: 'tag', resourceUuid: t.uuid, resourceName: t.name, diff: auditDiff(null, view(t)) });
  return t;
});

/** A tag write's result: the tag, and the monitors carrying it (whose chips changed). */
type TagWrite = { tag: Tag; monitors: string[] };

const updateTag = procedure('tags.update', (tx: Store, a: { uuid: string; name?: string | undefined; color?: string | undefined; now: number; actor: AuditActor }): TagWrite => {
  const before = tx.tags.get(a.uuid);
  if (!before) throw notFound('tags', 'Tag');
  const name = a.name ?? before.name;
  if (tagKey(name) !== tagKey(before.name)) mustBeFree(tx, name, a.uuid);
  const t = tx.tags.update(a.uuid, name, a.color ?? before.color, a.now)!;
  recordAudit(tx, a, { action: 'update', resourceType: 'tag', resourceUuid: t.uuid, resourceName: t.name, diff: auditDiff(view(before), view(t)) });
  return { tag: t, monitors: tx.tags.monitorsWith(a.uuid) };
});

const deleteTag = procedure('tags.delete', (tx: Store, a: { uuid: string; now: number; actor: AuditActor }): TagWrite => {
  const t = tx.tags.get(a.uuid);
  if (!t) throw notFound('tags', 'Tag');
  recordAudit(tx, a, { action: 'delete', resourceType: 'tag', resourceUuid: t.uuid, resourceName: t.name, diff: auditDiff(view(t), null) });
  const monitors = tx.tags.monitorsWith(a.uuid);
  tx.tags.delete(a.uuid);
  return { tag: t, monitors };
});

const addTagTo = procedure('tags.addTo', (tx: Store, a: { monitorUuids: string[]; tag: { name: string; value?: string | undefined; color?: string | undefined }; now: number; actor: AuditActor }) => {
  const r = tx.tags.addTag(a.monitorUuids, { name: a.tag.name, value: a.tag.value ?? '', ...(a.tag.color ? { color: a.tag.color } : {}) }, a.now);
  const value = a.tag.value ? `:${a.tag.value}` : '';
  recordAudit(tx, a, { action: 'update', resourceType: 'tag', resourceUuid: r.tag.uuid, resourceName: r.tag.name, diff: auditDiff({ added_to: null }, { added_to: `${r.added} monitor(s) as "${r.tag.name}${value}"` }) });
  return r;
});

/**
 * Tag use cases (issue 33 point 5): `/v1/tags` and the console's bulk "add tag". Every write is one
 * transaction with its audit entry; monitors whose tags changed are announced after the commit as
 * `monitor.tagged` (the live console redraws their rows), not `monitor.updated`: tags change no check.
 */
export function tagsService(deps: { store: Store; clock: Clock; bus: EventBus }) {
  const { store, clock, bus } = deps;
  /** Announces the monitors whose chips changed (none: nothing). */
  const tagged = (uuids: string[]) => {
    if (uuids.length > 0) bus.emit('monitor.tagged', { uuids });
  };
  return {
    /** Every tag by name, with how many monitors carry it. */
    list: () => store.async.tags.list(),
    /** @throws AppError 404 `tags.not_found` */
    async get(uuid: string): Promise<Tag> {
      const t = await store.async.tags.get(uuid);
      if (!t) throw notFound('tags', 'Tag');
      return t;
    },
    /** Creates a tag (colour: its default when left out). @throws AppError 409 `tags.name_taken` */
    create: (b: { name: string; color?: string | undefined }, actor: AuditActor): Promise<Tag> => store.async.tx(createTag, { name: b.name, color: b.color, now: clock.now(), actor }),
    /** Renames and/or recolours a tag (fields left out keep their value). @throws AppError 404, 409 `tags.name_taken` */
    async update(uuid: string, b: { name?: string | undefined; color?: string | undefined }, actor: AuditActor): Promise<Tag> {
      const r = await store.async.tx(updateTag, { uuid, name: b.name, color: b.color, now: clock.now(), actor });
      tagged(r.monitors);
      return r.tag;
    },
    /** Deletes a tag; it leaves every monitor. @throws AppError 404 */
    async delete(uuid: string, actor: AuditActor): Promise<void> {
      tagged((await store.async.tx(deleteTag, { uuid, now: clock.now(), actor })).monitors);
    },
    /**
     * Bulk action: puts `tag` (`name`, optional `value` and, for a tag not yet stored, `color`) on
     * every monitor of `monitorUuids` (store/tags.ts `addTag`: unknown uuids and monitors that carry
     * it already are skipped). @returns the tag and how many monitors got it
     */
    async addTag(monitorUuids: string[], tag: { name: string; value?: string | undefined; color?: string | undefined }, actor: AuditActor): Promise<{ tag: Tag; added: number }> {
      const r = await store.async.tx(addTagTo, { monitorUuids, tag, now: clock.now(), actor });
      tagged(r.addedTo);
      return { tag: r.tag, added: r.added };
    },
    /** Every group name in use, sorted. */
    groups: (): Promise<string[]> => store.async.tags.groups(),
    /** Monitors whose name contains `q` or that carry a tag named `q` (at most `limit`, by name). */
    findMonitors: (q: string, limit: number) => store.async.tags.findMonitors(q, limit),
  };
}

/** The tags service's interface. */
export type TagsService = ReturnType<typeof tagsService>;
