import type { SsoConnection, SsoConnectionFields } from '../domain/sso-connection.ts';
import type { Db } from './db.ts';

interface Row {
  id: number;
  uuid: string;
  name: string;
  provider: string;
  entry_point: string;
  issuer: string;
  idp_certificate: string;
  created_at: number;
  updated_at: number;
}

const toConnection = (r: Row): SsoConnection => ({
  id: r.id,
  uuid: r.uuid,
  name: r.name,
  provider: r.provider,
  entryPoint: r.entry_point,
  issuer: r.issuer,
  idpCertificate: r.idp_certificate,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

/** SAML SSO connections (`sso_…`). */
export function ssoConnectionsStore(db: Db) {
  const all = db.prepare<[], Row>('SELECT * FROM sso_connections ORDER BY id');
  const byUuid = db.prepare<[string], Row>('SELECT * FROM sso_connections WHERE uuid = ?');
  const insert = db.prepare(
    `INSERT INTO sso_connections(uuid, name, provider, entry_point, issuer, idp_certificate, created_at, updated_at)
     VALUES (@uuid, @name, @provider, @entryPoint, @issuer, @idpCertificate, @now, @now)`,
  );
  const update = db.prepare(
    'UPDATE sso_connections SET name=@name, provider=@provider, entry_point=@entryPoint, issuer=@issuer, idp_certificate=@idpCertificate, updated_at=@now WHERE uuid=@uuid',
  );
  const del = db.prepare('DELETE FROM sso_connections WHERE uuid = ?');
  const pagesUsing = db.prepare<[string], { name: string }>(
    "SELECT name FROM statuspages WHERE json_extract(settings, '$.authentication.sso_connection_uuid') = ? ORDER BY id",
  );
  return {
    list: (): SsoConnection[] => all.all().map(toConnection),
    get: (uuid: string): SsoConnection | undefined => {
      const r = byUuid.get(uuid);
      return r && toConnection(r);
    },
    insert(uuid: string, f: SsoConnectionFields, now: number): SsoConnection {
      insert.run({ uuid, ...f, now });
      return toConnection(byUuid.get(uuid)!);
    },
    update(uuid: string, f: SsoConnectionFields, now: number): SsoConnection {
      update.run({ uuid, ...f, now });
      return toConnection(byUuid.get(uuid)!);
    },
    delete: (uuid: string): boolean => del.run(uuid).changes === 1,
    /** Names of the status pages whose settings name this connection. */
    pagesUsing: (uuid: string): string[] => pagesUsing.all(uuid).map((r) => r.name),
  };
}

/** The SSO connections store's interface. */
export type SsoConnectionsStore = ReturnType<typeof ssoConnectionsStore>;
