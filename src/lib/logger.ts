import { pino, stdTimeFunctions, type DestinationStream } from 'pino';
import { prettyFactory } from 'pino-pretty';

/**
 * The process's log, on pino: one line per thing an operator cares about (an outage opened, an
 * alert failed, an agent left), `debug` adds one line per check. Human-readable lines on a
 * terminal, JSON lines (`{time, level, msg, …fields}`) when `log.format: json` or stderr is not a
 * TTY (journald, docker, a file). Secrets never go in `fields` (tokens, passwords, webhook URLs):
 * callers pass ids and names only, and the keys in {@link REDACTED_KEYS} are censored as a backstop.
 */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

/** `auto`: text on a TTY, JSON otherwise; `text`: always human lines; `json`: always JSON lines. */
export type LogFormat = 'auto' | 'text' | 'json';

/** Minimal logger interface passed to every component that logs. */
export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}

/** Field names whose values are replaced by `[redacted]` at any depth up to two levels (a last line of defence). */
export const REDACTED_KEYS = ['token', 'admin_token', 'password', 'secret', 'authorization', 'webhook_url', 'api_key', 'hmac_secret', 'ping_url'] as const;

/**
 * Creates a logger at or above `level`.
 * @param level minimum level written
 * @param write sink for one formatted line including its `\n` (default: stderr; tests pass an array pusher)
 * @param format see {@link LogFormat}; `auto` asks whether stderr is a TTY (a custom `write` is not one)
 */
export function createLogger(level: LogLevel = 'info', write?: (line: string) => void, format: LogFormat = 'auto'): AdjustableLogger {
  const tty = !write && process.stderr.isTTY === true;
  const text = format === 'text' || (format === 'auto' && tty);
  const sink = write ?? ((line: string) => void process.stderr.write(line));
  // A synchronous destination: a line is out before the next statement (crash paths, tests).
  let destination: DestinationStream = { write: sink };
  if (text) {
    const pretty = prettyFactory({ colorize: tty, translateTime: 'SYS:yyyy-mm-dd HH:MM:ss', ignore: 'pid,hostname', singleLine: true });
    destination = { write: (json: string) => sink(pretty(json)) };
  }
  const log = pino(
    {
      level,
      base: undefined,
      timestamp: stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      redact: { paths: REDACTED_KEYS.flatMap((k) => [k, `*.${k}`]), censor: '[redacted]' },
    },
    destination,
  );
  const at = (lvl: LogLevel) => (msg: string, fields?: Record<string, unknown>) => (fields ? log[lvl](fields, msg) : log[lvl](msg));
  return {
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
    setLevel: (l) => {
      log.level = l;
    },
  };
}

/** A {@link Logger} whose minimum level can be changed while it runs (`pharos serve` on SIGHUP). */
export interface AdjustableLogger extends Logger {
  setLevel(level: LogLevel): void;
}

/** A logger that drops everything (for tools and tests that do not care). */
export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };
