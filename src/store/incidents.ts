import type { Component, ComponentStatus, Incident, IncidentType, IncidentUpdate } from '../domain/incident.ts';
import type { LocalizedText } from '../domain/localized.ts';
import type { Db } from './db.ts';

interface IncidentRow {
  id: number;
  uuid: string;
  title: string;
  type: IncidentType;
  affected_components: string;
  statuspages: string;
  started_at: number | null;
  created_at: number;
  updated_at: number;
}
interface ComponentRow {
  id: number;
  uuid: string;
  name: string;
  description: string | null;
  status: ComponentStatus;
  created_at: number;
  updated_at: number;
}

const toComponent = (r: ComponentRow): Component => ({ id: r.id, uuid: r.uuid, name: r.name, description: r.description, status: r.status, createdAt: r.created_at, updatedAt: r.updated_at });

/** Status-page incidents with their updates, and components. */
export function incidentsStore(db: Db) {
  const all = db.prepare<[], IncidentRow>('SELECT * FROM incidents ORDER BY created_at DESC, id DESC');
  const byUuid = db.prepare<[string], IncidentRow>('SELECT * FROM incidents WHERE uuid = ?');
  const updatesOf = db.prepare<[number], { uuid: string; at: number; text: string; type: IncidentUpdate['type'] }>('SELECT uuid, at, text, type FROM incident_updates WHERE incident_id = ? ORDER BY at, id');
  const insert = db.prepare<[Record<string, unknown>], { id: number }>(
    'INSERT INTO incidents(uuid, title, type, affected_components, statuspages, started_at, created_at, updated_at) VALUES (@uuid, @title, @type, @affected, @pages, @started, @now, @now) RETURNING id',
  );
  const update = db.prepare('UPDATE incidents SET title=@title, type=@type, affected_components=@affected, statuspages=@pages, started_at=@started, updated_at=@now WHERE uuid=@uuid');
  const touch = db.prepare('UPDATE incidents SET updated_at = ? WHERE id = ?');
  const del = db.prepare('DELETE FROM incidents WHERE uuid = ?');
  const addUpdate = db.prepare('INSERT INTO incident_updates(incident_id, uuid, at, text, type) VALUES (?, ?, ?, ?, ?)');
  const clearUpdates = db.prepare('DELETE FROM incident_updates WHERE incident_id = ?');

  const compAll = db.prepare<[], ComponentRow>('SELECT * FROM components ORDER BY name, id');
  const compByUuid = db.prepare<[string], ComponentRow>('SELECT * FROM components WHERE uuid = ?');
  const compInsert = db.prepare('INSERT INTO components(uuid, name, description, status, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)');
  const compUpdate = db.prepare('UPDATE components SET name = ?, description = ?, status = ?, updated_at = ? WHERE uuid = ?');
  const compDel = db.prepare('DELETE FROM components WHERE uuid = ?');

  const toIncident = (r: IncidentRow): Incident => ({
    id: r.id,
    uuid: r.uuid,
    title: JSON.parse(r.title) as LocalizedText,
    type: r.type,
    affectedComponents: JSON.parse(r.affected_components) as string[],
    statuspages: JSON.parse(r.statuspages) as string[],
    updates: updatesOf.all(r.id).map((u) => ({ uuid: u.uuid, at: u.at, text: JSON.parse(u.text) as LocalizedText, type: u.type })),
    startedAt: r.started_at,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  });
  type Fields = Pick<Incident, 'title' | 'type' | 'affectedComponents' | 'statuspages' | 'startedAt'>;
  const params = (uuid: string, f: Fields, now: number) => ({
    uuid,
    title: JSON.stringify(f.title),
    type: f.type,
    affected: JSON.stringify(f.affectedComponents),
    pages: JSON.stringify(f.statuspages),
    started: f.startedAt,
    now,
  });
  const putUpdates = (id: number, updates: readonly IncidentUpdate[]) => {
    for (const u of updates) addUpdate.run(id, u.uuid, u.at, JSON.stringify(u.text), u.type);
  };

  return {
    list: (): Incident[] => all.all().map(toIncident),
    get(uuid: string): Incident | undefined {
      const r = byUuid.get(uuid);
      return r && toIncident(r);
    },
    /** Inserts an incident with its updates. Call inside a transaction. */
    insert(uuid: string, f: Fields, updates: readonly IncidentUpdate[], now: number): Incident {
      const id = insert.get(params(uuid, f, now))!.id;
      putUpdates(id, updates);
      return toIncident(byUuid.get(uuid)!);
    },
    /** Replaces the fields, and the updates when `updates` is given. Call inside a transaction. */
    update(uuid: string, f: Fields, updates: readonly IncidentUpdate[] | undefined, now: number): Incident {
      update.run(params(uuid, f, now));
      const id = byUuid.get(uuid)!.id;
      if (updates) {
        clearUpdates.run(id);
        putUpdates(id, updates);
      }
      return toIncident(byUuid.get(uuid)!);
    },
    /** Appends one update. Call inside a transaction. */
    addUpdate(uuid: string, u: IncidentUpdate, now: number): Incident {
      const id = byUuid.get(uuid)!.id;
      putUpdates(id, [u]);
      touch.run(now, id);
      return toIncident(byUuid.get(uuid)!);
    },
    delete: (uuid: string): boolean => del.run(uuid).changes === 1,

    components: {
      list: (): Component[] => compAll.all().map(toComponent),
      get(uuid: string): Component | undefined {
        const r = compByUuid.get(uuid);
        return r && toComponent(r);
      },
      insert(uuid: string, c: Pick<Component, 'name' | 'description' | 'status'>, now: number): Component {
        compInsert.run(uuid, c.name, c.description, c.status, now, now);
        return toComponent(compByUuid.get(uuid)!);
      },
      update(uuid: string, c: Pick<Component, 'name' | 'description' | 'status'>, now: number): Component {
        compUpdate.run(c.name, c.description, c.status, now, uuid);
        return toComponent(compByUuid.get(uuid)!);
      },
      delete: (uuid: string): boolean => compDel.run(uuid).changes === 1,
    },
  };
}

/** The incidents store's interface. */
export type IncidentsStore = ReturnType<typeof incidentsStore>;
