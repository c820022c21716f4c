import type { Transporter } from 'nodemailer';
import type { ChannelConfigOf } from '../../../domain/channels/index.ts';
import { escapeHtml, facts } from '../render.ts';
import { ChannelError, type AlertMessage, type Channel, type ChannelPlugin } from '../types.ts';

export { escapeHtml } from '../render.ts';

/** A `type: email` channel as parsed from config.yaml (defaults applied). */
export type EmailConfig = ChannelConfigOf<'email'>;

/** The rendered parts of one mail. */
export interface EmailContent {
  /** `[Pharos] <title>`, on one line. */
  subject: string;
  /** Plain-text body. */
  text: string;
  /** The same content as a small HTML document, every user-provided string escaped. */
  html: string;
}

/**
 * Renders a message as a mail:
 * - subject `[Pharos] <title>` (line breaks become spaces);
 * - text: the title, a blank line, the text, a blank line, then `Monitor: API (https://…)`,
 *   `Cause: …`, `Started: <ISO>`, `Resolved: <ISO>` (once ended), `Incident: INC-42 (major)`,
 *   `Escalation: <policy>, step 1 of 3[, repeat 2]`, `Link: https://…`, each only when known;
 * - html: the same as `<h2>`, `<p>` and a `<table>`, the link as an `<a href>`, all escaped.
 */
export function emailContent(message: AlertMessage): EmailContent {
  const title = message.title.replace(/[\r\n]+/g, ' ');
  const list = facts(message);
  const text = [title, '', message.text, '', ...list.map((f) => `${f.label}: ${f.value}`), ''].join('\n');
  const rows = list
    .map((f) => {
      const value = f.href ? `<a href="${escapeHtml(f.href)}">${escapeHtml(f.value)}</a>` : escapeHtml(f.value);
      return `<tr><th align="left" style="padding-right:12px">${escapeHtml(f.label)}</th><td>${value}</td></tr>`;
    })
    .join('\n');
  const paragraphs = message.text
    .split(/\n{2,}/)
    .filter((p) => p.trim() !== '')
    .map((p) => `<p>${escapeHtml(p).replace(/\n/g, '<br>')}</p>`)
    .join('\n');
  const html = [
    '<!doctype html>',
    `<html><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head><body>`,
    `<h2>${escapeHtml(title)}</h2>`,
    paragraphs,
    rows ? `<table>\n${rows}\n</table>` : '',
    '</body></html>',
    '',
  ].join('\n');
  return { subject: `[Pharos] ${title}`, text, html };
}

/** nodemailer codes that mean the message or its addresses are wrong, or the login is refused. */
const PERMANENT_CODES = new Set(['EENVELOPE', 'EMESSAGE', 'EAUTH', 'ENOAUTH', 'ECONFIG', 'EFILEACCESS', 'EURLACCESS']);

/**
 * Maps a nodemailer error to a ChannelError:
 * - with an SMTP reply code: 5xx permanent (except 503 "bad sequence", a session problem that a new
 *   connection can fix), 4xx and others retryable;
 * - without one: EENVELOPE (bad sender/recipient), EMESSAGE, EAUTH/ENOAUTH (login refused or
 *   missing), ECONFIG and file/URL access refusals permanent; connection errors, timeouts, TLS
 *   and DNS failures, and anything else retryable.
 * The message never contains the SMTP password (it is redacted if a server ever echoed it).
 * @param label e.g. `email ops-mail`
 * @param where `host:port`, named in connection errors
 */
export function mapEmailError(err: unknown, label: string, where: string, timeoutSeconds: number, password?: string): ChannelError {
  const e = (err ?? {}) as { code?: unknown; originalCode?: unknown; responseCode?: unknown; response?: unknown; message?: unknown };
  const code = typeof e.code === 'string' ? e.code : undefined;
  const redact = (s: string) => {
    const one = s.replace(/\s+/g, ' ').trim().slice(0, 300);
    return password && password.length >= 3 ? one.split(password).join('***') : one;
  };
  if (typeof e.responseCode === 'number' && e.responseCode > 0) {
    const reply = typeof e.response === 'string' ? redact(e.response) : String(e.responseCode);
    const step = code === 'EAUTH' ? 'login refused' : code === 'EENVELOPE' ? 'envelope refused' : 'refused';
    return new ChannelError(`${label}: SMTP ${step}: ${reply}`, e.responseCode >= 500 && e.responseCode !== 503);
  }
  const original = typeof e.originalCode === 'string' ? e.originalCode : undefined;
  const raw = typeof e.message === 'string' ? redact(e.message) : 'unknown error';
  let what: string;
  if (code === 'ETIMEDOUT' || original === 'ETIMEDOUT') what = `timeout after ${timeoutSeconds} s (${where})`;
  else if (original === 'ECONNREFUSED' || code === 'ECONNREFUSED') what = `connection refused (${where})`;
  else if (code === 'EDNS' || original === 'ENOTFOUND' || original === 'EAI_AGAIN') what = `DNS lookup failed (${where})`;
  else if (code === 'ECONNECTION' || code === 'ESOCKET' || code === 'ETLS' || code === 'EPROTOCOL') what = `${code}: ${raw} (${where})`;
  else what = code ? `${code}: ${raw}` : raw;
  return new ChannelError(`${label}: ${what}`, code !== undefined && PERMANENT_CODES.has(code));
}

/**
 * True when nodemailer stopped because the server would not start TLS: it answered STARTTLS with a
 * refusal (`ETLS` on the STARTTLS command, with the server's reply), or it knows only HELO, which
 * has no STARTTLS. A failed TLS handshake after an accepted STARTTLS (bad certificate) is not this:
 * it has no reply and stays a retryable TLS error.
 */
