import { test } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import { parseExpectedStatuses, statusMatches } from '../../../src/protocols/seed.ts';
import { http } from '../../../src/protocols/http/index.ts';
import { protocolDefinition } from '../../../src/protocols/index.ts';
import { AppError } from '../../../src/lib/errors.ts';

// Issue 36: the http protocol's options as pure rules (the checks themselves: test/api/http-options.test.ts).
const settings = z.object(http.fields);
const parse = (over: Record<string, unknown>) => settings.parse({ ...http.defaults, ...over });
const field = (fn: () => void) => {
  try {
    fn();
  } catch (e) {
    return ((e as AppError).details as Array<{ path: string }> | undefined)?.[0]?.path ?? (e as Error).message;
  }
  return null;
};

test('status lists: each item a code, class or range; old single values unchanged', () => {
  assert.deepEqual(parseExpectedStatuses('200-299,301,501'), [{ min: 200, max: 299 }, { min: 301, max: 301 }, { min: 501, max: 501 }]);
  assert.deepEqual(parseExpectedStatuses('2xx'), [{ min: 200, max: 299 }]);
  assert.equal(statusMatches('200-299,301,501', 501), true);
  assert.equal(statusMatches('200-299,301,501', 302), false);
  assert.equal(statusMatches('1xx-3xx', 302), true);
  assert.equal(parse({ expected_status_code: ' 200-299 , 301 ' }).expected_status_code, '200-299,301');
  assert.equal(settings.shape.expected_status_code.safeParse('200,,301').success, false);
});

test('cross-field rules name the field', () => {
  assert.equal(field(() => http.validate(parse({ keyword_absent: true }))), 'required_keyword');
  assert.equal(field(() => http.validate(parse({ tls_client_key: '-----BEGIN PRIVATE KEY-----' }))), 'tls_client_cert');
  assert.equal(field(() => http.validate(parse({ auth_method: 'basic' }))), 'auth_username');
  assert.equal(field(() => http.validate(parse({ auth_method: 'oauth2_client_credentials', oauth2_token_url: 'https://idp/token', oauth2_client_id: 'x' }))), 'oauth2_client_secret');
  assert.equal(field(() => http.validate(parse({ auth_method: 'bearer', auth_token: 't' }))), null);
  assert.equal(settings.shape.proxy_url.safeParse('socks5://h:1080').success, false);
  assert.equal(settings.shape.proxy_url.safeParse('https://u:p@proxy:3128').success, true);
});

test('secrets are declared, and defaults are not shown (API.md clients see their fields only)', () => {
  assert.deepEqual(Object.keys(http.secrets).sort(), ['auth_password', 'auth_token', 'oauth2_client_secret', 'proxy_url', 'request_headers', 'tls_client_key']);
  const shown = http.show(http.defaults);
  for (const f of ['ignore_tls_errors', 'upside_down', 'keyword_absent', 'proxy_url', 'auth_method']) assert.ok(!(f in shown), f);
  // upside_down is every protocol's (the registry adds it): shown only when true
  const registered = protocolDefinition('http');
  assert.ok(!('upside_down' in registered.show!(registered.defaults)));
  assert.equal(registered.show!({ ...registered.defaults, upside_down: true }).upside_down, true);
});
