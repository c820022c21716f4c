import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { createServer, getCACertificates, setDefaultCACertificates, type Server } from 'node:tls';
import { SMTPServer } from 'smtp-server';
import { createProbes } from '../../engine/probes/index.ts';
import { selfSigned, testCa } from '../../../test/support/certs.ts';
import { httpReceiver } from '../../../test/support/receivers.ts';
import { startTestPharos, tempDir, type TestPharos } from '../../../test/support/pharos.ts';
import { upDownRecover } from '../../../test/support/monitor-flow.ts';
import { pick, probeContract, specOf } from '../../../test/support/probe-contract.ts';

// Certificates made by openssl: a test CA (trusted in this test process only, as the system roots
// would be), a good leaf, an expired one, one for another host, one expiring in 5 days, a self-signed one.
const dir = tempDir();
const ca = testCa(dir);
setDefaultCACertificates([...getCACertificates('default'), ca.cert]);
const certs = {
  good: ca.leaf('good', 'IP:127.0.0.1', -1, 90),
  expired: ca.leaf('expired', 'IP:127.0.0.1', -30, -3),
  wrongHost: ca.leaf('wrong', 'DNS:other.example', -1, 90),
  soon: ca.leaf('soon', 'IP:127.0.0.1', -60, 5),
  self: selfSigned(dir, 'IP:127.0.0.1'),
};
const servers: Array<{ close(): unknown }> = [];
async function tlsServer(c: { key: string; cert: string }): Promise<{ port: number; server: Server }> {
  const server = createServer({ key: c.key, cert: c.cert }, (s) => s.end());
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return { port: (server.address() as AddressInfo).port, server };
}
const ports: Record<keyof typeof certs, number> = { good: 0, expired: 0, wrongHost: 0, soon: 0, self: 0 };
let smtpPort = 0;
before(async () => {
  for (const k of Object.keys(certs) as Array<keyof typeof certs>) ports[k] = (await tlsServer(certs[k])).port;
  const smtp = new SMTPServer({ secure: false, key: certs.good.key, cert: certs.good.cert, authOptional: true, onData: (s, _, cb) => (s.resume(), s.on('end', () => cb())) });
  servers.push(smtp);
  await new Promise<void>((r) => smtp.listen(0, '127.0.0.1', () => r()));
  smtpPort = (smtp.server.address() as AddressInfo).port;
});
after(() => servers.forEach((s) => s.close()));

const probes = createProbes({ userAgent: 'pharos-test' });
after(() => probes.tls.close());
const tlsSpec = (port: number, over: Record<string, unknown> = {}) => specOf({ url: '127.0.0.1', protocol: 'tls', port, timeoutSeconds: 5, ...over });

probeContract('tls', () => probes.tls, { pass: async () => tlsSpec(ports.good), fail: async () => tlsSpec(ports.expired) });

describe('tls probe', () => {
  test('a valid chain passes and reports days to expiry', async () => {
    const o = await probes.tls.check(tlsSpec(ports.good));
    assert.deepEqual([o.ok, o.sslExpirationDays], [true, 90]);
    const soon = await probes.tls.check(tlsSpec(ports.soon));
    assert.deepEqual([soon.ok, soon.sslExpirationDays], [true, 5]);
  });
  test('expired, wrong host and self-signed fail with a reason a person reads', async () => {
    assert.deepEqual(pick(await probes.tls.check(tlsSpec(ports.expired))), { ok: false, statusCode: 0, reason: 'certificate expired 3 days ago' });
    assert.deepEqual(pick(await probes.tls.check(tlsSpec(ports.wrongHost))), { ok: false, statusCode: 0, reason: 'certificate is not valid for 127.0.0.1 (it names other.example)' });
    assert.deepEqual(pick(await probes.tls.check(tlsSpec(ports.self))), { ok: false, statusCode: 0, reason: 'self-signed certificate' });
  });
  test('STARTTLS on SMTP', async () => {
    const o = await probes.tls.check(tlsSpec(smtpPort, { tls_starttls: 'smtp' }));
    assert.deepEqual([o.ok, o.reason, o.sslExpirationDays], [true, null, 90]);
    assert.equal((await probes.tls.check(tlsSpec(ports.good, { tls_starttls: 'smtp', timeoutSeconds: 1 }))).ok, false, 'a TLS port does not speak SMTP');
  });
  test('probe.source_address', async () => {
    const seen: string[] = [];
    const { port, server } = await tlsServer(certs.good);
    server.on('connection', (s) => seen.push(s.remoteAddress!));
    const from = createProbes({ userAgent: 'pharos-test', sourceAddress: '127.0.0.3' });
    try {
      assert.equal((await from.tls.check(tlsSpec(port))).ok, true);
    } finally {
      await from.tls.close();
    }
    assert.deepEqual(seen, ['127.0.0.3']);
  });
});