function noStartTls(err: unknown): boolean {
  const e = (err ?? {}) as { code?: unknown; command?: unknown; response?: unknown; message?: unknown };
  if (e.code === 'ETLS' && e.command === 'STARTTLS' && typeof e.response === 'string') return true;
  return e.code === 'ECONNECTION' && e.command === 'EHLO' && typeof e.message === 'string' && e.message.includes('HELO does not support required STARTTLS');
}

/**
 * An email channel: one SMTP connection per message (no pool) to `config.smtp.host:port`, with
 * `secure` (TLS from the first byte), `requireTLS` (`require_tls`, refuse without STARTTLS),
 * `tls.rejectUnauthorized` (`tls_reject_unauthorized`), AUTH when `user` is set, and connection,
 * greeting and socket timeouts of `timeout_seconds` (converted to ms). Each message goes to all of
 * `config.to` from `config.from`, with the content of {@link emailContent} (text and HTML parts)
 * and `Auto-Submitted: auto-generated`.
 *
 * Credentials never cross a plain connection unless `allow_plaintext_auth` is set: with a `user`
 * and `secure: false`, nodemailer's `requireTLS` is forced on, so the session is upgraded by
 * STARTTLS before AUTH or fails. nodemailer itself logs in wherever the server advertises AUTH,
 * TLS or not (smtp-transport: `if (auth && connection.allowsAuth) login`); `requireTLS` makes it
 * send STARTTLS after EHLO even when not offered and stop with ETLS when the server refuses it,
 * before any AUTH. That refusal becomes a permanent ChannelError naming `allow_plaintext_auth`.
 * This covers every SMTP path of Pharos: subscriber mail goes through this channel too.
 *
 * `send` throws ChannelError (see {@link mapEmailError}); when the server accepts only some
 * recipients it throws a permanent ChannelError naming the rejected ones (retrying would send the
 * message again to those that got it). `close()` closes the transport (nodemailer is loaded and the
 * transport made at the first `send`).
 */
export function createEmailChannel(config: EmailConfig): Channel {
  const smtp = config.smtp;
  const timeoutMs = smtp.timeout_seconds * 1000;
  // Only `require_tls: false` needs the guard: with it set, a server without STARTTLS is refused anyway.
  const guardAuth = smtp.user !== undefined && !smtp.secure && !smtp.require_tls && !smtp.allow_plaintext_auth;
  // nodemailer is loaded at the first message, not at start (issue 38: a configuration without mail
  // never loads it; test/api/lazy-modules.test.ts).
  let transport: Promise<Transporter> | undefined;
  const open = (): Promise<Transporter> => (transport ??= import('nodemailer').then(({ default: nodemailer }) => nodemailer.createTransport({
    host: smtp.host,
    port: smtp.port,
    secure: smtp.secure,
    requireTLS: smtp.require_tls || guardAuth,
    ...(smtp.user !== undefined ? { auth: { user: smtp.user, pass: smtp.password ?? '' } } : {}),
    tls: { rejectUnauthorized: smtp.tls_reject_unauthorized },
    connectionTimeout: timeoutMs,
    greetingTimeout: timeoutMs,
    socketTimeout: timeoutMs,
    pool: false,
    disableFileAccess: true,
    disableUrlAccess: true,
  })));
  const label = `email ${config.name}`;
  const where = `${smtp.host}:${smtp.port}`;

  return {
    name: config.name,
    async send(message, delivery) {
      const content = emailContent(message);
      let info: { accepted?: unknown[]; rejected?: unknown[]; response?: unknown };
      try {
        info = await (await open()).sendMail({
          from: config.from,
          to: config.to,
          subject: content.subject,
          text: content.text,
          html: content.html,
          headers: { 'Auto-Submitted': 'auto-generated', 'X-Pharos-Delivery': delivery.deliveryId },
        });
      } catch (e) {
        if (guardAuth && noStartTls(e)) {
          throw new ChannelError(`${label}: ${where} offers no STARTTLS; refusing to send the SMTP password over a plain connection (set smtp.allow_plaintext_auth: true to allow it)`, true);
        }
        throw mapEmailError(e, label, where, smtp.timeout_seconds, smtp.password);
      }
      const rejected = (info.rejected ?? []).map(String);
      if (rejected.length > 0) {
        const accepted = info.accepted?.length ?? 0;
        throw new ChannelError(`${label}: delivered to ${accepted} of ${accepted + rejected.length} recipients; rejected ${rejected.join(', ')}`, true);
      }
      const reply = typeof info.response === 'string' ? info.response : '250 OK';
      return { status: Number.parseInt(reply, 10) || 250, body: reply.slice(0, 2_000) };
    },
    async close() {
      if (transport) (await transport).close();
    },
  };
}

/** The email plugin. */
export const email: ChannelPlugin<'email'> = {
  create: createEmailChannel,
  transport: 'smtp',
  example: (name, base) => {
    const url = new URL(base);
    return {
      name,
      type: 'email',
      from: 'Pharos <pharos@example.com>',
      to: ['oncall@example.com', 'team@example.com'],
      // The contract suite's receiver is a plain SMTP server without STARTTLS.
      smtp: { host: url.hostname, port: Number(url.port), secure: false, require_tls: false, allow_plaintext_auth: true, tls_reject_unauthorized: true, user: 'pharos', password: 'hunter2-SECRET-pw', timeout_seconds: 5 },
    };
  },
  secrets: ['hunter2-SECRET-pw'],
};
