import { ID_PREFIX, newId } from '../domain/ids.ts';
import { MAX_TAGS_PER_MONITOR, defaultTagColor, tagKey, type MonitorTag, type Tag, type TagRef } from '../domain/tags.ts';
import type { Db } from './db.ts';

interface TagRow {
  id: number;
  uuid: string;
  name: string;
  color: string;
  created_at: number;
  updated_at: number;
}

interface LinkRow {
  monitor_id: number;
  name: string;
  value: string;
  color: string;
}

const toTag = (r: TagRow): Tag => ({ id: r.id, uuid: r.uuid, name: r.name, color: r.color, createdAt: r.created_at, updatedAt: r.updated_at });
const toLink = (r: LinkRow): MonitorTag => ({ name: r.name, value: r.value, color: r.color });

const LINKS = `SELECT mt.monitor_id, t.name, mt.value, t.color FROM monitor_tags mt JOIN tags t ON t.id = mt.tag_id`;

/**
 * The tags on monitors (table `monitor_tags`), for the monitors store (store/monitors.ts reads and
 * writes a monitor's tags with its row, in the caller's transaction) and {@link tagsStore}.
 */
export function tagLinks(db: Db) {
  const all = db.prepare<[], LinkRow>(`${LINKS} ORDER BY mt.monitor_id, mt.position, t.name_key, mt.value`);
  const ofMonitor = db.prepare<[number], LinkRow>(`${LINKS} WHERE mt.monitor_id = ? ORDER BY mt.position, t.name_key, mt.value`);
  const byKey = db.prepare<[string], TagRow>('SELECT * FROM tags WHERE name_key = ?');
  const insertTag = db.prepare('INSERT INTO tags(uuid, name, name_key, color, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)');
  const clear = db.prepare('DELETE FROM monitor_tags WHERE monitor_id = ?');
  const link = db.prepare('INSERT INTO monitor_tags(monitor_id, tag_id, value, position) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING');

  /** The stored tag named `name` (any case), created with its default colour when there is none. */
  const ensure = (name: string, now: number, color?: string): TagRow => {
    const had = byKey.get(tagKey(name));
    if (had) return had;
    insertTag.run(newId(ID_PREFIX.tag), name, tagKey(name), color ?? defaultTagColor(name), now, now);
    return byKey.get(tagKey(name))!;
  };

  return {
    ensure,
    /** Every monitor's tags, by monitor id (monitors without tags are absent). */
    all(): Map<number, MonitorTag[]> {
      const out = new Map<number, MonitorTag[]>();
      for (const r of all.all()) {
        const list = out.get(r.monitor_id);
        if (list) list.push(toLink(r));
        else out.set(r.monitor_id, [toLink(r)]);
      }
      return out;
    },
    /** One monitor's tags, in the order given. */
    of: (monitorId: number): MonitorTag[] => ofMonitor.all(monitorId).map(toLink),
    /** Replaces a monitor's tags by `refs` (in this order), creating tags not yet stored (default colour). */
    set(monitorId: number, refs: readonly TagRef[], now: number): void {
      clear.run(monitorId);
      refs.forEach((r, i) => link.run(monitorId, ensure(r.name, now).id, r.value, i));
    },
  };
}

/**
 * Tags (`tag_…`, issue 33 point 5): table `tags` (name, colour) and bulk operations on monitors'
 * tags. A monitor's own tags are read and replaced with the monitor (store/monitors.ts).
 */
