import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createSocket, type Socket } from 'node:dgram';
import { createProbes } from '../../engine/probes/index.ts';
import { startTestPharos, type TestPharos } from '../../../test/support/pharos.ts';
import { upDownRecover } from '../../../test/support/monitor-flow.ts';
import { pick, probeContract, specOf } from '../../../test/support/probe-contract.ts';
import { writeNtpTime } from './packet.ts';

// A local NTP server on a loopback UDP port answering as RFC 5905 describes (mode 4, the request's
// transmit time echoed as origin, receive and transmit times), its clock `offsetMs` off this host's,
// with a settable stratum, leap indicator, kiss code (stratum 0), or silence; `from` records senders.
const fake = { offsetMs: 0, stratum: 2, leap: 0, kiss: '', silent: false };
const from: string[] = [];
let server: Socket;
let port = 0;
before(async () => {
  server = createSocket('udp4');
  server.on('message', (req, rinfo) => {
    from.push(rinfo.address);
    if (fake.silent || req.length < 48) return;
    const res = Buffer.alloc(48);
    res[0] = (fake.leap << 6) | (4 << 3) | 4;
    res[1] = fake.kiss ? 0 : fake.stratum;
    res[2] = 6;
    res.write(fake.kiss || 'GPS', 12, 'latin1');
    req.copy(res, 24, 40, 48);
    writeNtpTime(res, 32, Date.now() + fake.offsetMs);
    writeNtpTime(res, 40, Date.now() + fake.offsetMs);
    server.send(res, rinfo.port, rinfo.address);
  });
  await new Promise<void>((r) => server.bind(0, '127.0.0.1', r));
  port = server.address().port;
});
after(() => server?.close());
const reset = () => Object.assign(fake, { offsetMs: 0, stratum: 2, leap: 0, kiss: '', silent: false });

const probes = createProbes({ userAgent: 'pharos-test' });
after(() => probes.ntp.close());
const ntpSpec = (over: Record<string, unknown> = {}) => specOf({ url: '127.0.0.1', protocol: 'ntp', port, timeoutSeconds: 1, ...over });

probeContract('ntp', () => probes.ntp, { pass: async () => ntpSpec(), fail: async () => ntpSpec({ ntp_max_stratum: 1 }) });

describe('ntp probe', () => {
  test('offset, stratum, an unsynchronized server, a kiss-o\'-death and silence are named', async () => {
    try {
      assert.deepEqual(pick(await probes.ntp.check(ntpSpec())), { ok: true, statusCode: 0, reason: null });
      fake.offsetMs = 5000;
      assert.equal((await probes.ntp.check(ntpSpec())).reason?.replace(/\d\.\d\d s/, 'N s'), 'offset +N s, limit 1000 ms');
      assert.equal((await probes.ntp.check(ntpSpec({ ntp_max_offset_ms: null }))).ok, true, 'no offset limit');
      fake.offsetMs = 0;
      fake.stratum = 5;
      assert.equal((await probes.ntp.check(ntpSpec({ ntp_max_stratum: 3 }))).reason, 'stratum 5, limit 3');
      fake.stratum = 16;
      assert.equal((await probes.ntp.check(ntpSpec())).reason, 'server is not synchronized (stratum 16)');
      fake.stratum = 2;
      fake.leap = 3;
      assert.equal((await probes.ntp.check(ntpSpec())).reason, 'server is not synchronized (leap indicator 3)');
      fake.leap = 0;
      fake.kiss = 'RATE';
      assert.equal((await probes.ntp.check(ntpSpec())).reason, "kiss-o'-death RATE");
      fake.kiss = '';
      fake.silent = true;
      assert.equal((await probes.ntp.check(ntpSpec())).reason, 'Timeout after 1 s');
    } finally {
      reset();
    }
  });
  test('probe.source_address: the query leaves from the configured address', async () => {
    const via = createProbes({ userAgent: 'pharos-test', sourceAddress: '127.0.0.3' });
    try {
      assert.equal((await via.ntp.check(ntpSpec())).ok, true);
    } finally {
      await via.ntp.close();
    }
    assert.equal(from.at(-1), '127.0.0.3');
  });
});

describe('ntp monitor over the API', () => {
  let p: TestPharos;
  before(async () => (p = await startTestPharos()));
  after(() => p.cleanup());
  test('up, down with the server\'s stratum 16, recovery', async () => {
    const created = await upDownRecover(p, { name: 'Time', url: '127.0.0.1', port, protocol: 'ntp', timeout: 2 }, {
      breakIt: () => void (fake.stratum = 16),
      reason: 'server is not synchronized (stratum 16)',
      fixIt: () => void (fake.stratum = 2),
    });
    assert.deepEqual([created.ntp_max_offset_ms, created.ntp_max_stratum], [1000, null]);
    const bad = await p.api('/v1/monitors', { method: 'POST', json: { name: 'x', url: '127.0.0.1', protocol: 'ntp', ntp_max_stratum: 16 } });
    assert.equal(bad.status, 400);
    assert.match(((await bad.json()) as { message: string }).message, /^ntp_max_stratum: must be from 1 to 15/);
  });
});
