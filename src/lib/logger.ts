/**
 * A small structured logger: one JSON object per line on stderr. Secrets never go in `fields`
 * (tokens, passwords, webhook URLs): callers pass ids and hashes only.
 */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

/** Minimal logger interface passed to every component that logs. */
export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}

const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

/**
 * Creates a logger writing JSON lines to `write` (default: process.stderr) at or above `level`.
 * @param level minimum level written
 * @param write sink for one formatted line (tests pass an array pusher)
 */
export function createLogger(level: LogLevel = 'info', write: (line: string) => void = (l) => process.stderr.write(l)): Logger {
  const min = ORDER[level];
  const log = (lvl: LogLevel) => (msg: string, fields?: Record<string, unknown>) => {
    if (ORDER[lvl] < min) return;
    write(JSON.stringify({ time: new Date().toISOString(), level: lvl, msg, ...fields }) + '\n');
  };
  return { debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') };
}

/** A logger that drops everything (for tools and tests that do not care). */
export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };
