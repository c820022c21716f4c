import Database from 'better-sqlite3';

/**
 * Uptime Kuma databases for the import tests, built with SQL written from Kuma's published schema
 * history (db/old_migrations/*.sql and db/knex_init_db.js for the 1.23 tables; the knex migrations
 * 2024-03-25-0000-json-data-operators and 2024-08-24-0000-conditions for 2.x). Only the tables and
 * columns the importer reads, plus a few it must ignore. No Kuma code.
 */

/** Kuma 1.23: the patched kuma.db template (no knex_migrations table). */
export const KUMA_123_SCHEMA = `
CREATE TABLE user (id INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, username VARCHAR(255) NOT NULL UNIQUE, password VARCHAR(255), active BOOLEAN NOT NULL DEFAULT 1, timezone VARCHAR(150), twofa_secret VARCHAR(64), twofa_status BOOLEAN NOT NULL DEFAULT 0, twofa_last_token VARCHAR(6));
CREATE TABLE setting (id INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, key VARCHAR(200) NOT NULL UNIQUE, value TEXT, type VARCHAR(20));
CREATE TABLE monitor (
  id INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, name VARCHAR(150), active BOOLEAN NOT NULL DEFAULT 1,
  user_id INTEGER REFERENCES user(id) ON DELETE SET NULL ON UPDATE CASCADE, interval INTEGER NOT NULL DEFAULT 20,
  url TEXT, type VARCHAR(20), weight INTEGER DEFAULT 2000, hostname VARCHAR(255), port INTEGER,
  created_date DATETIME NOT NULL DEFAULT (DATETIME('now')), keyword VARCHAR(255), maxretries INTEGER NOT NULL DEFAULT 0,
  ignore_tls BOOLEAN NOT NULL DEFAULT 0, upside_down BOOLEAN NOT NULL DEFAULT 0, maxredirects INTEGER NOT NULL DEFAULT 10,
  accepted_statuscodes_json TEXT NOT NULL DEFAULT '["200-299"]', dns_resolve_type VARCHAR(5), dns_resolve_server VARCHAR(255),
  dns_last_result VARCHAR(255), retry_interval INTEGER NOT NULL DEFAULT 0, push_token VARCHAR(20) DEFAULT NULL,
  method TEXT NOT NULL DEFAULT 'GET', body TEXT DEFAULT NULL, headers TEXT DEFAULT NULL, basic_auth_user TEXT DEFAULT NULL,
  basic_auth_pass TEXT DEFAULT NULL, docker_host INTEGER, docker_container VARCHAR(255), proxy_id INTEGER,
  expiry_notification BOOLEAN DEFAULT 1, mqtt_topic TEXT, mqtt_success_message VARCHAR(255), mqtt_username VARCHAR(255),
  mqtt_password VARCHAR(255), database_connection_string VARCHAR(2000), database_query TEXT, auth_method VARCHAR(250),
  auth_domain TEXT, auth_workstation TEXT, grpc_url VARCHAR(255) DEFAULT NULL, grpc_protobuf TEXT DEFAULT NULL,
  grpc_body TEXT DEFAULT NULL, grpc_metadata TEXT DEFAULT NULL, grpc_method TEXT DEFAULT NULL, grpc_service_name TEXT DEFAULT NULL,
  grpc_enable_tls BOOLEAN NOT NULL DEFAULT 0, radius_username VARCHAR(255), radius_password VARCHAR(255),
  radius_calling_station_id VARCHAR(50), radius_called_station_id VARCHAR(50), radius_secret VARCHAR(255),
  resend_interval INTEGER NOT NULL DEFAULT 0, packet_size INTEGER NOT NULL DEFAULT 56, game VARCHAR(255),
  http_body_encoding VARCHAR(25), description TEXT DEFAULT NULL, tls_ca TEXT DEFAULT NULL, tls_cert TEXT DEFAULT NULL,
  tls_key TEXT DEFAULT NULL, parent INTEGER REFERENCES monitor(id) ON DELETE SET NULL ON UPDATE CASCADE,
  invert_keyword BOOLEAN DEFAULT 0 NOT NULL, json_path TEXT, expected_value VARCHAR(255), kafka_producer_topic VARCHAR(255),
  kafka_producer_brokers TEXT, kafka_producer_ssl BOOLEAN DEFAULT 0 NOT NULL, kafka_producer_allow_auto_topic_creation BOOLEAN DEFAULT 0 NOT NULL,
  kafka_producer_sasl_options TEXT, kafka_producer_message TEXT, oauth_client_id TEXT DEFAULT NULL, oauth_client_secret TEXT DEFAULT NULL,
  oauth_token_url TEXT DEFAULT NULL, oauth_scopes TEXT DEFAULT NULL, oauth_auth_method TEXT DEFAULT NULL,
  timeout DOUBLE DEFAULT 0 NOT NULL, gamedig_given_port_only BOOLEAN DEFAULT 1 NOT NULL
);
CREATE TABLE notification (id INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, name VARCHAR(255), config VARCHAR(255), active BOOLEAN NOT NULL DEFAULT 1, user_id INTEGER NOT NULL, is_default BOOLEAN DEFAULT 0 NOT NULL);
CREATE TABLE monitor_notification (id INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, monitor_id INTEGER NOT NULL REFERENCES monitor(id) ON DELETE CASCADE ON UPDATE CASCADE, notification_id INTEGER NOT NULL REFERENCES notification(id) ON DELETE CASCADE ON UPDATE CASCADE);
CREATE UNIQUE INDEX monitor_notification_index ON monitor_notification (monitor_id, notification_id);
CREATE TABLE status_page (id INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, slug VARCHAR(255) NOT NULL UNIQUE, title VARCHAR(255) NOT NULL, description TEXT, icon VARCHAR(255) NOT NULL, theme VARCHAR(30) NOT NULL, published BOOLEAN NOT NULL DEFAULT 1, search_engine_index BOOLEAN NOT NULL DEFAULT 1, show_tags BOOLEAN NOT NULL DEFAULT 0, password VARCHAR, created_date DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP, modified_date DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP, footer_text TEXT, custom_css TEXT, show_powered_by BOOLEAN NOT NULL DEFAULT 1, google_analytics_tag_id VARCHAR);
CREATE TABLE "group" (id INTEGER NOT NULL CONSTRAINT group_pk PRIMARY KEY AUTOINCREMENT, name VARCHAR(255) NOT NULL, created_date DATETIME DEFAULT (DATETIME('now')) NOT NULL, public BOOLEAN DEFAULT 0 NOT NULL, active BOOLEAN DEFAULT 1 NOT NULL, weight BOOLEAN NOT NULL DEFAULT 1000, status_page_id INTEGER);
CREATE TABLE monitor_group (id INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, monitor_id INTEGER NOT NULL REFERENCES monitor(id) ON DELETE CASCADE ON UPDATE CASCADE, group_id INTEGER NOT NULL REFERENCES "group"(id) ON DELETE CASCADE ON UPDATE CASCADE, weight BOOLEAN NOT NULL DEFAULT 1000, send_url BOOLEAN NOT NULL DEFAULT 0);
CREATE TABLE maintenance (id INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, title VARCHAR(150) NOT NULL, description TEXT NOT NULL, user_id INTEGER REFERENCES user(id) ON DELETE SET NULL ON UPDATE CASCADE, active BOOLEAN NOT NULL DEFAULT 1, strategy VARCHAR(50) NOT NULL DEFAULT 'single', start_date DATETIME, end_date DATETIME, start_time TIME, end_time TIME, weekdays VARCHAR2(250) DEFAULT '[]', days_of_month TEXT DEFAULT '[]', interval_day INTEGER, cron TEXT, timezone VARCHAR(255), duration INTEGER);
CREATE TABLE maintenance_status_page (id INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT, status_page_id INTEGER NOT NULL, maintenance_id INTEGER NOT NULL, CONSTRAINT FK_maintenance FOREIGN KEY (maintenance_id) REFERENCES maintenance (id) ON DELETE CASCADE ON UPDATE CASCADE, CONSTRAINT FK_status_page FOREIGN KEY (status_page_id) REFERENCES status_page (id) ON DELETE CASCADE ON UPDATE CASCADE);
CREATE TABLE monitor_maintenance (id INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT, monitor_id INTEGER NOT NULL, maintenance_id INTEGER NOT NULL, CONSTRAINT FK_maintenance FOREIGN KEY (maintenance_id) REFERENCES maintenance (id) ON DELETE CASCADE ON UPDATE CASCADE, CONSTRAINT FK_monitor FOREIGN KEY (monitor_id) REFERENCES monitor (id) ON DELETE CASCADE ON UPDATE CASCADE);
`;

