import type { Config } from './schema.ts';

/**
 * The store's target from the config (its shape is src/store/open.ts's StorageTarget): SQLite in
 * `data_dir`, or PostgreSQL at `storage.postgres_url` (env PHAROS_DATABASE_URL sets both keys).
 * @param nativeBinding the better-sqlite3 addon inside the single executable (lib/sea.ts)
 */
export function storageTarget(config: Readonly<Config>, nativeBinding?: object) {
  const s = config.storage;
  if (s.driver === 'postgres') {
    return { driver: 'postgres' as const, url: s.postgres_url!, poolSize: s.postgres_pool_size, statementTimeoutMs: s.postgres_statement_timeout_ms };
  }
  return { driver: 'sqlite' as const, dataDir: config.data_dir, nativeBinding };
}
