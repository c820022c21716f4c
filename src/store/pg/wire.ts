/** The worker's pure helpers (pg/worker.ts): type parsers, error classes, statement names, values. */
import pg from 'pg';

// int8 (count(*), bigint columns: epoch ms) and numeric (sum of int8) come back as JS numbers, and
// booleans (`x IS NOT NULL AS flag`) as 1/0, as SQLite returns them; other types keep pg's parser.
const bool = (v: string) => (v === 't' ? 1 : 0);
export const types = {
  getTypeParser: (oid: number, format?: 'text' | 'binary') => (oid === 20 || oid === 1700 ? Number : oid === 16 ? bool : pg.types.getTypeParser(oid, format as 'text')),
};

/** Errors that mean "the server cannot be reached", as opposed to a bad statement. */
export function isConnectionError(e: unknown): boolean {
  const code = (e as { code?: string }).code ?? '';
  const msg = (e as Error).message ?? '';
  return (
    /^(ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|ENOTFOUND|EHOSTUNREACH|57P01|57P02|57P03|53300)$/.test(code) ||
    code.startsWith('08') ||
    /Connection terminated|connection timeout|timeout exceeded when trying to connect|Client has encountered a connection error|not queryable/i.test(msg)
  );
}

const names = new Map<string, string>();
/** The prepared-statement name of a text (pg prepares it once per connection). */
export function nameOf(text: string): string {
  let n = names.get(text);
  if (!n) names.set(text, (n = `p${names.size + 1}`));
  return n;
}

/** Values as pg sends them: Uint8Arrays (structured clones of Buffers) become Buffers again. */
export const toBuffers = (values: unknown[]) => values.map((v) => (v instanceof Uint8Array && !Buffer.isBuffer(v) ? Buffer.from(v.buffer, v.byteOffset, v.byteLength) : v));
