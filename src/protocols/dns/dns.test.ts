import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import dns2 from 'dns2';
import { createProbes } from '../../engine/probes/index.ts';
import { startTestPharos, type TestPharos } from '../../../test/support/pharos.ts';
import { upDownRecover } from '../../../test/support/monitor-flow.ts';
import { pick, probeContract, specOf } from '../../../test/support/probe-contract.ts';
import { ptrName } from './index.ts';

// A local authoritative DNS server (dns2) on 127.0.0.1 answering from a zone the test edits.
const { Packet } = dns2;
type Rec = { type: number; data: Record<string, unknown> };
const zone = new Map<string, Rec[]>();
const resetZone = () => {
  zone.clear();
  zone.set('db.example.lan', [{ type: Packet.TYPE.A, data: { address: '10.0.0.5' } }]);
  zone.set('example.lan', [
    { type: Packet.TYPE.MX, data: { exchange: 'mail.example.lan', priority: 10 } },
    { type: Packet.TYPE.TXT, data: { data: 'v=spf1 -all' } },
  ]);
  // Reverse names (PTR) of 10.0.0.5 and 2001:db8::5.
  zone.set('5.0.0.10.in-addr.arpa', [{ type: Packet.TYPE.PTR, data: { domain: 'db.example.lan' } }]);
  zone.set(`5.${'0.'.repeat(23)}8.b.d.0.1.0.0.2.ip6.arpa`, [{ type: Packet.TYPE.PTR, data: { domain: 'db6.example.lan' } }]);
};
resetZone();
const clients = new Set<string>();
const server = dns2.createServer({
  udp: true,
  handle: (request, send, rinfo) => {
    clients.add((rinfo as { address: string }).address);
    const response = Packet.createResponseFromRequest(request);
    const [q] = request.questions;
    const records = zone.get(q!.name.toLowerCase());
    if (!records) response.header.rcode = 3; // NXDOMAIN
    else for (const r of records.filter((r) => r.type === q!.type)) response.answers.push({ name: q!.name, type: r.type, class: Packet.CLASS.IN, ttl: 60, ...r.data } as unknown as (typeof response.answers)[number]);
    send(response);
  },
});
let resolver = '';
before(async () => {
  await server.listen({ udp: { port: 0, address: '127.0.0.1' } });
  resolver = `127.0.0.1:${server.addresses().udp!.port}`;
});
after(() => server.close());

const probes = createProbes({ userAgent: 'pharos-test' });
after(() => probes.dns.close());
const dnsSpec = (name: string, over: Record<string, unknown> = {}) => specOf({ url: name, protocol: 'dns', timeoutSeconds: 2, dns_resolver: resolver, ...over });

probeContract('dns', () => probes.dns, { pass: async () => dnsSpec('db.example.lan'), fail: async () => dnsSpec('nx.example.lan') });

