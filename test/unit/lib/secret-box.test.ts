import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isSealed, loadSecretKey, parseSecretKey, secretBox, SECRET_KEY_FILE } from '../../../src/lib/secret-box.ts';
import { AppError } from '../../../src/lib/errors.ts';
import { tempDir } from '../../support/pharos.ts';

// Issue 32 point 2: secrets at rest, AES-256-GCM under a key from PHAROS_SECRET_KEY or <data_dir>/secret.key.
const key = () => randomBytes(32);
const code = (c: string) => (e: unknown) => e instanceof AppError && e.code === c;

test('seal → open gives the plaintext back; the sealed text is versioned, names the key and does not contain the plaintext', () => {
  const box = secretBox(key());
  const plain = 'https://hooks.slack.com/services/T000/B000/XXXXSECRET';
  const sealed = box.seal(plain);
  assert.match(sealed, /^v1:[A-Za-z0-9_-]{8}:[A-Za-z0-9_-]{16}:[A-Za-z0-9_-]{22}:[A-Za-z0-9_-]+$/);
  assert.ok(sealed.startsWith(`v1:${box.keyId}:`));
  assert.ok(!sealed.includes('XXXXSECRET'));
  assert.equal(box.open(sealed), plain);
  assert.notEqual(box.seal(plain), sealed, 'a fresh IV per seal');
  assert.equal(box.open(box.seal('')), '', 'the empty string too');
  assert.equal(box.open(box.seal('ünï ✓')), 'ünï ✓');
  assert.ok(isSealed(sealed));
  assert.ok(!isSealed(plain) && !isSealed('***'));
});

test('open with another key: AppError secrets.wrong_key naming both key ids and the fix; a changed byte: secrets.corrupt', () => {
  const a = secretBox(key());
  const b = secretBox(key());
  const sealed = a.seal('token-123');
  assert.throws(() => b.open(sealed), (e: unknown) => {
    assert.ok(code('secrets.wrong_key')(e));
    const m = (e as Error).message;
    assert.ok(m.includes(a.keyId) && m.includes(b.keyId), m);
    assert.match(m, /secret\.key|PHAROS_SECRET_KEY/);
    assert.ok(!m.includes('token-123'));
    return true;
  });
  // Same key id, forged text (the id is a fingerprint: a forger can copy it).
  const parts = sealed.split(':');
  const ct = Buffer.from(parts[4]!, 'base64url');
  ct[0] = ct[0]! ^ 1;
  assert.throws(() => a.open([...parts.slice(0, 4), ct.toString('base64url')].join(':')), code('secrets.corrupt'));
  assert.throws(() => a.open('v9:abc'), code('secrets.corrupt'));
  assert.throws(() => a.open('plain text'), code('secrets.corrupt'));
});

test('the key check value depends on the key only, and differs from the key id', () => {
  const k = key();
  assert.equal(secretBox(k).keyCheck(), secretBox(Buffer.from(k)).keyCheck());
  assert.notEqual(secretBox(k).keyCheck(), secretBox(key()).keyCheck());
  assert.ok(!secretBox(k).keyCheck().startsWith(secretBox(k).keyId));
});

test('PHAROS_SECRET_KEY: 64 hex digits or base64 of 32 bytes; anything else is refused naming the rule, never echoing the value', () => {
  const k = key();
  assert.deepEqual(parseSecretKey(k.toString('hex'), 'PHAROS_SECRET_KEY'), k);
  assert.deepEqual(parseSecretKey(k.toString('base64'), 'PHAROS_SECRET_KEY'), k);
  assert.deepEqual(parseSecretKey(k.toString('base64url'), 'PHAROS_SECRET_KEY'), k);
  assert.deepEqual(parseSecretKey(` ${k.toString('base64')}\n`, 'PHAROS_SECRET_KEY'), k, 'surrounding white space is ignored');
  for (const bad of ['short', randomBytes(16).toString('hex'), randomBytes(31).toString('base64'), randomBytes(33).toString('base64'), 'z'.repeat(64), '']) {
    assert.throws(() => parseSecretKey(bad, 'PHAROS_SECRET_KEY'), (e: unknown) => {
      assert.ok(code('secrets.invalid_key')(e));
      const m = (e as Error).message;
      assert.match(m, /^PHAROS_SECRET_KEY: must be 32 bytes/);
      assert.ok(bad === '' || !m.includes(bad), 'the value is not echoed');
      return true;
    });
  }
  const dir = tempDir();
  try {
    const loaded = loadSecretKey({ dataDir: dir, keyText: k.toString('hex') });
    assert.deepEqual(loaded.key, k);
    assert.equal(loaded.source, 'PHAROS_SECRET_KEY');
    assert.ok(!existsSync(join(dir, SECRET_KEY_FILE)), 'with PHAROS_SECRET_KEY no key file is written');
    assert.throws(() => loadSecretKey({ dataDir: dir, keyText: 'nope' }), code('secrets.invalid_key'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('<data_dir>/secret.key: created at first start with mode 0600 (no temp file left), then reused, never overwritten', () => {
  const dir = join(tempDir(), 'data-not-yet-made');
  try {
    const first = loadSecretKey({ dataDir: dir, keyText: undefined });
    const file = join(dir, SECRET_KEY_FILE);
    assert.equal(first.created, true);
    assert.equal(first.source, file);
    assert.equal(statSync(file).mode & 0o777, 0o600);
    assert.deepEqual(readdirSync(dir), [SECRET_KEY_FILE], 'the temp file is gone');
    assert.deepEqual(parseSecretKey(readFileSync(file, 'utf8'), file), first.key);
    const again = loadSecretKey({ dataDir: dir, keyText: '' });
    assert.equal(again.created, false);
    assert.deepEqual(again.key, first.key, 'reused');
    assert.equal(again.looseMode, false);
    writeFileSync(file, 'broken');
    assert.throws(() => loadSecretKey({ dataDir: dir, keyText: undefined }), (e: unknown) => code('secrets.invalid_key')(e) && (e as Error).message.startsWith(file));
    assert.equal(readFileSync(file, 'utf8'), 'broken', 'a broken key file is reported, never replaced');
  } finally {
    rmSync(join(dir, '..'), { recursive: true, force: true });
  }
});

test('a key file readable by others is used and reported (looseMode) so the wiring can warn', () => {
  const dir = tempDir();
  try {
    const file = join(dir, SECRET_KEY_FILE);
    const k = key();
    writeFileSync(file, k.toString('base64') + '\n', { mode: 0o644 });
    const loaded = loadSecretKey({ dataDir: dir, keyText: undefined });
    assert.deepEqual(loaded.key, k);
    assert.equal(loaded.looseMode, true);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
