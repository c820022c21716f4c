import type { KumaMonitor } from './types.ts';

/**
 * Kuma's docker, mqtt, smtp, websocket-upgrade, snmp, mongodb and gamedig monitors as Pharos's
 * check types of those names (issue 36); field meanings from Kuma's `monitor` and `docker_host`
 * tables and its monitor types (server/monitor-types/*.js, server/docker.js).
 */

/** The protocol-specific part of the monitor body (name, common fields and policy are the caller's), notes, or why it is skipped. */
export type KumaCheckType = { body: Record<string, unknown>; notes: string[] } | { reason: string };

/** Kuma's docker host → the Engine API URL: `socket` keeps the path (`unix://` added), `tcp` keeps the URL. */
function dockerUrl(m: KumaMonitor): string | null {
  const daemon = m.dockerDaemon?.trim();
  if (!daemon) return null;
  if (m.dockerType === 'socket' || daemon.startsWith('/')) return daemon.startsWith('unix://') ? daemon : `unix://${daemon}`;
  return /^[a-z]+:\/\//i.test(daemon) ? daemon : `tcp://${daemon}`;
}

/**
 * Maps one of the seven types, or null when `m.type` is none of them (or this Pharos lacks the
 * protocol). MQTT credentials go into the URL (its password is a secret like every URL's); Kuma's
 * JSON-query MQTT check is skipped (only its keyword check has a Pharos counterpart); SMTP's
 * `smtpSecurity` `secure` → `tls`, `starttls` → `starttls`, anything else → `none`.
 */
export function mapKumaCheckType(m: KumaMonitor, protocols: readonly string[]): KumaCheckType | null {
  const has = (p: string) => protocols.includes(p);
  if (m.type === 'docker' && has('docker')) {
    if (!m.dockerContainer) return { reason: 'no container' };
    const url = dockerUrl(m);
    if (!url) return { reason: 'no Docker host (Kuma\'s docker_host; a JSON backup does not carry it: import kuma.db)' };
    return { body: { url, protocol: 'docker', docker_container: m.dockerContainer }, notes: url.startsWith('https:') ? ['Docker host over TLS: Pharos does not send client certificates'] : [] };
  }
  if (m.type === 'mqtt' && has('mqtt')) {
    if (!m.hostname) return { reason: 'no broker host' };
    if (m.mqttCheckType === 'json-query') return { reason: 'MQTT JSON query has no Pharos equivalent (only the keyword check)' };
    // Kuma prefixes mqtt:// to a bare host (server/monitor-types/mqtt.js); ws(s):// brokers it also takes.
    let u: URL;
    try {
      u = new URL(/^[a-z]+:\/\//i.test(m.hostname) ? m.hostname : `mqtt://${m.hostname}`);
    } catch {
      return { reason: `broker "${m.hostname}" is not a host` };
    }
    if (u.protocol !== 'mqtt:' && u.protocol !== 'mqtts:') return { reason: `MQTT over ${u.protocol.replace(':', '')} is not supported (mqtt:// and mqtts:// are)` };
    if (m.port) u.port = String(m.port);
    if (m.mqttUsername) u.username = encodeURIComponent(m.mqttUsername);
    if (m.mqttUsername && m.mqttPassword) u.password = encodeURIComponent(m.mqttPassword);
    const url = `${u.protocol}//${u.username ? `${u.username}${u.password ? `:${u.password}` : ''}@` : ''}${u.host}`;
    return { body: { url, protocol: 'mqtt', mqtt_topic: m.mqttTopic ?? '', mqtt_expected: m.mqttSuccessMessage ? m.mqttSuccessMessage : null }, notes: [] };
  }
  if (m.type === 'smtp' && has('smtp')) {
    if (!m.hostname) return { reason: 'no host' };
    const smtp_tls = m.smtpSecurity === 'secure' ? 'tls' : m.smtpSecurity === 'starttls' ? 'starttls' : 'none';
    return { body: { url: m.hostname, protocol: 'smtp', port: m.port ?? (smtp_tls === 'tls' ? 465 : 25), smtp_tls }, notes: [] };
  }
  if (m.type === 'websocket-upgrade' && has('websocket')) {
    if (!m.url) return { reason: 'no URL' };
    return { body: { url: m.url, protocol: 'websocket' }, notes: m.wsIgnoreAcceptHeader ? ['"ignore Sec-WebSocket-Accept" is not imported: Pharos checks the header'] : [] };
  }
  if (m.type === 'snmp' && has('snmp')) return mapSnmp(m);
  if (m.type === 'mongodb' && has('mongodb')) {
    if (!m.databaseConnectionString) return { reason: 'no connection string' };
    let path: string | null = null;
    if (m.jsonPath) {
      // Kuma evaluates JSONata over the command's reply; a plain dotted path reads the same as JSONPath.
      if (!/^[A-Za-z_][\w]*(\.[A-Za-z_][\w]*)*$/.test(m.jsonPath)) return { reason: `the JSONata expression "${m.jsonPath}" over the reply has no Pharos counterpart (plain paths such as version or a.b do)` };
      path = `$.${m.jsonPath}`;
    }
    return { body: { url: m.databaseConnectionString, protocol: 'mongodb', mongodb_command: m.databaseQuery || null, mongodb_json_path: path, mongodb_expected: m.expectedValue || null }, notes: [] };
  }
  if (m.type === 'gamedig' && has('gamedig')) {
    if (!m.hostname || !m.game) return { reason: !m.hostname ? 'no host' : 'no game' };
    return { body: { url: m.hostname, protocol: 'gamedig', port: m.port, gamedig_game: m.game, gamedig_given_port_only: m.gamedigGivenPortOnly ?? true }, notes: [] };
  }
  return null;
}

/** Kuma 2.x's condition operators on the SNMP value (evaluateJsonQuery), all of which Pharos's snmp has. */
const SNMP_OPERATORS = ['==', '!=', '<', '<=', '>', '>=', 'contains'];

/**
 * Kuma's snmp monitor (2.x: server/monitor-types/snmp.js): one GET of `snmp_oid`, community in
 * `radius_password`, and the value compared by `json_path_operator` with `expected_value` through a
 * JSONata expression that is `$` (the value itself) as Kuma's form sets it. Another expression, or
 * version 3 (Kuma's form offers 1 and 2c), is skipped with the reason. Without an expected value:
 * up whenever the agent answers with a value (`any`).
 */
function mapSnmp(m: KumaMonitor): KumaCheckType {
  if (!m.hostname) return { reason: 'no host' };
  if (!m.snmpOid) return { reason: 'no OID' };
  const version = m.snmpVersion ?? '2c';
  if (version !== '1' && version !== '2c') return { reason: `SNMP version ${version}: Kuma's monitor has no v3 credentials to import` };
  if (m.jsonPath && m.jsonPath.trim() !== '$') return { reason: `the JSONata expression "${m.jsonPath}" over the SNMP value has no Pharos counterpart (the value itself, $, has)` };
  const op = m.jsonPathOperator ?? '==';
  if (!SNMP_OPERATORS.includes(op)) return { reason: `condition "${op}" has no Pharos counterpart` };
  const expected = m.expectedValue ?? '';
  const condition = expected === '' ? 'any' : op;
  return {
    body: { url: m.hostname, protocol: 'snmp', port: m.port ?? 161, snmp_version: version, snmp_oid: m.snmpOid.replace(/^\./, ''), snmp_condition: condition, snmp_expected: expected === '' ? null : expected, snmp_community: m.radiusPassword ?? 'public' },
    notes: expected === '' ? ['no expected value: up whenever the agent answers with a value'] : [],
  };
}
