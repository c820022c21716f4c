import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { loadConfig, parseConfig } from '../../../src/config/load.ts';
import { tempDir } from '../../support/pharos.ts';

test('config.example.yaml parses against the schema and states the defaults (house rule 7)', () => {
  const example = parse(readFileSync(new URL('../../../config.example.yaml', import.meta.url), 'utf8'));
  assert.deepEqual(parseConfig(example), parseConfig({}));
});

test('unknown keys and bad values name the key', () => {
  assert.throws(() => parseConfig({ lisen: '1' }), /config: lisen: unknown config key/);
  assert.throws(() => parseConfig({ probe: { regoin: 'x' } }), /config: probe\.regoin: unknown config key/);
  assert.throws(() => parseConfig({ probe: { region: 'mars' } }), /config: probe\.region: /);
  assert.throws(() => parseConfig({ listen: 'nope' }), /config: listen: must be host:port/);
});

test('environment overrides the file', () => {
  const dir = tempDir();
  const file = join(dir, 'c.yaml');
  writeFileSync(file, 'listen: "127.0.0.1:9000"\ndata_dir: /tmp/x\n');
  const c = loadConfig({ PHAROS_CONFIG: file, PHAROS_LISTEN: '127.0.0.1:9100' });
  assert.equal(c.listen, '127.0.0.1:9100');
  assert.equal(c.data_dir, '/tmp/x');
  assert.throws(() => loadConfig({ PHAROS_CONFIG: join(dir, 'missing.yaml') }), /config: cannot read/);
  writeFileSync(file, 'listen: [');
  assert.throws(() => loadConfig({ PHAROS_CONFIG: file }), /not valid YAML/);
});

test('console.sso must name a configured identity provider (or be an sso_… connection uuid); domains are domains', () => {
  const idp = { name: 'corp', type: 'oidc', issuer: 'https://id.example.com', client_id: 'pharos', client_secret: 's' };
  assert.throws(() => parseConfig({ console: { sso: 'corp' } }), /config: console\.sso: unknown identity provider "corp"/);
  assert.equal(parseConfig({ identity_providers: [idp], console: { sso: 'corp' } }).console.sso, 'corp');
  assert.equal(parseConfig({ console: { sso: 'sso_abc' } }).console.sso, 'sso_abc');
  assert.throws(() => parseConfig({ console: { sso_allowed_domains: ['@example.com'] } }), /config: console\.sso_allowed_domains\.0: must be a domain/);
  assert.deepEqual(parseConfig({}).console.sso_allowed_domains, []);
});
