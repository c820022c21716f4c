import { test } from 'node:test';
import assert from 'node:assert/strict';
import { keepSecrets, maskMonitor, maskUrl } from '../../../src/protocols/secrets.ts';
import { PROTOCOL_SECRETS } from '../../../src/protocols/index.ts';

test('maskUrl hides only the password, the rest as given; odd URLs never leak', () => {
  const cases: Array<[string, string]> = [
    ['postgres://app:s3cret@db:5432/app', 'postgres://app:***@db:5432/app'],
    ['postgres://app:p@ss@db/app', 'postgres://app:***@db/app'], // the last @ ends the userinfo (WHATWG)
    ['redis://:pw@127.0.0.1:6379/0', 'redis://:***@127.0.0.1:6379/0'],
    ['HTTPS://u:pw@Example.com', 'HTTPS://u:***@Example.com'],
    ['https://u:pw@[::1]:8443/x?a=b@c', 'https://u:***@[::1]:8443/x?a=b@c'],
    ['https://example.com/a:b@c', 'https://example.com/a:b@c'], // an @ in the path is no userinfo
    ['https://user@example.com/', 'https://user@example.com/'],
    ['https://u:@example.com/', 'https://u:@example.com/'],
    ['db.example.com:5432', 'db.example.com:5432'],
    ['10.0.0.1', '10.0.0.1'],
  ];
  for (const [url, shown] of cases) assert.equal(maskUrl(url), shown, url);
  // For http(s) a backslash ends the authority; whatever the string scan makes of it, the WHATWG
  // parse has the last word and nothing of the password is left.
  for (const odd of ['http://u:pw@h\\x@y/', 'mysql://u:pw\\x@h/db', ' postgres://u:pw@h/db']) assert.ok(!maskUrl(odd).includes('pw'), odd);
});

test('maskMonitor masks the url and the declared secrets; every seed protocol declares request_headers', () => {
  for (const p of ['http', 'port', 'icmp'] as const) assert.equal(PROTOCOL_SECRETS[p].request_headers, 'header_values', p);
  const m = { protocol: 'http' as const, url: 'https://a:b@h/', settings: { request_headers: [{ name: 'X', value: 'v' }], request_body: 'keep' } };
  assert.deepEqual(maskMonitor(m), { protocol: 'http', url: 'https://a:***@h/', settings: { request_headers: [{ name: 'X', value: '***' }], request_body: 'keep' } });
  assert.deepEqual(m.settings.request_headers, [{ name: 'X', value: 'v' }], 'the input is not changed');
});

test('keepSecrets: *** stands for the stored value of the same target only', () => {
  const current = { protocol: 'http' as const, url: 'https://a:pw@h/x', settings: { request_headers: [{ name: 'Auth', value: 'one' }, { name: 'auth', value: 'two' }] } };
  const kept = keepSecrets({ url: 'https://a:***@h/other', request_headers: [{ name: 'AUTH', value: '***' }, { name: 'Auth', value: '***' }] }, current);
  assert.deepEqual(kept, { url: 'https://a:pw@h/other', request_headers: [{ name: 'AUTH', value: 'one' }, { name: 'Auth', value: 'two' }] });
  assert.throws(() => keepSecrets({ url: 'https://a:***@elsewhere/x' }, current), /^AppError: url: .*target/);
  assert.throws(() => keepSecrets({ url: 'https://b:***@h/x' }, current), /url: /);
  assert.throws(() => keepSecrets({ url: 'https://elsewhere/', request_headers: [{ name: 'Auth', value: '***' }] }, current), /request_headers\.0\.value: .*target/);
  assert.throws(() => keepSecrets({ url: undefined, request_headers: [{ name: 'Auth', value: 'x' }, { name: 'Other', value: '***' }] }, current), /request_headers\.1\.value: .*no stored header "Other"/);
  assert.throws(() => keepSecrets({ url: 'postgres://a:***@h/db', protocol: 'postgres' }, null), /url: /);
  const plain = { url: 'https://h/', request_headers: [{ name: 'A', value: 'b' }] };
  assert.deepEqual(keepSecrets(plain, current), plain, 'no *** → as given');
});