/** Kuma 2.x: 1.23 plus knex migrations (the ones that touch what the importer reads). */
export const KUMA_2_SCHEMA = `${KUMA_123_SCHEMA}
CREATE TABLE knex_migrations (id INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, name VARCHAR(255), batch INTEGER, migration_time DATETIME);
CREATE TABLE knex_migrations_lock ("index" INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, is_locked INTEGER);
-- 2024-03-25-0000-json-data-operators
ALTER TABLE monitor ADD COLUMN json_path_operator VARCHAR(255);
-- 2024-08-24-0000-conditions
ALTER TABLE monitor ADD COLUMN conditions TEXT NOT NULL DEFAULT '[]';
INSERT INTO knex_migrations(name, batch, migration_time) VALUES ('2024-03-25-0000-json-data-operators.js', 1, '2025-01-01 00:00:00'), ('2024-08-24-0000-conditions.js', 1, '2025-01-01 00:00:00');
`;

/**
 * The fixture both versions get: one monitor of each kind the importer maps or refuses, four
 * notifications (one of a provider Pharos lacks, a webhook with additional headers), a status page
 * with two groups, and four maintenance windows (one fixed-time).
 */
export function seedKuma(db: Database.Database, version: '1.23' | '2.x'): void {
  db.exec(`
INSERT INTO user(id, username, password) VALUES (1, 'admin', 'x');
INSERT INTO setting(key, value) VALUES ('jwtSecret', 'kuma-instance-secret');
INSERT INTO monitor(id, name, active, user_id, interval, url, type, maxretries, retry_interval, method, body, headers, accepted_statuscodes_json, maxredirects, timeout, basic_auth_user, basic_auth_pass)
  VALUES (1, 'Shop API', 1, 1, 45, 'https://shop.example.com/health', 'http', 2, 30, 'POST', '{"ping":true}', '{"X-Token":"abc"}', '["200-299","301"]', 0, 12, 'bob', 'pw');
INSERT INTO monitor(id, name, active, user_id, interval, url, type, keyword, accepted_statuscodes_json) VALUES (2, 'Blog keyword', 0, 1, 300, 'https://blog.example.com', 'keyword', 'Welcome', '["200-299"]');
INSERT INTO monitor(id, name, active, user_id, interval, url, type, json_path, expected_value) VALUES (3, 'Status JSON', 1, 1, 60, 'https://api.example.com/status', 'json-query', '$.status', 'ok');
INSERT INTO monitor(id, name, active, user_id, interval, hostname, port, type) VALUES (4, 'Postgres port', 1, 1, 60, 'db.example.com', 5432, 'port');
INSERT INTO monitor(id, name, active, user_id, interval, hostname, type) VALUES (5, 'Router ping', 1, 1, 20, '192.0.2.1', 'ping');
INSERT INTO monitor(id, name, active, user_id, interval, hostname, type, dns_resolve_type, dns_resolve_server, port) VALUES (6, 'DNS MX', 1, 1, 600, 'example.com', 'dns', 'MX', '1.1.1.1', 53);
INSERT INTO monitor(id, name, active, user_id, interval, type, push_token, maxretries, retry_interval) VALUES (7, 'Nightly backup', 1, 1, 86400, 'push', 'AbCdEf0123', 3, 600);
INSERT INTO monitor(id, name, active, user_id, interval, type, docker_container) VALUES (8, 'Docker thing', 1, 1, 60, 'docker', 'web');
INSERT INTO monitor(id, name, active, user_id, interval, url, type, keyword, invert_keyword) VALUES (9, 'No errors', 1, 1, 60, 'https://x.example.com', 'keyword', 'Error', 1);
INSERT INTO monitor(id, name, active, user_id, interval, url, type, upside_down) VALUES (10, 'Upside down', 1, 1, 60, 'https://y.example.com', 'http', 1);
INSERT INTO notification(id, name, config, active, user_id, is_default) VALUES
  (1, 'Team Discord', '{"name":"Team Discord","type":"discord","discordWebhookUrl":"https://discord.com/api/webhooks/1/SECRETDISCORD","discordUsername":"Kuma","isDefault":false}', 1, 1, 0),
  (2, 'Pager', '{"name":"Pager","type":"PagerDuty","pagerdutyIntegrationKey":"SECRETPD","pagerdutyIntegrationUrl":"https://events.pagerduty.com/v2/enqueue","pagerdutyPriority":"critical"}', 1, 1, 0),
  (3, 'Line', '{"name":"Line","type":"line","lineChannelAccessToken":"x"}', 1, 1, 0),
  (4, 'Ops hook', '{"name":"Ops hook","type":"webhook","webhookURL":"https://hooks.example.com/SECRETHOOK","webhookContentType":"json","webhookAdditionalHeaders":"{\\"Authorization\\":\\"Bearer SECRETHEADER\\",\\"X-Env\\":\\"prod\\"}"}', 1, 1, 0);
INSERT INTO monitor_notification(monitor_id, notification_id) VALUES (1, 1), (1, 2), (4, 1), (7, 2), (3, 3), (5, 4);
INSERT INTO status_page(id, slug, title, description, icon, theme) VALUES (1, 'Public_Status', 'Example status', 'All our services', '/icon.svg', 'light');
INSERT INTO "group"(id, name, public, active, weight, status_page_id) VALUES (1, 'Web', 1, 1, 1, 1), (2, 'Infra', 1, 1, 2, 1);
INSERT INTO monitor_group(monitor_id, group_id, weight) VALUES (1, 1, 1), (2, 1, 2), (7, 1, 3), (4, 2, 1), (8, 2, 2);
INSERT INTO maintenance(id, title, description, user_id, active, strategy, start_date, end_date, timezone) VALUES
  (1, 'DB upgrade', 'Postgres 16', 1, 1, 'single', '2030-05-01 22:00:00', '2030-05-02 01:30:00', 'Europe/Berlin'),
  (2, 'Weekly', '', 1, 1, 'recurring-weekday', NULL, NULL, 'UTC'),
  (3, 'Manual', '', 1, 1, 'manual', NULL, NULL, NULL),
  (4, 'Old one', '', 1, 0, 'single', '2030-01-01 00:00:00', '2030-01-01 01:00:00', 'UTC');
INSERT INTO monitor_maintenance(monitor_id, maintenance_id) VALUES (4, 1), (1, 1), (7, 1);
INSERT INTO maintenance_status_page(status_page_id, maintenance_id) VALUES (1, 1);
`);
  if (version === '2.x') db.exec(`UPDATE monitor SET json_path_operator = '==' WHERE type = 'json-query';`);
}

