import { execFile } from 'node:child_process';
import type { ChannelConfigOf } from '../../../domain/channels/index.ts';
import { cut, plainBody } from '../render.ts';
import { ChannelError, type AlertKind, type Channel, type ChannelPlugin, type ProviderAnswer } from '../types.ts';

/**
 * The `apprise` channel: runs Apprise's command line tool (https://github.com/caronc/apprise/wiki/CLI_Usage)
 * once per delivery as `apprise -vv --notification-type=<type> --title=<title> --body=<body> -- <url>…`
 * through `execFile` with an argument array — never a shell, so nothing in a title, a body or a URL
 * is interpreted — under the channel's timeout (then killed). The child gets a small environment
 * (PATH, HOME, locale and proxy variables), not Pharos's own (database URL, secret key).
 *
 * Apprise's log (its `-vv` output) is the provider's answer, with every part of the configured URLs
 * (tokens, passwords, paths) replaced by `***`; the answer's `status` is apprise's exit code (0 when
 * every service took the message). A failure is permanent when apprise could not use a URL, or when
 * every HTTP status it reports is a 4xx other than 408/429; otherwise it is retried.
 */

/** How to run apprise: the command (default `apprise` on PATH); tests point it elsewhere. */
export interface AppriseRunner {
  command: string;
}

const NOTIFY_TYPES: Record<AlertKind, string> = { alert: 'failure', recovery: 'success', acknowledge: 'warning', notice: 'info' };
const ENV_KEYS = ['PATH', 'HOME', 'LANG', 'LC_ALL', 'TZ', 'HTTP_PROXY', 'HTTPS_PROXY', 'NO_PROXY', 'http_proxy', 'https_proxy', 'no_proxy'];
const OUTPUT_MAX = 2_000;

/** The arguments of one run (title and body as single `--opt=value` arguments; URLs after `--`). */
export function appriseArgs(message: { kind: AlertKind; title: string; body: string }, urls: readonly string[]): string[] {
  return ['-vv', `--notification-type=${NOTIFY_TYPES[message.kind]}`, `--title=${message.title}`, `--body=${message.body}`, '--', ...urls];
}

/**
 * A function replacing every secret-looking part of `urls` in a text with `***`: each URL whole,
 * then its parts (split at `/ : @ ? & = , # +`, also percent-decoded) of 6 or more characters,
 * except host names (lower-case dotted names, IPv4 addresses) and the scheme.
 */
export function urlRedactor(urls: readonly string[]): (text: string) => string {
  const parts = new Set<string>();
  for (const url of urls) {
    parts.add(url);
    const scheme = url.slice(0, url.indexOf('://'));
    for (const raw of url.slice(scheme.length + 3).split(/[/:@?&=,#+]/)) {
      for (const p of new Set([raw, safeDecode(raw)])) {
        if (p.length < 6 || /^[a-z0-9-]+(\.[a-z0-9-]+)*\.[a-z]{2,}$/.test(p) || /^\d{1,3}(\.\d{1,3}){3}$/.test(p)) continue;
        parts.add(p);
      }
    }
  }
  const sorted = [...parts].sort((a, b) => b.length - a.length);
  return (text) => sorted.reduce((t, p) => t.split(p).join('***'), text);
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s; // not percent-encoded text: the raw part is redacted as is
  }
}

/** Creates an apprise channel for `config`, running `runner.command`. */
export function createAppriseChannel(config: ChannelConfigOf<'apprise'>, runner: AppriseRunner = { command: 'apprise' }): Channel {
  const label = `apprise ${config.name}`;
  const redact = urlRedactor(config.urls);
  const env = Object.fromEntries(ENV_KEYS.flatMap((k) => (process.env[k] !== undefined ? [[k, process.env[k]!]] : [])));
  const running = new Set<AbortController>();
  return {
    name: config.name,
    send(message) {
      const args = appriseArgs({ kind: message.kind, title: cut(message.title || 'Pharos', 250), body: plainBody(message) }, config.urls);
      const abort = new AbortController();
      running.add(abort);
      return new Promise<ProviderAnswer>((resolve, reject) => {
        execFile(
          runner.command,
          args,
          { timeout: config.timeout_seconds * 1000, killSignal: 'SIGKILL', maxBuffer: 1024 * 1024, env, signal: abort.signal, windowsHide: true },
          (err, stdout, stderr) => {
            running.delete(abort);
            const log = redact(`${stdout}${stderr}`).trim();
            const answer = { status: 0, body: log.slice(-OUTPUT_MAX) };
            if (!err) return resolve(answer);
            const e = err as NodeJS.ErrnoException & { killed?: boolean; signal?: string | null; code?: unknown };
            if (e.code === 'ENOENT') return reject(new ChannelError(`${label}: the apprise command is not installed (apt install apprise)`, true));
            if (e.code === 'ABORT_ERR') return reject(new ChannelError(`${label}: closed`, false));
            if (e.killed || e.signal) return reject(new ChannelError(`${label}: timeout after ${config.timeout_seconds} s`, false, { ...answer, status: -1 }));
            const code = typeof e.code === 'number' ? e.code : -1;
            reject(failure(label, code, log, { ...answer, status: code }));
          },
        );
      });
    },
    async close() {
      for (const a of running) a.abort();
    },
  };
}

/** The ChannelError of a run that exited with `code`, deciding permanence from apprise's log. */
function failure(label: string, code: number, log: string, answer: ProviderAnswer): ChannelError {
  const lines = log.split('\n').filter((l) => / - (WARNING|ERROR) - /.test(l));
  const first = lines[0]?.replace(/^.* - (WARNING|ERROR) - /, '') ?? 'no output';
  const statuses = [...log.matchAll(/error=(\d{3})\b/g)].map((m) => Number(m[1]));
  const unusable = code === 2 || /Unparseable URL|no service\(s\) to notify/.test(log);
  const clientOnly = statuses.length > 0 && lines.length === statuses.length && statuses.every((s) => s >= 400 && s < 500 && s !== 408 && s !== 429);
  return new ChannelError(`${label}: exit ${code}: ${cut(first, 300)}`, unusable || clientOnly, answer);
}

/** The apprise plugin. Its contract example notifies Apprise's `json://` service at the receiver. */
export const apprise: ChannelPlugin<'apprise'> = {
  create: (config) => createAppriseChannel(config),
  transport: 'process',
  example: (name, base) => ({ name, type: 'apprise', urls: [`${base.replace(/^http/, 'json')}/apprise/SECRET123`], timeout_seconds: 5 }),
  secrets: ['SECRET123'],
};