describe('dns probe', () => {
  test('record types and expected values (exact, case-insensitive, /pattern/)', async () => {
    assert.equal((await probes.dns.check(dnsSpec('db.example.lan', { dns_expected: '10.0.0.5' }))).ok, true);
    assert.equal((await probes.dns.check(dnsSpec('example.lan', { dns_record_type: 'MX', dns_expected: '10 MAIL.example.lan.' }))).ok, true);
    assert.equal((await probes.dns.check(dnsSpec('example.lan', { dns_record_type: 'TXT', dns_expected: '/^v=spf1 /' }))).ok, true);
    assert.deepEqual(pick(await probes.dns.check(dnsSpec('db.example.lan', { dns_expected: '10.0.0.9' }))), { ok: false, statusCode: 0, reason: 'A db.example.lan was 10.0.0.5, expected 10.0.0.9' });
  });
  test('PTR (issue 35 point 7): an address is asked as its reverse name; the name itself works too', async () => {
    assert.equal(ptrName('10.0.0.5'), '5.0.0.10.in-addr.arpa');
    assert.equal(ptrName('2001:db8::5'), `5.${'0.'.repeat(23)}8.b.d.0.1.0.0.2.ip6.arpa`);
    assert.deepEqual(pick(await probes.dns.check(dnsSpec('10.0.0.5', { dns_record_type: 'PTR', dns_expected: 'db.example.lan' }))), { ok: true, statusCode: 0, reason: null });
    assert.equal((await probes.dns.check(dnsSpec('5.0.0.10.in-addr.arpa', { dns_record_type: 'PTR', dns_expected: 'DB.example.lan.' }))).ok, true);
    assert.equal((await probes.dns.check(dnsSpec('2001:db8::5', { dns_record_type: 'PTR', dns_expected: 'db6.example.lan' }))).ok, true);
    assert.deepEqual(pick(await probes.dns.check(dnsSpec('10.0.0.5', { dns_record_type: 'PTR', dns_expected: 'web.example.lan' }))), { ok: false, statusCode: 0, reason: 'PTR 10.0.0.5 was db.example.lan, expected web.example.lan' });
    assert.equal((await probes.dns.check(dnsSpec('10.0.0.6', { dns_record_type: 'PTR' }))).reason, 'NXDOMAIN for 10.0.0.6');
  });
  test('human reasons: NXDOMAIN, no record of the type, resolver down', async () => {
    assert.equal((await probes.dns.check(dnsSpec('nx.example.lan'))).reason, 'NXDOMAIN for nx.example.lan');
    assert.equal((await probes.dns.check(dnsSpec('db.example.lan', { dns_record_type: 'AAAA' }))).reason, 'No AAAA record for db.example.lan');
  });
  test('probe.source_address: the query leaves from the configured address', async () => {
    const from = createProbes({ userAgent: 'pharos-test', sourceAddress: '127.0.0.3' });
    clients.clear();
    try {
      assert.equal((await from.dns.check(dnsSpec('db.example.lan'))).ok, true);
    } finally {
      await from.dns.close();
    }
    assert.deepEqual([...clients], ['127.0.0.3']);
  });
});

describe('dns monitor over the API', () => {
  let p: TestPharos;
  before(async () => (p = await startTestPharos()));
  after(() => p.cleanup());
  test('up, down with "NXDOMAIN for db.example.lan", recovery; fields shown; fields of other protocols refused', async () => {
    const m = await upDownRecover(p, { name: 'DB name', url: 'db.example.lan', protocol: 'dns', dns_resolver: resolver, timeout: 2 }, {
      breakIt: () => void zone.delete('db.example.lan'),
      reason: 'NXDOMAIN for db.example.lan',
      fixIt: resetZone,
    });
    assert.equal(m.protocol, 'dns');
    assert.deepEqual([m.dns_record_type, m.dns_resolver, m.dns_expected], ['A', resolver, null]);
    assert.equal(m.http_method, undefined, 'API.md http fields belong to http, port and icmp');
    const bad = await p.api('/v1/monitors', { method: 'POST', json: { name: 'x', url: 'db.example.lan', protocol: 'dns', follow_redirects: true, dns_record_type: 'MX' } });
    assert.equal(bad.status, 400);
    assert.equal((await bad.json()).message, 'follow_redirects: not a setting of protocol "dns"');
    const ptr = await p.api('/v1/monitors', { method: 'POST', json: { name: 'PTR', url: '10.0.0.5', protocol: 'dns', dns_record_type: 'PTR', dns_expected: 'db.example.lan', dns_resolver: resolver, paused: true } });
    assert.equal(ptr.status, 201, 'dns_record_type PTR is accepted (hyperping-go AllowedDNSRecordTypes)');
    assert.deepEqual([(await ptr.json()).dns_record_type], ['PTR']);
    const badResolver = await p.api('/v1/monitors', { method: 'POST', json: { name: 'x', url: 'db.example.lan', protocol: 'dns', dns_resolver: 'ns1.example.lan' } });
    assert.match((await badResolver.json()).message, /^dns_resolver: must be an IP address/);
  });
});
