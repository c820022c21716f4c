import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig, parseConfig } from '../../../src/config/load.ts';

// Issue #20: public_url follows listen when it is not set (ping URLs used to say localhost:8080
// whatever the listen address).
test('public_url follows listen when not set', () => {
  assert.equal(parseConfig({}).public_url, 'http://localhost:8080');
  assert.equal(parseConfig({ listen: '127.0.0.1:9000' }).public_url, 'http://127.0.0.1:9000');
  assert.equal(parseConfig({ listen: '0.0.0.0:9000' }).public_url, 'http://localhost:9000');
  assert.equal(parseConfig({ listen: ':9000' }).public_url, 'http://localhost:9000');
  assert.equal(parseConfig({ listen: '[::]:9000' }).public_url, 'http://localhost:9000');
  assert.equal(parseConfig({ listen: '[::1]:9000' }).public_url, 'http://[::1]:9000');
  assert.equal(parseConfig({ listen: 'monitor.lan:80' }).public_url, 'http://monitor.lan:80');
});

test('a set public_url wins, from the file or PHAROS_PUBLIC_URL; PHAROS_LISTEN moves the default too', () => {
  assert.equal(parseConfig({ listen: '127.0.0.1:9000', public_url: 'https://pharos.example.com' }).public_url, 'https://pharos.example.com');
  const env = { PHAROS_CONFIG: undefined, PHAROS_LISTEN: '10.0.0.5:7000' };
  assert.equal(loadConfig(env, '/dev/null').public_url, 'http://10.0.0.5:7000');
  assert.equal(loadConfig({ ...env, PHAROS_PUBLIC_URL: 'https://status.example.com' }, '/dev/null').public_url, 'https://status.example.com');
});

test('listen port 0 (picked at bind time) keeps the static default; a bad listen is still refused by name', () => {
  assert.equal(parseConfig({ listen: '127.0.0.1:0' }).public_url, 'http://localhost:8080');
  assert.throws(() => parseConfig({ listen: 'nonsense' }), /listen: must be host:port/);
});

test('maintenance mode: an unset ${VAR} becomes the inert https://unset.invalid/VAR; serve mode refuses, naming the key', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pharos-cfg-'));
  const file = join(dir, 'config.yaml');
  writeFileSync(
    file,
    `channels:
  - { name: ops-slack, type: slack, url: "\${SLACK_WEBHOOK_URL}" }
  - { name: hook, type: webhook, url: "https://hooks.example.com/x", secret: "\${HOOK_SECRET}", headers: { Authorization: "Bearer \${HOOK_TOKEN}" } }
escalation_policies:
  - { uuid: ep_ops, name: ops, steps: [{ after_minutes: 0, channels: [ops-slack] }] }
`,
  );
  try {
    assert.throws(() => loadConfig({}, file), /: config: channels\[0\]\.url: environment variable SLACK_WEBHOOK_URL is not set$/);
    const config = loadConfig({ HOOK_TOKEN: 't0ken' }, file, { unsetVariables: 'placeholder' });
    assert.deepEqual(
      config.channels.map((c) => [c.name, 'url' in c ? c.url : undefined, 'secret' in c ? c.secret : undefined, 'headers' in c ? c.headers : undefined]),
      [
        ['ops-slack', 'https://unset.invalid/SLACK_WEBHOOK_URL', undefined, undefined],
        ['hook', 'https://hooks.example.com/x', 'https://unset.invalid/HOOK_SECRET', { Authorization: 'Bearer t0ken' }],
      ],
    );
    assert.equal(config.escalation_policies.length, 1, 'policies still reference the channels');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
