import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadConfig, parseConfig } from '../../../src/config/load.ts';
import { LETS_ENCRYPT_DIRECTORY } from '../../../src/config/tls.ts';

// The `tls` block (issue 37 point 2, docs/operations.md "HTTPS"): files or ACME, never both; errors name the key.
test('tls: certificate files or ACME, with the defaults; mistakes name the key', () => {
  assert.equal(parseConfig({}).tls, undefined);
  const files = parseConfig({ tls: { cert: '/c.pem', key: '/k.pem' } }).tls!;
  assert.deepEqual(files, { cert: '/c.pem', key: '/k.pem', redirect: true, hsts_max_age_seconds: 0 });
  const acme = parseConfig({ tls: { acme: { email: 'ops@example.com', domains: ['status.example.com'] }, http_listen: '0.0.0.0:80' } }).tls!.acme!;
  assert.deepEqual(acme, { email: 'ops@example.com', domains: ['status.example.com'], directory: LETS_ENCRYPT_DIRECTORY, challenge: 'http-01', page_hostnames: true });
  assert.equal(parseConfig({ tls: { acme: { email: 'ops@example.com', challenge: 'tls-alpn-01' } } }).tls!.http_listen, undefined);

  assert.throws(() => parseConfig({ tls: {} }), /config: tls\.acme: is required unless cert and key are given/);
  assert.throws(() => parseConfig({ tls: { cert: '/c.pem' } }), /config: tls\.key: is required with cert/);
  assert.throws(() => parseConfig({ tls: { cert: '/c.pem', key: '/k.pem', acme: { email: 'ops@example.com' } } }), /config: tls\.acme: cannot be set with cert\/key/);
  assert.throws(() => parseConfig({ tls: { acme: { email: 'ops@example.com' } } }), /config: tls\.http_listen: is required for the http-01 challenge/);
  assert.throws(() => parseConfig({ tls: { acme: { email: 'nobody', challenge: 'tls-alpn-01' } } }), /config: tls\.acme\.email: must be an email address/);
  assert.throws(() => parseConfig({ tls: { acme: { email: 'ops@example.com', domains: ['*.example.com'], challenge: 'tls-alpn-01' } } }), /config: tls\.acme\.domains\.0: must be a host name/);
  assert.throws(() => parseConfig({ tls: { acme: { email: 'ops@example.com', challenge: 'dns-01' } } }), /config: tls\.acme\.challenge: /);
  assert.throws(() => parseConfig({ tls: { cert: '/c.pem', key: '/k.pem', hsts: true } }), /config: tls\.hsts: unknown config key/);
});

test('tls: public_url following listen says https', () => {
  assert.equal(parseConfig({ listen: '0.0.0.0:8443', tls: { cert: '/c.pem', key: '/k.pem' } }).public_url, 'https://localhost:8443');
  assert.equal(parseConfig({ listen: '0.0.0.0:8443' }).public_url, 'http://localhost:8443');
});

test('tls from the environment alone (containers): PHAROS_ACME_* and PHAROS_TLS_* over config.yaml', () => {
  const c = loadConfig({ PHAROS_ACME_EMAIL: 'ops@example.com', PHAROS_ACME_DOMAINS: 'a.example.com, b.example.com', PHAROS_TLS_HTTP_LISTEN: '0.0.0.0:8080', PHAROS_LISTEN: '0.0.0.0:8443' });
  assert.deepEqual(c.tls!.acme!.domains, ['a.example.com', 'b.example.com']);
  assert.equal(c.tls!.http_listen, '0.0.0.0:8080');
  assert.equal(c.public_url, 'https://localhost:8443');
  const files = loadConfig({ PHAROS_TLS_CERT: '/c.pem', PHAROS_TLS_KEY: '/k.pem', PHAROS_ACME_CHALLENGE: '' });
  assert.deepEqual([files.tls!.cert, files.tls!.key, files.tls!.acme], ['/c.pem', '/k.pem', undefined]);
  assert.equal(loadConfig({}).tls, undefined);
});
