import type { TestPharos } from './pharos.ts';
import { rawDb } from '../../src/store/index.ts';

const tables = new Map<string, string>();

/**
 * Makes `event` (`BEFORE INSERT`, `BEFORE UPDATE OF col`) on `table` of the server's own database fail
 * like an I/O error: a real trigger that aborts the statement (SQLite `RAISE(ABORT)`; on PostgreSQL,
 * under PHAROS_TEST_DRIVER, a PL/pgSQL trigger raising SQLSTATE `errcode` — `53100` stands in for a full disk).
 */
export function refuseWrites(p: TestPharos, name: string, event: string, table: string, errcode = 'XX000'): void {
  tables.set(name, table);
  if (rawDb(p.store).dialect === 'sqlite') {
    rawDb(p.store).exec(`CREATE TRIGGER ${name} ${event} ON ${table} BEGIN SELECT RAISE(ABORT, 'disk I/O error (test)'); END`);
    return;
  }
  rawDb(p.store).exec(`CREATE OR REPLACE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'disk I/O error (test)' USING ERRCODE = '${errcode}'; END $$;
    CREATE TRIGGER ${name} ${event} ON ${table} FOR EACH ROW EXECUTE FUNCTION ${name}()`);
}

/** Drops the trigger {@link refuseWrites} made. */
export function allowWrites(p: TestPharos, name: string): void {
  rawDb(p.store).exec(rawDb(p.store).dialect === 'sqlite' ? `DROP TRIGGER ${name}` : `DROP TRIGGER ${name} ON ${tables.get(name)}`);
}