describe('tls and https monitors over the API', () => {
  let p: TestPharos;
  let hooks: Awaited<ReturnType<typeof httpReceiver>>;
  before(async () => {
    hooks = await httpReceiver();
    p = await startTestPharos({
      channels: [{ name: 'hook', type: 'webhook', url: `${hooks.url}/hook` }],
      escalation_policies: [{ uuid: 'ep_ops', name: 'Ops', steps: [{ after_minutes: 0, channels: ['hook'] }] }],
    });
  });
  after(async () => {
    await p.cleanup();
    await hooks.close();
  });

  test('up, down with "certificate expired 3 days ago", recovery after renewal', async () => {
    const { port, server } = await tlsServer(certs.good);
    const m = await upDownRecover(p, { name: 'Cert', url: '127.0.0.1', protocol: 'tls', port, timeout: 5 }, {
      breakIt: () => server.setSecureContext(certs.expired),
      reason: 'certificate expired 3 days ago',
      fixIt: () => server.setSecureContext(certs.good),
    });
    assert.deepEqual([m.tls_starttls, m.tls_expiry_days], ['none', [30, 14, 7, 1]]);
  });

  const notices = () => hooks.delivered('/hook').filter((b) => b.event === 'pharos.notice').map((b) => b.title as string);
  const checkNow = async (uuid: string) => {
    await p.advance(p.scheduler.nextDueAt(p.store.monitors.get(uuid)!.id)! - p.clock.now());
    await p.core.checks.flush();
    await p.dispatcher.settled();
  };

  test('a certificate 5 days from expiry: one notice through the escalation policy (threshold 7), not again on the next check; https monitors too', async () => {
    const tlsM = await (await p.api('/v1/monitors', { method: 'POST', json: { name: 'Mail cert', url: '127.0.0.1', protocol: 'tls', port: ports.soon, check_frequency: 60, escalation_policy: 'ep_ops' } })).json();
    await checkNow(tlsM.uuid);
    assert.equal((await (await p.api(`/v1/monitors/${tlsM.uuid}`)).json()).ssl_expiration, 5);
    assert.deepEqual(notices(), ['Certificate expires in 5 days: Mail cert (127.0.0.1)']);
    await checkNow(tlsM.uuid);
    assert.equal(notices().length, 1, 'once per threshold');

    const https = createHttpsServer({ key: certs.soon.key, cert: certs.soon.cert }, (_, res) => res.end('ok'));
    servers.push(https as HttpsServer);
    await new Promise<void>((r) => https.listen(0, '127.0.0.1', () => r()));
    const url = `https://127.0.0.1:${(https.address() as AddressInfo).port}/`;
    const off = await (await p.api('/v1/monitors', { method: 'POST', json: { name: 'Web quiet', url, check_frequency: 60, escalation_policy: 'ep_ops' } })).json();
    const on = await (await p.api('/v1/monitors', { method: 'POST', json: { name: 'Web', url, check_frequency: 60, escalation_policy: 'ep_ops', tls_expiry_days: [14, 3] } })).json();
    assert.deepEqual(on.tls_expiry_days, [14, 3]);
    await checkNow(off.uuid);
    await checkNow(on.uuid);
    assert.deepEqual(notices().slice(1), [`Certificate expires in 5 days: Web (${url})`], 'https monitors alert only when tls_expiry_days is set');
  });
});