/** Creates a Kuma database file of `version` with the fixture. */
export function createKumaDb(file: string, version: '1.23' | '2.x'): void {
  const db = new Database(file);
  try {
    db.exec(version === '1.23' ? KUMA_123_SCHEMA : KUMA_2_SCHEMA);
    seedKuma(db, version);
  } finally {
    db.close();
  }
}

/**
 * A Kuma 1.x JSON backup (Settings → Backup → Export) of two monitors and notifications of the
 * providers Pharos has since issue 32 (field names from Kuma's server/notification-providers/*.js),
 * one of which (Nextcloud Talk's bot) it cannot carry. The http monitor sends to the ntfy and the
 * webhook notifications; the webhook posts to `webhookUrl`.
 */
export function kumaBackupJson(webhookUrl = 'https://hooks.example.com/in/SECRETHOOK'): string {
  const notification = (id: number, name: string, config: Record<string, unknown>, active = 1) => ({ id, name, config: JSON.stringify({ name, ...config }), active, userId: 1, isDefault: false });
  return JSON.stringify({
    version: '1.23.16',
    notificationList: [
      notification(4, 'Phone', { type: 'ntfy', ntfyserverurl: 'https://ntfy.example.com', ntfytopic: 'ops', ntfyPriority: 5, ntfyAuthenticationMethod: 'accessToken', ntfyaccesstoken: 'tk_SECRET' }),
      notification(5, 'Hook', { type: 'webhook', webhookURL: webhookUrl, webhookContentType: 'custom', webhookCustomBody: '{"text":"{{msg}}"}', webhookAdditionalHeaders: '{"Authorization":"Bearer SECRETHEADER","X-Env":"prod"}' }),
      notification(6, 'Home', { type: 'HomeAssistant', homeAssistantUrl: 'http://ha.lan:8123/', longLivedAccessToken: 'SECRETHA', notificationService: 'mobile_app_pixel' }),
      notification(7, 'Signal', { type: 'signal', signalURL: 'http://signal.lan:8080/v2/send', signalNumber: '+15550001111', signalRecipients: '+15550002222,+15550003333' }),
      notification(8, 'PB', { type: 'pushbullet', pushbulletAccessToken: 'o.SECRETPB' }, 0),
      notification(9, 'Rocket', { type: 'rocket.chat', rocketwebhookURL: 'https://chat.example.com/hooks/a/SECRETRC', rocketchannel: 'ops', rocketusername: 'Kuma', rocketiconemo: ':bell:' }),
      notification(10, 'Talk', { type: 'nextcloudtalk', host: 'https://cloud.example.com', conversationToken: 'abcd1234', botSecret: 'SECRETBOT' }),
      notification(11, 'iPhone', { type: 'Bark', barkEndpoint: 'https://api.day.app/SECRETBARK', barkGroup: 'Home', barkSound: 'alarm' }),
      notification(12, 'Apprise TG', { type: 'apprise', appriseURL: 'tgram://1:SECRETTG/42' }),
      notification(13, 'Apprise MQTT', { type: 'apprise', appriseURL: 'mqtt://user:SECRETMQ@broker.lan/alerts' }),
    ],
    monitorList: [
      { id: 11, name: 'Backup site', url: 'https://b.example.com', method: 'GET', hostname: null, port: null, maxretries: 0, weight: 2000, active: true, type: 'http', interval: 60, retryInterval: 60, keyword: null, invertKeyword: false, ignoreTls: false, upsideDown: false, maxredirects: 10, accepted_statuscodes: ['200-299'], notificationIDList: { '4': true, '5': true }, headers: null, body: null, timeout: 48 },
      { id: 12, name: 'Cron', type: 'push', interval: 3600, retryInterval: 60, maxretries: 0, active: true, pushToken: 'tok', accepted_statuscodes: ['200-299'], notificationIDList: {} },
    ],
  });
}
