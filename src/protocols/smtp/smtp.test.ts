import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { getCACertificates, setDefaultCACertificates } from 'node:tls';
import { SMTPServer, type SMTPServerOptions } from 'smtp-server';
import { createProbes } from '../../engine/probes/index.ts';
import { selfSigned, testCa } from '../../../test/support/certs.ts';
import { startTestPharos, tempDir, type TestPharos } from '../../../test/support/pharos.ts';
import { upDownRecover } from '../../../test/support/monitor-flow.ts';
import { pick, probeContract, specOf } from '../../../test/support/probe-contract.ts';

// Local smtp-server instances on 127.0.0.1: plain with STARTTLS (a leaf of a test CA trusted in this
// process only, as the system roots would be), plain without STARTTLS, implicit TLS, and STARTTLS with
// a self-signed certificate. `refusing` makes the first one greet with 421, as a busy server does.
const dir = tempDir();
const ca = testCa(dir);
setDefaultCACertificates([...getCACertificates('default'), ca.cert]);
const good = ca.leaf('mail', 'IP:127.0.0.1', -1, 90);
const self = selfSigned(dir, 'IP:127.0.0.1');
let refusing = false;
let mails = 0;
const servers: SMTPServer[] = [];
const ports = { starttls: 0, plain: 0, tls: 0, self: 0 };
async function start(opts: SMTPServerOptions): Promise<number> {
  const s = new SMTPServer({
    authOptional: true,
    banner: 'mail.test ESMTP ready',
    onConnect: (_session, cb) => (refusing ? cb(Object.assign(new Error('Too many connections, try again later'), { responseCode: 421 })) : cb()),
    onData: (stream, _s, cb) => (mails++, stream.resume(), stream.on('end', () => cb())),
    ...opts,
  });
  s.on('error', () => {}); // a client hanging up mid-handshake is not the test's concern
  servers.push(s);
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  return (s.server.address() as AddressInfo).port;
}
before(async () => {
  ports.starttls = await start({ key: good.key, cert: good.cert });
  ports.plain = await start({ hideSTARTTLS: true });
  ports.tls = await start({ secure: true, key: good.key, cert: good.cert });
  ports.self = await start({ key: self.key, cert: self.cert });
});
after(() => servers.forEach((s) => s.close()));

const probes = createProbes({ userAgent: 'pharos-test' });
after(() => probes.smtp.close());
const smtpSpec = (port: number, over: Record<string, unknown> = {}) => specOf({ url: '127.0.0.1', protocol: 'smtp', port, timeoutSeconds: 3, ...over });

probeContract('smtp', () => probes.smtp, { pass: async () => smtpSpec(ports.starttls, { smtp_tls: 'starttls' }), fail: async () => smtpSpec(ports.plain, { smtp_tls: 'starttls' }) });

describe('smtp probe', () => {
  test('EHLO with and without STARTTLS, implicit TLS; no mail is sent', async () => {
    assert.deepEqual(pick(await probes.smtp.check(smtpSpec(ports.plain))), { ok: true, statusCode: 0, reason: null });
    assert.equal((await probes.smtp.check(smtpSpec(ports.starttls, { smtp_tls: 'starttls' }))).ok, true);
    assert.equal((await probes.smtp.check(smtpSpec(ports.tls, { smtp_tls: 'tls' }))).ok, true);
    assert.equal(mails, 0);
  });
  test('the server\'s refusals and TLS problems are the reasons', async () => {
    assert.equal((await probes.smtp.check(smtpSpec(ports.plain, { smtp_tls: 'starttls' }))).reason, 'STARTTLS not offered');
    assert.equal((await probes.smtp.check(smtpSpec(ports.self, { smtp_tls: 'starttls' }))).reason, 'TLS error: DEPTH_ZERO_SELF_SIGNED_CERT');
    refusing = true;
    try {
      assert.equal((await probes.smtp.check(smtpSpec(ports.plain))).reason, 'greeting was 421 Too many connections, try again later');
    } finally {
      refusing = false;
    }
    assert.equal((await probes.smtp.check(smtpSpec(ports.tls, { smtp_tls: 'none', timeoutSeconds: 1 }))).reason, 'Timeout after 1 s', 'a TLS port does not greet in plain text');
  });
});

describe('smtp monitor over the API', () => {
  let p: TestPharos;
  before(async () => (p = await startTestPharos()));
  after(() => p.cleanup());
  test('up, down with the server\'s 421, recovery (STARTTLS)', async () => {
    const created = await upDownRecover(p, { name: 'Mail', url: '127.0.0.1', port: ports.starttls, protocol: 'smtp', smtp_tls: 'starttls', timeout: 3 }, {
      breakIt: () => void (refusing = true),
      reason: 'greeting was 421 Too many connections, try again later',
      fixIt: () => void (refusing = false),
    });
    assert.equal(created.smtp_tls, 'starttls');
    const bad = await p.api('/v1/monitors', { method: 'POST', json: { name: 'x', url: '127.0.0.1', protocol: 'smtp', smtp_tls: 'ssl' } });
    assert.equal(bad.status, 400);
    assert.match(((await bad.json()) as { message: string }).message, /^smtp_tls: must be one of none, starttls, tls/);
  });
});
