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
