/**
 * The few mechanical differences between the store's SQLite statements and PostgreSQL, rewritten
 * once per prepared statement (issue 22: "a small translator for placeholders is fine"). Anything
 * that is not mechanical gets its own PostgreSQL statement in the store module (`db.dialect`).
 *
 * Rewrites, outside string literals and quoted identifiers:
 * - `?` → `$1, $2, …` in order; `@name` → `$k` (one number per distinct name, reused);
 * - `INSERT OR IGNORE INTO …` → `INSERT INTO … ON CONFLICT DO NOTHING`;
 * - scalar `max(a, b, …)` / `min(…)` → `greatest` / `least` (one argument stays the aggregate);
 * - `group_concat(x[, sep])` → `string_agg(CAST(x AS text), sep default ',')`;
 * - `json_extract(col, '$.a.b')` → `(CAST(col AS jsonb) #>> '{a,b}')`;
 * - `instr(a, b)` → `strpos(a, b)`; `ifnull` → `coalesce`; `sqlite_version()` → the server's version;
 * - `x IS NOT ?` / `x IS ?` → `IS DISTINCT FROM` / `IS NOT DISTINCT FROM`;
 * - `LIKE` → `ILIKE` (SQLite's LIKE ignores ASCII case); SQLite's `INDEXED BY x` hints are dropped.
 */
export interface Translated {
  /** The PostgreSQL text. */
  text: string;
  /** For `@name` statements: the name of `$1`, `$2`, …; null for positional statements. */
  names: string[] | null;
}

/** Translates one SQLite statement (see the module comment for the rules). */
export function toPostgres(sql: string): Translated {
  let names: string[] | null = null;
  let positional = 0;
  let out = mapCode(sql, (code) =>
    code
      .replace(/\?/g, () => `$${++positional}`)
      .replace(/@([A-Za-z_][A-Za-z0-9_]*)/g, (_m, name: string) => {
        names ??= [];
        let i = names.indexOf(name);
        if (i < 0) i = names.push(name) - 1;
        return `$${i + 1}`;
      })
      .replace(/\bIS\s+NOT\s+(\$\d+)/gi, 'IS DISTINCT FROM $1')
      .replace(/\bIS\s+(\$\d+)/gi, 'IS NOT DISTINCT FROM $1')
      .replace(/\bLIKE\b/gi, 'ILIKE')
      .replace(/\s+INDEXED\s+BY\s+[A-Za-z_][A-Za-z0-9_]*/gi, ''),
  );
  if (/^\s*INSERT\s+OR\s+IGNORE\s+INTO\b/i.test(out)) {
    out = out.replace(/^\s*INSERT\s+OR\s+IGNORE\s+INTO\b/i, 'INSERT INTO');
    const ret = /\sRETURNING\s/i.exec(out);
    out = ret ? `${out.slice(0, ret.index)} ON CONFLICT DO NOTHING${out.slice(ret.index)}` : `${out.trimEnd()} ON CONFLICT DO NOTHING`;
  }
  return { text: rewriteCalls(out), names };
}

/** Applies `fn` to the parts of `sql` outside '…' literals and "…" identifiers. */
function mapCode(sql: string, fn: (code: string) => string): string {
  let out = '';
  let i = 0;
  while (i < sql.length) {
    const q = sql.slice(i).search(/['"]/);
    if (q < 0) return out + fn(sql.slice(i));
    out += fn(sql.slice(i, i + q));
    const quote = sql[i + q]!;
    let j = i + q + 1;
    for (;;) {
      const k = sql.indexOf(quote, j);
      if (k < 0) throw new Error(`unterminated ${quote} in SQL: ${sql}`);
      if (sql[k + 1] === quote) j = k + 2;
      else {
        j = k + 1;
        break;
      }
    }
    out += sql.slice(i + q, j);
    i = j;
  }
  return out;
}

const CALL = /\b(max|min|group_concat|json_extract|instr|ifnull|sqlite_version)\s*\(/gi;

/** Rewrites the SQLite-only function calls, innermost arguments included. */
function rewriteCalls(sql: string): string {
  let out = '';
  let from = 0;
  CALL.lastIndex = 0;
  for (let m = CALL.exec(sql); m; m = CALL.exec(sql)) {
    if (inLiteral(sql, m.index)) continue;
    const open = m.index + m[0].length - 1;
    const close = matching(sql, open);
    const args = splitArgs(sql.slice(open + 1, close)).map((a) => rewriteCalls(a));
    out += sql.slice(from, m.index) + call(m[1]!.toLowerCase(), args);
    from = close + 1;
    CALL.lastIndex = close + 1;
  }
  return out + sql.slice(from);
}

function call(fn: string, args: string[]): string {
  switch (fn) {
    case 'max':
    case 'min':
      return args.length > 1 ? `${fn === 'max' ? 'greatest' : 'least'}(${args.join(',')})` : `${fn}(${args.join(',')})`;
    case 'group_concat':
      return `string_agg(CAST(${args[0]} AS text), ${args[1] ?? "','"})`;
    case 'json_extract': {
      const path = /^\s*'\$\.([^']*)'\s*$/.exec(args[1] ?? '');
      if (!path) throw new Error(`json_extract: only a literal '$.a.b' path is translated, got ${args[1]}`);
      return `(CAST(${args[0]} AS jsonb) #>> '{${path[1]!.split('.').join(',')}}')`;
    }
    case 'instr':
      return `strpos(${args.join(',')})`;
    case 'ifnull':
      return `coalesce(${args.join(',')})`;
    default:
      return "current_setting('server_version')";
  }
}

/** True when position `at` is inside a '…' literal. */
function inLiteral(sql: string, at: number): boolean {
  let open = false;
  for (let i = 0; i < at; i++) if (sql[i] === "'") open = !open;
  return open;
}

/** Index of the `)` closing the `(` at `open`. */
function matching(sql: string, open: number): number {
  let depth = 0;
  let quoted = false;
  for (let i = open; i < sql.length; i++) {
    const c = sql[i];
    if (c === "'") quoted = !quoted;
    else if (quoted) continue;
    else if (c === '(') depth++;
    else if (c === ')' && --depth === 0) return i;
  }
  throw new Error(`unbalanced parentheses in SQL: ${sql}`);
}

/** Top-level comma-separated arguments. */
function splitArgs(s: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let quoted = false;
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === "'") quoted = !quoted;
    else if (quoted) continue;
    else if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (c === ',' && depth === 0) {
      out.push(s.slice(start, i));
      start = i + 1;
    }
  }
  out.push(s.slice(start));
  return out.map((a) => a.trim()).filter((a, i, all) => a !== '' || all.length > 1);
}
