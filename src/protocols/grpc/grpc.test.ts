import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Server, ServerCredentials } from '@grpc/grpc-js';
import { HealthImplementation } from 'grpc-health-check';
import { getCACertificates, setDefaultCACertificates } from 'node:tls';
import { createProbes } from '../../engine/probes/index.ts';
import { testCa } from '../../../test/support/certs.ts';
import { startTestPharos, tempDir, type TestPharos } from '../../../test/support/pharos.ts';
import { upDownRecover } from '../../../test/support/monitor-flow.ts';
import { pick, probeContract, specOf } from '../../../test/support/probe-contract.ts';

// A local grpc-js server on 127.0.0.1 with the standard health service, whose statuses the test flips.
const health = new HealthImplementation({ '': 'SERVING', 'shop.Cart': 'SERVING' });
const server = new Server();
health.addToServer(server);
let port = 0;
before(async () => {
  port = await new Promise<number>((resolve, reject) => server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (e, p) => (e ? reject(e) : resolve(p))));
});
after(() => server.forceShutdown());

const probes = createProbes({ userAgent: 'pharos-test' });
after(() => probes.grpc.close());
const grpcSpec = (over: Record<string, unknown> = {}) => specOf({ url: '127.0.0.1', protocol: 'grpc', port, timeoutSeconds: 3, ...over });

probeContract('grpc', () => probes.grpc, { pass: async () => grpcSpec(), fail: async () => grpcSpec({ grpc_service: 'no.Such' }) });

describe('grpc probe', () => {
  test('SERVING passes; NOT_SERVING and unknown services fail with the health status', async () => {
    assert.equal((await probes.grpc.check(grpcSpec({ grpc_service: 'shop.Cart' }))).ok, true);
    health.setStatus('shop.Cart', 'NOT_SERVING');
    try {
      assert.deepEqual(pick(await probes.grpc.check(grpcSpec({ grpc_service: 'shop.Cart' }))), { ok: false, statusCode: 0, reason: 'NOT_SERVING (shop.Cart)' });
    } finally {
      health.setStatus('shop.Cart', 'SERVING');
    }
    assert.equal((await probes.grpc.check(grpcSpec({ grpc_service: 'no.Such' }))).reason, 'SERVICE_UNKNOWN (no.Such)');
  });
});

describe('grpc over TLS', () => {
  test('grpc_tls verifies the server against the trusted roots (a test CA trusted in this process)', async () => {
    const ca = testCa(tempDir());
    setDefaultCACertificates([...getCACertificates('default'), ca.cert]);
    const leaf = ca.leaf('grpc', 'IP:127.0.0.1', -1, 90);
    const secure = new Server();
    new HealthImplementation({ '': 'SERVING' }).addToServer(secure);
    const tlsPort = await new Promise<number>((resolve, reject) =>
      secure.bindAsync('127.0.0.1:0', ServerCredentials.createSsl(null, [{ private_key: Buffer.from(leaf.key), cert_chain: Buffer.from(leaf.cert) }]), (e, p) => (e ? reject(e) : resolve(p))),
    );
    try {
      assert.deepEqual(pick(await probes.grpc.check(grpcSpec({ port: tlsPort, grpc_tls: true }))), { ok: true, statusCode: 0, reason: null });
      assert.equal((await probes.grpc.check(grpcSpec({ port: tlsPort, grpc_tls: false }))).ok, false, 'plain text to a TLS port fails');
    } finally {
      secure.forceShutdown();
    }
  });
});

describe('grpc monitor over the API', () => {
  let p: TestPharos;
  before(async () => (p = await startTestPharos()));
  after(() => p.cleanup());
  test('up, down with "NOT_SERVING" when the server health flips, recovery', async () => {
    const m = await upDownRecover(p, { name: 'Cart', url: '127.0.0.1', protocol: 'grpc', port, timeout: 3 }, {
      breakIt: () => health.setStatus('', 'NOT_SERVING'),
      reason: 'NOT_SERVING',
      fixIt: () => health.setStatus('', 'SERVING'),
    });
    assert.deepEqual([m.grpc_service, m.grpc_tls], ['', false]);
    const noPort = await p.api('/v1/monitors', { method: 'POST', json: { name: 'x', url: '127.0.0.1', protocol: 'grpc' } });
    assert.equal((await noPort.json()).message, 'port: is required for protocol "grpc" unless the url carries a port');
  });
});
