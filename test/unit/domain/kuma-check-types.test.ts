import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { currentCapabilities, mapMonitor } from '../../../src/domain/kuma/map.ts';
import { parseKumaBackup } from '../../../src/domain/kuma/types.ts';
import { MonitorBody } from '../../../src/domain/monitor.ts';
import { readKumaDb } from '../../../src/store/kuma.ts';
import { KUMA_2_SCHEMA } from '../../support/kuma.ts';
import { tempDir } from '../../support/pharos.ts';

// Kuma's docker, mqtt, smtp and websocket-upgrade monitors (issue 36) read from a kuma.db built with
// Kuma's schema: docker_host is Kuma's patch-add-docker-columns.sql table; smtp_security, mqtt_check_type
// and ws_ignore_sec_websocket_accept_header are the 2.x columns of those monitor types.
test('kuma.db: docker (socket and tcp hosts), mqtt, smtp and websocket monitors become the new check types, valid API bodies', () => {
  const file = join(tempDir(), 'kuma.db');
  const db = new Database(file);
  db.exec(KUMA_2_SCHEMA);
  db.exec(`
CREATE TABLE docker_host (id INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, user_id INT NOT NULL, docker_daemon VARCHAR(255), docker_type VARCHAR(255), name VARCHAR(255));
ALTER TABLE monitor ADD COLUMN mqtt_check_type VARCHAR(255) NOT NULL DEFAULT 'keyword';
ALTER TABLE monitor ADD COLUMN smtp_security VARCHAR(255) DEFAULT NULL;
ALTER TABLE monitor ADD COLUMN ws_ignore_sec_websocket_accept_header BOOLEAN NOT NULL DEFAULT 0;
INSERT INTO user(id, username, password) VALUES (1, 'admin', 'x');
INSERT INTO docker_host(id, user_id, docker_daemon, docker_type, name) VALUES (1, 1, '/var/run/docker.sock', 'socket', 'local'), (2, 1, 'tcp://nas.lan:2375', 'tcp', 'nas');
INSERT INTO monitor(id, name, user_id, interval, type, docker_container, docker_host) VALUES (1, 'Nextcloud', 1, 60, 'docker', 'nextcloud', 1), (2, 'Plex', 1, 60, 'docker', 'plex', 2), (3, 'Lost', 1, 60, 'docker', 'x', NULL);
INSERT INTO monitor(id, name, user_id, interval, type, hostname, port, mqtt_topic, mqtt_success_message, mqtt_username, mqtt_password) VALUES (4, 'Door', 1, 60, 'mqtt', 'broker.lan', 1883, 'home/door', 'closed', 'ha', 'p@ss:word');
INSERT INTO monitor(id, name, user_id, interval, type, hostname, port, mqtt_topic, mqtt_check_type) VALUES (5, 'JSON door', 1, 60, 'mqtt', 'broker.lan', 1883, 'home/door', 'json-query');
INSERT INTO monitor(id, name, user_id, interval, type, hostname, port, smtp_security) VALUES (6, 'Mail', 1, 60, 'smtp', 'mail.lan', 465, 'secure'), (7, 'Relay', 1, 60, 'smtp', 'relay.lan', 587, 'starttls');
INSERT INTO monitor(id, name, user_id, interval, type, url, ws_ignore_sec_websocket_accept_header) VALUES (8, 'Feed', 1, 60, 'websocket-upgrade', 'wss://feed.lan/live', 1);
`);
  db.close();
  const kuma = readKumaDb(file);
  const caps = currentCapabilities();
  const mapped = Object.fromEntries(kuma.monitors.map((m) => [m.name, mapMonitor(m, caps, null)]));
  const body = (name: string) => {
    const r = mapped[name]!;
    assert.equal(r.kind, 'monitor', JSON.stringify(r));
    const b = (r as { body: Record<string, unknown> }).body;
    assert.equal(MonitorBody.safeParse(b).success, true, `${name}: ${JSON.stringify(MonitorBody.safeParse(b).error?.issues)}`);
    return b;
  };
  assert.deepEqual(pickOf(body('Nextcloud'), 'url', 'protocol', 'docker_container'), { url: 'unix:///var/run/docker.sock', protocol: 'docker', docker_container: 'nextcloud' });
  assert.deepEqual(pickOf(body('Plex'), 'url', 'docker_container'), { url: 'tcp://nas.lan:2375', docker_container: 'plex' });
  assert.match((mapped.Lost as { reason: string }).reason, /^no Docker host/);
  assert.deepEqual(pickOf(body('Door'), 'url', 'protocol', 'mqtt_topic', 'mqtt_expected'), { url: 'mqtt://ha:p%40ss%3Aword@broker.lan:1883', protocol: 'mqtt', mqtt_topic: 'home/door', mqtt_expected: 'closed' });
  assert.match((mapped['JSON door'] as { reason: string }).reason, /^MQTT JSON query/);
  assert.deepEqual(pickOf(body('Mail'), 'url', 'protocol', 'port', 'smtp_tls'), { url: 'mail.lan', protocol: 'smtp', port: 465, smtp_tls: 'tls' });
  assert.equal(body('Relay').smtp_tls, 'starttls');
  assert.deepEqual(pickOf(body('Feed'), 'url', 'protocol'), { url: 'wss://feed.lan/live', protocol: 'websocket' });
  assert.match((mapped.Feed as { notes: string[] }).notes.join('\n'), /Sec-WebSocket-Accept/);
});

test('a JSON backup\'s docker monitor has no host to go with it: skipped with the reason', () => {
  const kuma = parseKumaBackup(JSON.stringify({ version: '1.23.0', notificationList: [], monitorList: [{ id: 1, name: 'Web', type: 'docker', docker_container: 'web', docker_host: 1, interval: 60 }] }));
  const r = mapMonitor(kuma.monitors[0]!, currentCapabilities(), null);
  assert.equal(r.kind, 'skipped');
  assert.match((r as { reason: string }).reason, /a JSON backup does not carry it/);
});

function pickOf(o: Record<string, unknown>, ...keys: string[]): Record<string, unknown> {
  return Object.fromEntries(keys.map((k) => [k, o[k]]));
}