export function tagsStore(db: Db) {
  const links = tagLinks(db);
  const list = db.prepare<[], TagRow & { monitors: number }>(
    'SELECT t.*, (SELECT COUNT(DISTINCT mt.monitor_id) FROM monitor_tags mt WHERE mt.tag_id = t.id) AS monitors FROM tags t ORDER BY t.name_key',
  );
  const byUuid = db.prepare<[string], TagRow>('SELECT * FROM tags WHERE uuid = ?');
  const byKey = db.prepare<[string], TagRow>('SELECT * FROM tags WHERE name_key = ?');
  const insert = db.prepare('INSERT INTO tags(uuid, name, name_key, color, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)');
  const update = db.prepare('UPDATE tags SET name = ?, name_key = ?, color = ?, updated_at = ? WHERE uuid = ?');
  const del = db.prepare('DELETE FROM tags WHERE uuid = ?');
  const addOne = db.prepare(
    `INSERT INTO monitor_tags(monitor_id, tag_id, value, position)
     SELECT m.id, CAST(? AS bigint), CAST(? AS text), (SELECT COALESCE(MAX(x.position) + 1, 0) FROM monitor_tags x WHERE x.monitor_id = m.id)
     FROM monitors m WHERE m.uuid = ? AND (SELECT COUNT(*) FROM monitor_tags y WHERE y.monitor_id = m.id) < ${MAX_TAGS_PER_MONITOR}
     ON CONFLICT DO NOTHING`,
  );
  const carriers = db.prepare<[string], { uuid: string }>('SELECT DISTINCT m.uuid FROM monitor_tags mt JOIN tags t ON t.id = mt.tag_id JOIN monitors m ON m.id = mt.monitor_id WHERE t.uuid = ?');
  const groups = db.prepare<[], { name: string }>('SELECT DISTINCT group_name AS name FROM monitors WHERE group_name IS NOT NULL ORDER BY group_name');
  const search = db.prepare<[string, string, number], { uuid: string; name: string }>(
    `SELECT m.uuid, m.name FROM monitors m
     WHERE lower(m.name) LIKE ? ESCAPE '\\'
        OR EXISTS (SELECT 1 FROM monitor_tags mt JOIN tags t ON t.id = mt.tag_id WHERE mt.monitor_id = m.id AND t.name_key = ?)
     ORDER BY lower(m.name), m.id LIMIT ?`,
  );

  return {
    /** Every tag by name (case-insensitive), with how many monitors carry it. */
    list: (): Array<Tag & { monitors: number }> => list.all().map((r) => ({ ...toTag(r), monitors: Number(r.monitors) })),
    get(uuid: string): Tag | undefined {
      const r = byUuid.get(uuid);
      return r && toTag(r);
    },
    /** The tag named `name` (any case), or undefined. */
    byName(name: string): Tag | undefined {
      const r = byKey.get(tagKey(name));
      return r && toTag(r);
    },
    /** Inserts a tag; the caller checked that its name is free (unique `name_key` otherwise throws). */
    insert(uuid: string, name: string, color: string, now: number): Tag {
      insert.run(uuid, name, tagKey(name), color, now, now);
      return toTag(byUuid.get(uuid)!);
    },
    /** Renames and recolours a tag (every monitor carrying it shows the new name); undefined when unknown. */
    update(uuid: string, name: string, color: string, now: number): Tag | undefined {
      if (update.run(name, tagKey(name), color, now, uuid).changes === 0) return undefined;
      return toTag(byUuid.get(uuid)!);
    },
    /** Deletes a tag; it leaves every monitor that carried it. @returns false when unknown */
    delete: (uuid: string): boolean => del.run(uuid).changes === 1,
    /**
     * Bulk action (issue 33 point 5 "add tag"): puts tag `tag.name` (value `tag.value`, default none)
     * on every monitor of `monitorUuids`, creating the tag first when it does not exist (colour
     * `tag.color`, else its default). Unknown uuids, monitors already carrying the same tag and value,
     * and monitors at {@link MAX_TAGS_PER_MONITOR} are skipped. Run it in a transaction (core/tags.ts).
     * @returns the tag, how many monitors got it, and their uuids (`addedTo`: their rows to redraw)
     */
    addTag(monitorUuids: readonly string[], tag: { name: string; value?: string; color?: string }, now: number): { tag: Tag; added: number; addedTo: string[] } {
      const t = links.ensure(tag.name, now, tag.color);
      const addedTo: string[] = [];
      for (const u of monitorUuids) if (addOne.run(t.id, tag.value ?? '', u).changes > 0) addedTo.push(u);
      return { tag: toTag(t), added: addedTo.length, addedTo };
    },
    /** The uuids of the monitors carrying the tag `uuid` (any value): whose chips a rename, recolouring or deletion changes. */
    monitorsWith: (uuid: string): string[] => carriers.all(uuid).map((r) => r.uuid),
    /** Every group name in use, sorted. */
    groups: (): string[] => groups.all().map((r) => r.name),
    /**
     * Monitors whose name contains `q` (case-insensitive) or that carry a tag named `q`, by name; at
     * most `limit` (the console's monitor picker).
     */
    findMonitors(q: string, limit: number): Array<{ uuid: string; name: string }> {
      const needle = q.trim().toLowerCase();
      const like = `%${needle.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      return search.all(like, needle, limit);
    },
  };
}

/** The tags store's interface. */
export type TagsStore = ReturnType<typeof tagsStore>;
