/**
 * Apprise-style channel URLs (the notation of https://github.com/caronc/apprise, which many
 * self-hosters keep in their notes), expanded into a typed channel entry. Understood schemes:
 *
 * | URL | channel |
 * |---|---|
 * | `discord://<webhook_id>/<webhook_token>` | discord |
 * | `tgram://<bot_token>/<chat_id>[?topic=<id>]` | telegram |
 * | `ntfy://<topic>` (ntfy.sh), `ntfy://[<token>@]<host>[:port]/<topic>` (http), `ntfys://…` (https); `?priority=1-5&tags=a,b&token=…` | ntfy |
 * | `gotify://<host>[:port]/<token>`, `gotifys://…`; `?priority=0-10` | gotify |
 * | `pover://<user_key>@<app_token>[/<device>][?priority=-2..1&sound=…]` | pushover |
 * | `mailto://[<user>:<password>@]<smtp_host>[:port]?to=a@x,b@y[&from=…]`, `mailtos://…` (TLS, 465) | email |
 * | `mmost://<host>[:port]/<hook_key>`, `mmosts://…` | mattermost |
 * | `slack://<A>/<B>/<C>` (hooks.slack.com/services/A/B/C) | slack |
 * | `gchat://<space>/<key>/<token>` | googlechat |
 * | `opsgenie://<api_key>[?region=eu]` | opsgenie |
 * | `twilio://<account_sid>:<auth_token>@<from>/<to>[/<to>…]` | twilio |
 * | `json://<host>/<path>`, `jsons://…` | webhook |
 * | `hassio://<host>[:port]/<access_token>`, `hassios://…` (`hassio`: port 8123 unless given; notify.persistent_notification) | homeassistant |
 * | `signal://[<user>:<password>@]<host>[:port]/<from>[/<to>…]`, `signals://…` (`signal`: port 8080 unless given; no `<to>`: to `<from>`) | signal |
 * | `pbul://<access_token>[/<device_iden or email>]` | pushbullet |
 * | `nctalk://<user>:<password>@<host>[:port]/<conversation>`, `nctalks://…` | nextcloudtalk |
 * | `bark://<host>[:port]/<device_key>`, `barks://…`; `?sound=&level=&group=` | bark |
 *
 * Parts are percent-decoded. Pure string work: no lookups, no I/O.
 */

/** The result: a raw channel entry (validated afterwards by the kind's schema) or an error. */
export type AppriseResult = { config: Record<string, unknown> } | { error: string };

/** The scheme names {@link expandApprise} understands. */
export const APPRISE_SCHEMES = ['discord', 'tgram', 'ntfy', 'ntfys', 'gotify', 'gotifys', 'pover', 'mailto', 'mailtos', 'mmost', 'mmosts', 'slack', 'gchat', 'opsgenie', 'twilio', 'json', 'jsons', 'hassio', 'hassios', 'signal', 'signals', 'pbul', 'nctalk', 'nctalks', 'bark', 'barks'] as const;

const dec = (s: string) => {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
};

