import { test } from 'node:test';
import assert from 'node:assert/strict';
import { firstStartLinesIn } from '../../../src/cli/service-unit.ts';

// What install-service prints from the journal after the first start (systemd itself cannot run in
// the test machine: this is the part of the live path that can be checked, on serve's real output).
test('the admin token line of a first start is found in serve output; a setup link line is printed whole', () => {
  const journal = `Admin API token (shown once, keep it safe):
phr_abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG
{"time":"2026-11-24T08:00:00.000Z","level":"info","msg":"pharos listening","url":"http://127.0.0.1:8080"}
`;
  assert.deepEqual(firstStartLinesIn(journal), ['admin API token phr_abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG']);
  assert.deepEqual(firstStartLinesIn('Open http://pharos.example.com:8080/setup/st_0123456789 to create the first account (valid 24 h)\n'), [
    'Open http://pharos.example.com:8080/setup/st_0123456789 to create the first account (valid 24 h)',
  ]);
  assert.deepEqual(firstStartLinesIn('{"msg":"pharos listening"}\n'), [], 'a restart on existing data has none');
});
