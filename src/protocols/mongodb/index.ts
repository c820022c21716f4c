import { z } from 'zod';
import { invalid } from '../../lib/errors.ts';
import { isHost } from '../target.ts';
import type { ProbeTarget, ProtocolDefinition } from '../types.ts';

const fields = {
  mongodb_command: z.string({ error: 'must be a JSON object (a database command) or null' }).max(4096, 'must be at most 4096 characters').nullable(),
  mongodb_json_path: z.string({ error: 'must be a JSONPath or null' }).max(512, 'must be at most 512 characters').nullable(),
  mongodb_expected: z.string({ error: 'must be a string or null' }).max(1024, 'must be at most 1024 characters').nullable(),
};

const EXPECTED = 'a MongoDB connection string: mongodb://user:password@host:27017/db (several hosts comma-separated, or mongodb+srv://)';

/**
 * A MongoDB connection string → target: its first host (`[v6]` brackets removed) and port (27017
 * by default; none for `mongodb+srv://`, whose hosts come from DNS). Several hosts
 * (`mongodb://a:27017,b:27017/?replicaSet=rs`) are allowed: WHATWG URL cannot parse them, so the
 * authority is split here, as the MongoDB connection-string spec reads it.
 * @throws AppError 400 `url: must be …`
 */
export function mongodbTarget(raw: string): ProbeTarget {
  const s = raw.trim();
  const m = /^mongodb(\+srv)?:\/\/(?:[^@/?]*@)?([^/?#@]+)(?:\/[^?#]*)?(?:\?[^#]*)?$/.exec(s);
  if (!m) throw invalid('url', `must be ${EXPECTED}`);
  const first = m[2]!.split(',')[0]!;
  const hp = /^(\[[^\]]+\]|[^:]+)(?::(\d{1,5}))?$/.exec(first);
  const host = hp?.[1]?.replace(/^\[|\]$/g, '') ?? '';
  if (!hp || !isHost(host)) throw invalid('url', 'must name a host');
  if (m[1] && (hp[2] || m[2]!.includes(','))) throw invalid('url', 'mongodb+srv:// takes one host name and no port');
  return { url: s, host, port: m[1] ? null : Number(hp[2] ?? 27017) };
}

/**
 * mongodb: connects with the official `mongodb` driver to `url` (credentials, database, replica set
 * and TLS options as the connection string says), runs `mongodb_command` (a JSON object; null =
 * `{"ping": 1}`) on the URL's database (`admin` when it names none), and, with
 * `mongodb_json_path`, reads that path of the command's reply: up when it matches something and,
 * with `mongodb_expected`, the first match's text equals it. As Uptime Kuma's MongoDB monitor
 * (command + JSON query + expected value).
 */
export const mongodb = {
  fields,
  defaults: { mongodb_command: null as string | null, mongodb_json_path: null as string | null, mongodb_expected: null as string | null },
  urlMeaning: 'the connection string: mongodb://user:password@host:27017/db (mongodb+srv:// too)',
  label: 'MongoDB',
  target: (url) => mongodbTarget(url),
  validate(s) {
    if (s.mongodb_command !== null && s.mongodb_command.trim() !== '') {
      let cmd: unknown;
      try {
        cmd = JSON.parse(s.mongodb_command);
      } catch {
        throw invalid('mongodb_command', 'must be a JSON object such as {"ping": 1}');
      }
      if (typeof cmd !== 'object' || cmd === null || Array.isArray(cmd) || Object.keys(cmd).length === 0) throw invalid('mongodb_command', 'must be a JSON object such as {"ping": 1}');
    }
    if (s.mongodb_json_path !== null && s.mongodb_json_path !== '' && !s.mongodb_json_path.startsWith('$')) throw invalid('mongodb_json_path', 'must be a JSONPath starting with $');
    if ((s.mongodb_json_path === null || s.mongodb_json_path === '') && s.mongodb_expected !== null && s.mongodb_expected !== '') throw invalid('mongodb_expected', 'needs mongodb_json_path (the value of the reply to compare)');
  },
  loadProbe: async () => (await import('./probe.ts')).mongodbProbe,
} satisfies ProtocolDefinition<typeof fields>;