/** Expands one Apprise URL into `{type, …}` fields (without `name`). */
export function expandApprise(url: string): AppriseResult {
  const m = /^([a-z]+):\/\/([^?#]*)(?:\?([^#]*))?$/.exec(url.trim());
  if (!m) return { error: 'must be an Apprise URL such as discord://id/token' };
  const scheme = m[1]!;
  const query = new URLSearchParams(m[3] ?? '');
  const q = (k: string) => query.get(k) ?? undefined;
  const num = (k: string) => (query.has(k) ? Number(query.get(k)) : undefined);
  const [authority = '', ...path] = m[2]!.split('/').filter((p, i) => i === 0 || p !== '');
  const at = authority.lastIndexOf('@');
  const user = at >= 0 ? authority.slice(0, at) : undefined;
  const host = at >= 0 ? authority.slice(at + 1) : authority;
  const parts = path.map(dec);
  const need = (ok: boolean, shape: string): AppriseResult | null => (ok ? null : { error: `${scheme}:// URLs look like ${shape}` });
  const secure = scheme.endsWith('s') && scheme !== 'opsgenie' ? 's' : '';
  const clean = <T extends Record<string, unknown>>(o: T) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
  switch (scheme) {
    case 'discord':
      return need(host !== '' && parts.length === 1, 'discord://<webhook_id>/<webhook_token>') ?? { config: { type: 'discord', url: `https://discord.com/api/webhooks/${host}/${path[0]}` } };
    case 'tgram':
      return need(host !== '' && parts.length === 1, 'tgram://<bot_token>/<chat_id>') ?? { config: clean({ type: 'telegram', bot_token: dec(host), chat_id: parts[0], topic_id: num('topic') }) };
    case 'ntfy':
    case 'ntfys': {
      const base = clean({ type: 'ntfy', priority: num('priority'), tags: q('tags')?.split(',').filter(Boolean), token: user !== undefined ? dec(user) : q('token') });
      if (parts.length === 0) return need(host !== '', 'ntfy://<topic> or ntfy://<host>/<topic>') ?? { config: { ...base, topic: dec(host) } };
      return need(host !== '' && parts.length === 1, 'ntfy://<host>/<topic>') ?? { config: { ...base, server: `http${secure}://${host}`, topic: parts[0] } };
    }
    case 'gotify':
    case 'gotifys':
      return need(host !== '' && parts.length === 1, 'gotify://<host>/<token>') ?? { config: clean({ type: 'gotify', server: `http${secure}://${host}`, token: parts[0], priority: num('priority') }) };
    case 'pover':
      return need(user !== undefined && host !== '' && parts.length <= 1, 'pover://<user_key>@<app_token>[/<device>]') ?? {
        config: clean({ type: 'pushover', user_key: dec(user!), app_token: dec(host), device: parts[0], priority: num('priority'), sound: q('sound') }),
      };
    case 'mailto':
    case 'mailtos': {
      const [login, password] = user !== undefined ? user.split(':').map(dec) : [];
      const [smtpHost = '', port] = host.split(':');
      const to = q('to')?.split(',').filter(Boolean) ?? (login?.includes('@') ? [login] : []);
      const bad = need(smtpHost !== '' && to.length > 0, 'mailto://[user:password@]smtp.example.com[:port]?to=a@example.com');
      if (bad) return bad;
      return {
        config: {
          type: 'email',
          from: q('from') ?? (login?.includes('@') ? login : `pharos@${smtpHost}`),
          to,
          smtp: clean({ host: smtpHost, port: port ? Number(port) : secure ? 465 : 587, secure: secure === 's', user: login, password }),
        },
      };
    }
    case 'mmost':
    case 'mmosts':
      return need(host !== '' && parts.length === 1, 'mmost://<host>/<hook_key>') ?? { config: { type: 'mattermost', url: `http${secure}://${host}/hooks/${path[0]}` } };
    case 'slack':
      return need(parts.length === 2 && host !== '', 'slack://<A>/<B>/<C>') ?? { config: { type: 'slack', url: `https://hooks.slack.com/services/${host}/${path[0]}/${path[1]}` } };
    case 'gchat':
      return need(parts.length === 2 && host !== '', 'gchat://<space>/<key>/<token>') ?? {
        config: { type: 'googlechat', url: `https://chat.googleapis.com/v1/spaces/${host}/messages?key=${path[0]}&token=${path[1]}` },
      };
    case 'opsgenie':
      return need(host !== '' && parts.length === 0, 'opsgenie://<api_key>') ?? {
        config: clean({ type: 'opsgenie', api_key: dec(host), api_url: q('region') === 'eu' ? 'https://api.eu.opsgenie.com' : undefined }),
      };
    case 'twilio': {
      const [sid, token] = (user ?? '').split(':').map(dec);
      return need(Boolean(sid && token) && host !== '' && parts.length >= 1, 'twilio://<account_sid>:<auth_token>@<from>/<to>') ?? {
        config: { type: 'twilio', account_sid: sid, auth_token: token, from: dec(host), to: parts },
      };
    }
    case 'json':
    case 'jsons':
      return need(host !== '', 'json://<host>/<path>') ?? { config: { type: 'webhook', url: `http${secure}://${authority}/${path.join('/')}` } };
    case 'hassio':
    case 'hassios':
      return need(host !== '' && parts.length === 1, 'hassio://<host>[:port]/<access_token>') ?? {
        config: { type: 'homeassistant', base_url: `http${secure}://${host.includes(':') || secure ? host : `${host}:8123`}`, token: parts[0], service: 'persistent_notification' },
      };
    case 'signal':
    case 'signals': {
      const phone = (p: string) => (/^\d{7,15}$/.test(p) ? `+${p}` : p);
      const [login, password] = user !== undefined ? user.split(':').map(dec) : [];
      return need(host !== '' && parts.length >= 1, 'signal://[user:password@]<host>[:port]/<from>[/<to>…]') ?? {
        config: clean({
          type: 'signal',
          base_url: `http${secure}://${host.includes(':') || secure ? host : `${host}:8080`}`,
          number: phone(parts[0]!),
          recipients: (parts.length > 1 ? parts.slice(1) : parts).map(phone),
          basic_auth: login && password ? { user: login, password } : undefined,
        }),
      };
    }
    case 'pbul': {
      const target = parts[0];
      return need(host !== '' && parts.length <= 1, 'pbul://<access_token>[/<device_iden or email>]') ?? {
        config: clean({ type: 'pushbullet', access_token: dec(host), device_iden: target && !target.includes('@') ? target : undefined, email: target?.includes('@') ? target : undefined }),
      };
    }
    case 'nctalk':
    case 'nctalks': {
      const [login, password] = (user ?? '').split(':').map(dec);
      return need(Boolean(login && password) && host !== '' && parts.length === 1, 'nctalk://<user>:<password>@<host>/<conversation>') ?? {
        config: { type: 'nextcloudtalk', base_url: `http${secure}://${host}`, conversation: parts[0], user: login, password },
      };
    }
    case 'bark':
    case 'barks':
      return need(host !== '' && parts.length === 1, 'bark://<host>[:port]/<device_key>') ?? {
        config: clean({ type: 'bark', server: `http${secure}://${host}`, device_key: parts[0], sound: q('sound'), level: q('level'), group: q('group') }),
      };
    default:
      return { error: `unknown Apprise scheme "${scheme}://" (understood: ${APPRISE_SCHEMES.map((s) => `${s}://`).join(', ')})` };
  }
}
