import type { PageSection, PageSettings, Statuspage } from '../domain/statuspage.ts';
import type { Db } from './db.ts';

interface Row {
  id: number;
  uuid: string;
  name: string;
  subdomain: string;
  hostname: string | null;
  settings: string;
  sections: string;
  password_hash: string | null;
  created_at: number;
  updated_at: number;
}

const toPage = (r: Row): Statuspage => ({
  id: r.id,
  uuid: r.uuid,
  name: r.name,
  subdomain: r.subdomain,
  hostname: r.hostname,
  settings: JSON.parse(r.settings) as PageSettings,
  sections: JSON.parse(r.sections) as PageSection[],
  passwordHash: r.password_hash,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

/** Status page rows. */
export function statuspagesStore(db: Db) {
  const page = db.prepare<[number, number], Row>('SELECT * FROM statuspages ORDER BY id LIMIT ? OFFSET ?');
  const count = db.prepare<[], { n: number }>('SELECT count(*) AS n FROM statuspages');
  const MATCH = "(name LIKE @q ESCAPE '\\' OR subdomain LIKE @q ESCAPE '\\' OR hostname LIKE @q ESCAPE '\\')";
  const searchPage = db.prepare<[{ q: string; limit: number; offset: number }], Row>(`SELECT * FROM statuspages WHERE ${MATCH} ORDER BY id LIMIT @limit OFFSET @offset`);
  const searchCount = db.prepare<[{ q: string }], { n: number }>(`SELECT count(*) AS n FROM statuspages WHERE ${MATCH}`);
  const byUuid = db.prepare<[string], Row>('SELECT * FROM statuspages WHERE uuid = ?');
  const byId = db.prepare<[number], Row>('SELECT * FROM statuspages WHERE id = ?');
  const bySubdomain = db.prepare<[string], Row>('SELECT * FROM statuspages WHERE subdomain = ?');
  const byHostname = db.prepare<[string], Row>('SELECT * FROM statuspages WHERE hostname = ?');
  const insert = db.prepare(
    `INSERT INTO statuspages(uuid, name, subdomain, hostname, settings, sections, password_hash, created_at, updated_at)
     VALUES (@uuid, @name, @subdomain, @hostname, @settings, @sections, @password_hash, @now, @now)`,
  );
  const update = db.prepare(
    `UPDATE statuspages SET name=@name, subdomain=@subdomain, hostname=@hostname, settings=@settings, sections=@sections,
       password_hash=@password_hash, updated_at=@now WHERE uuid=@uuid`,
  );
  const del = db.prepare('DELETE FROM statuspages WHERE uuid = ?');
  type Fields = Pick<Statuspage, 'name' | 'subdomain' | 'hostname' | 'settings' | 'sections' | 'passwordHash'>;
  const params = (uuid: string, f: Fields, now: number) => ({
    uuid,
    name: f.name,
    subdomain: f.subdomain,
    hostname: f.hostname,
    settings: JSON.stringify(f.settings),
    sections: JSON.stringify(f.sections),
    password_hash: f.passwordHash,
    now,
  });
  const one = (r: Row | undefined) => r && toPage(r);
  return {
    /**
     * One page of status pages (oldest first) and the total; with `search`, only those whose name,
     * subdomain or hostname contains it (case-insensitive for ASCII; `%` and `_` are literal).
     */
    list(limit: number, offset: number, search?: string) {
      if (!search) return { items: page.all(limit, offset).map(toPage), total: count.get()!.n };
      const q = `%${search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      return { items: searchPage.all({ q, limit, offset }).map(toPage), total: searchCount.get({ q })!.n };
    },
    get: (uuid: string): Statuspage | undefined => one(byUuid.get(uuid)),
    getById: (id: number): Statuspage | undefined => one(byId.get(id)),
    bySubdomain: (subdomain: string): Statuspage | undefined => one(bySubdomain.get(subdomain)),
    byHostname: (hostname: string): Statuspage | undefined => one(byHostname.get(hostname)),
    insert(uuid: string, f: Fields, now: number): Statuspage {
      insert.run(params(uuid, f, now));
      return toPage(byUuid.get(uuid)!);
    },
    update(uuid: string, f: Fields, now: number): Statuspage {
      update.run(params(uuid, f, now));
      return toPage(byUuid.get(uuid)!);
    },
    delete: (uuid: string): boolean => del.run(uuid).changes === 1,
  };
}

/** The status pages store's interface. */
export type StatuspagesStore = ReturnType<typeof statuspagesStore>;
