/**
 * The command line of every bench script (issue 38 point 4): node:util `parseArgs` (strict) with a
 * description per option, so each script answers `--help` with its options and their defaults (exit 0)
 * and an unknown option or a missing argument with a one-line message naming it (exit 2) — before it
 * starts any work. Scripts call {@link benchArgs} first thing after their imports.
 */
import { basename } from 'node:path';
import { parseArgs } from 'node:util';

/** One option: `--name VALUE` (a string, kept as given) or `--name` (a boolean, false unless given). */
export type BenchOption =
  | { type: 'string'; default?: string; help: string }
  | { type: 'boolean'; help: string };

/** A positional argument (child processes the benches start, e.g. `bench/target.ts <port>`). */
export interface BenchPositional {
  name: string;
  help: string;
  /** Optional arguments come after the required ones. */
  optional?: boolean;
}

/** What a script accepts and what `--help` prints about it. */
export interface BenchSpec<O extends Record<string, BenchOption>> {
  /** One or two sentences: what the script measures (the file's doc comment says the rest). */
  about: string;
  options: O;
  positionals?: readonly BenchPositional[];
  /** The npm script that runs it, if any (e.g. `bench:pings`), shown as a second usage line. */
  npm?: string;
}

/** The parsed values: strings with a default are always set, booleans are false unless given. */
export type BenchValues<O extends Record<string, BenchOption>> = {
  [K in keyof O]: O[K] extends { type: 'boolean' } ? boolean : O[K] extends { default: string } ? string : string | undefined;
};

/** The script's path as the usage line names it: `bench/<file>`. */
const scriptName = (): string => `bench/${basename(process.argv[1] ?? 'script.ts')}`;

/** The `--help` text of a spec: usage lines, the about text, arguments, options with their defaults. */
export function benchHelp(spec: BenchSpec<Record<string, BenchOption>>, script = scriptName()): string {
  const positionals = spec.positionals ?? [];
  const args = positionals.map((p) => (p.optional ? `[${p.name}]` : `<${p.name}>`)).join(' ');
  const usage = [`Usage: node --import tsx ${script} ${args ? `${args} ` : ''}[options]`];
  if (spec.npm) usage.push(`       npm run ${spec.npm} -- ${args ? `${args} ` : ''}[options]`);
  const rows: Array<[string, string]> = positionals.map((p) => [p.optional ? `[${p.name}]` : `<${p.name}>`, p.help]);
  const argRows = rows.length;
  for (const [name, o] of Object.entries(spec.options)) {
    const left = o.type === 'boolean' ? `--${name}` : `--${name} ${o.default !== undefined && o.default !== '' ? o.default : 'VALUE'}`;
    rows.push([left, o.type === 'string' && o.default === undefined ? `${o.help} (not set by default)` : o.help]);
  }
  rows.push(['--help, -h', 'this text']);
  const width = Math.min(32, Math.max(...rows.map(([l]) => l.length)) + 2);
  const line = ([l, r]: [string, string]) => `  ${l.padEnd(width)}${l.length >= width ? `\n  ${' '.repeat(width)}` : ''}${r}`;
  const out = [...usage, '', spec.about, ''];
  if (argRows > 0) out.push('Arguments:', ...rows.slice(0, argRows).map(line), '');
  out.push('Options:', ...rows.slice(argRows).map(line), '');
  return out.join('\n');
}

/** Print a usage error naming the problem and exit 2 (the shell's convention for bad usage). */
function usageError(script: string, message: string): never {
  process.stderr.write(`${script}: ${message}\nRun \`node --import tsx ${script} --help\` for its options.\n`);
  process.exit(2);
}

/**
 * Parse `argv` (default: this process's arguments) against `spec`. `--help`/`-h` prints
 * {@link benchHelp} to stdout and exits 0; an unknown option, a missing option value, a bad boolean
 * or a missing required argument prints one line to stderr and exits 2. Never returns in those cases.
 * Returns the values (typed by the spec) and the positional arguments.
 */
export function benchArgs<const O extends Record<string, BenchOption>>(
  spec: BenchSpec<O>,
  argv: string[] = process.argv.slice(2),
): { values: BenchValues<O>; positionals: string[] } {
  const script = scriptName();
  const options: Record<string, { type: 'string' | 'boolean'; default?: string | boolean; short?: string }> = {};
  for (const [name, o] of Object.entries(spec.options)) {
    options[name] = o.type === 'boolean' ? { type: 'boolean', default: false } : o.default !== undefined ? { type: 'string', default: o.default } : { type: 'string' };
  }
  options.help = { type: 'boolean', short: 'h', default: false };
  const positionals = spec.positionals ?? [];
  let parsed: { values: Record<string, string | boolean | undefined>; positionals: string[] };
  try {
    parsed = parseArgs({ args: argv, options, strict: true, allowPositionals: positionals.length > 0 }) as typeof parsed;
  } catch (err) {
    const e = err as Error & { code?: string };
    const known = Object.keys(spec.options).map((n) => `--${n}`).join(', ');
    if (e.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
      const bad = /'([^']+)'/.exec(e.message)?.[1] ?? e.message;
      usageError(script, `unknown option ${bad}${known ? ` (options: ${known})` : ' (this script takes no options)'}`);
    }
    if (e.code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL') usageError(script, `unexpected argument: ${e.message.replace(/^Unexpected argument '([^']+)'.*$/s, '$1')} (this script takes options only)`);
    usageError(script, e.message);
  }
  if (parsed.values.help) {
    process.stdout.write(benchHelp(spec as BenchSpec<Record<string, BenchOption>>, script));
    process.exit(0);
  }
  const required = positionals.filter((p) => !p.optional);
  if (parsed.positionals.length < required.length) usageError(script, `missing argument <${required[parsed.positionals.length]!.name}>`);
  if (parsed.positionals.length > positionals.length) usageError(script, `too many arguments (expected at most ${positionals.length})`);
  delete parsed.values.help;
  return { values: parsed.values as BenchValues<O>, positionals: parsed.positionals };
}
