import type { Db } from '../db.ts';

/**
 * Numeric ids never repeat (issue 35 point 2). A plain `INTEGER PRIMARY KEY` is SQLite's rowid,
 * which hands out max(id) + 1: delete the newest monitor and the next one gets its id, and a client
 * that kept the number (the Terraform provider's status page sections, Terraform state, the Go
 * client's `DELETE …/subscribers/{id}`) then names another resource. `AUTOINCREMENT` keeps the
 * highest id ever given in `sqlite_sequence` (https://sqlite.org/autoinc.html). SQLite cannot add
 * it in place, so each resource table is rebuilt (SQLite's "12 steps", https://sqlite.org/lang_altertable.html#otheralter):
 * same columns, constraints and rows, only `AUTOINCREMENT` added, indexes made again. The runner
 * turns foreign keys off around this migration (`foreignKeysOff`: a DROP TABLE would otherwise
 * cascade into the tables referring to it) and checks them before it commits. Tables that only
 * grow (results, pings, flips, outbox) keep their rowids: nobody outside holds their ids. The
 * PostgreSQL twin changes nothing: identity columns never hand out an id twice.
 */
export const sql = '';

/** Resource tables whose numeric id may be kept by someone (answered by the API, or may be one day). */
export const TABLES = [
  'monitors',
  'healthchecks',
  'statuspages',
  'subscribers',
  'maintenance_windows',
  'incidents',
  'components',
  'sso_connections',
  'integrations',
  'escalation_policies',
  'audit_log',
  'tags',
] as const;

/** Rebuilds each of {@link TABLES} present with `id INTEGER PRIMARY KEY AUTOINCREMENT`. @throws Error when a table's id is not `id INTEGER PRIMARY KEY` */
export function run(db: Db): void {
  for (const table of TABLES) {
    const row = db.prepare<[string], { sql: string }>("SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = ?").get(table);
    if (!row) continue;
    if (/AUTOINCREMENT/i.test(row.sql)) continue;
    const idColumn = /\bid\s+INTEGER\s+PRIMARY\s+KEY\b/i;
    if (!idColumn.test(row.sql)) throw new Error(`migration 27: ${table} has no "id INTEGER PRIMARY KEY"`);
    const indexes = db.prepare<[string], { sql: string }>("SELECT sql FROM sqlite_schema WHERE type IN ('index', 'trigger') AND tbl_name = ? AND sql IS NOT NULL").all(table);
    const rebuilt = row.sql
      .replace(/^CREATE TABLE\s+("?)[A-Za-z_]+\1/i, `CREATE TABLE "${table}_rebuilt"`)
      .replace(idColumn, 'id INTEGER PRIMARY KEY AUTOINCREMENT');
    const cols = db.prepare<[string], { name: string }>('SELECT name FROM pragma_table_info(?)').all(table).map((c) => `"${c.name}"`).join(', ');
    db.exec(rebuilt);
    db.exec(`INSERT INTO "${table}_rebuilt"(${cols}) SELECT ${cols} FROM "${table}"`);
    db.exec(`DROP TABLE "${table}"`);
    db.exec(`ALTER TABLE "${table}_rebuilt" RENAME TO "${table}"`);
    for (const i of indexes) db.exec(i.sql);
  }
}
