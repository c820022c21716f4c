import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { selfSigned } from '../../support/certs.ts';
import { tempDir } from '../../support/pharos.ts';
import { ChannelConfig } from '../../../src/domain/channels/index.ts';
import { ChannelError, createChannel, type AlertMessage, type Channel } from '../../../src/alerting/channels/index.ts';

// Issue #30 point 12: a real SMTP server (smtp-server) on 127.0.0.1 that offers AUTH PLAIN/LOGIN
// on a plain connection and no STARTTLS. With a password and default options, Pharos must never
// send AUTH there (the password would cross the network in cleartext); the server records every
// command it receives (through its logger) and every login attempt.

const PASSWORD = 'pl41n-SECRET-pw';
const seen = { commands: [] as string[], logins: [] as Array<{ user: string; password: string }>, mails: 0 };
const record = (meta: unknown) => {
  const command = (meta as { command?: unknown } | undefined)?.command;
  if (typeof command === 'string') seen.commands.push(command.toUpperCase());
};
const server = new SMTPServer({
  authOptional: true,
  allowInsecureAuth: true, // AUTH is advertised and accepted without TLS
  disabledCommands: ['STARTTLS'],
  logger: { trace: record, debug: record, info: record, warn: record, error: record, fatal: record, level: () => 'debug', child: () => undefined } as never,
  onAuth(auth, _session, cb) {
    seen.logins.push({ user: auth.username ?? '', password: auth.password ?? '' });
    cb(null, { user: auth.username });
  },
  onData(stream, _session, cb) {
    stream.resume();
    stream.on('end', () => {
      seen.mails++;
      cb();
    });
  },
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const port = (server.server.address() as AddressInfo).port;
const opened: Channel[] = [];
after(async () => {
  await Promise.all(opened.map((c) => c.close()));
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const open = (smtp: Record<string, unknown>) => {
  const ch = createChannel(ChannelConfig.parse({ name: 'ops-mail', type: 'email', from: 'pharos@example.com', to: ['oncall@example.com'], smtp: { host: '127.0.0.1', port, user: 'pharos', password: PASSWORD, timeout_seconds: 5, ...smtp } }));
  opened.push(ch);
  return ch;
};
const message: AlertMessage = { kind: 'notice', title: 'Test', text: 'A test.', outage: null, escalation: null, link: null, createdAt: '2025-03-04T05:07:00.000Z' };
const reset = () => {
  seen.commands = [];
  seen.logins = [];
  seen.mails = 0;
};

describe('email channel: no password over a plain connection', () => {
  test('default options and a server without STARTTLS: no AUTH is sent, the delivery fails permanently naming allow_plaintext_auth', async () => {
    reset();
    const err = await open({}).send(message, { deliveryId: 'dlv_1' }).then(() => null, (e: unknown) => e);
    assert.ok(err instanceof ChannelError, `a ChannelError, got ${String(err)}`);
    assert.equal(err.permanent, true, 'retrying cannot help: the server will not offer TLS next time either');
    assert.match(err.message, /allow_plaintext_auth/);
    assert.ok(!err.message.includes(PASSWORD), 'the error never carries the password');
    assert.ok(seen.commands.includes('EHLO'), `the server saw the session (${seen.commands.join(', ')})`);
    assert.ok(!seen.commands.includes('AUTH'), `no AUTH command reached the server (${seen.commands.join(', ')})`);
    assert.deepEqual(seen.logins, [], 'no credentials arrived');
    assert.equal(seen.mails, 0);
  });

  test('require_tls: false changes nothing: still no AUTH without TLS', async () => {
    reset();
    const err = await open({ require_tls: false }).send(message, { deliveryId: 'dlv_2' }).then(() => null, (e: unknown) => e);
    assert.ok(err instanceof ChannelError && err.permanent && /allow_plaintext_auth/.test(err.message));
    assert.ok(!seen.commands.includes('AUTH'));
    assert.deepEqual(seen.logins, []);
  });

  test('allow_plaintext_auth: true logs in over the plain connection and delivers', async () => {
    reset();
    const answer = await open({ allow_plaintext_auth: true }).send(message, { deliveryId: 'dlv_3' });
    assert.equal(answer.status, 250);
    assert.ok(seen.commands.includes('AUTH'));
    assert.deepEqual(seen.logins, [{ user: 'pharos', password: PASSWORD }]);
    assert.equal(seen.mails, 1);
  });

  test('a server that offers STARTTLS: the default upgrades first, then logs in', async () => {
    const cert = selfSigned(tempDir(), 'IP:127.0.0.1');
    const logins: string[] = [];
    const tlsServer = new SMTPServer({
      ...cert,
      authOptional: true,
      logger: false,
      onAuth(auth, session, cb) {
        logins.push(`${auth.username}:${session.secure ? 'tls' : 'plain'}`);
        cb(null, { user: auth.username });
      },
      onData: (stream, _session, cb) => (stream.resume(), stream.on('end', () => cb())),
    });
    await new Promise<void>((resolve) => tlsServer.listen(0, '127.0.0.1', resolve));
    try {
      const tlsPort = (tlsServer.server.address() as AddressInfo).port;
      const ch = open({ port: tlsPort, tls_reject_unauthorized: false });
      await ch.send(message, { deliveryId: 'dlv_5' });
      assert.deepEqual(logins, ['pharos:tls']);
    } finally {
      await new Promise<void>((resolve) => tlsServer.close(() => resolve()));
    }
  });

  test('without a user nothing is refused: mail goes out without AUTH', async () => {
    reset();
    const ch = createChannel(ChannelConfig.parse({ name: 'anon-mail', type: 'email', from: 'pharos@example.com', to: ['oncall@example.com'], smtp: { host: '127.0.0.1', port, timeout_seconds: 5 } }));
    opened.push(ch);
    await ch.send(message, { deliveryId: 'dlv_4' });
    assert.equal(seen.mails, 1);
    assert.deepEqual(seen.logins, []);
  });
});
