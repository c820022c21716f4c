import type { KumaMonitor } from './types.ts';

/**
 * Kuma's docker, mqtt, smtp and websocket-upgrade monitors as Pharos's `docker`, `mqtt`, `smtp` and
 * `websocket` check types (issue 36); field meanings from Kuma's `monitor` and `docker_host` tables
 * and its monitor types (server/monitor-types/*.js, server/docker.js).
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
 * Maps one of the four types, or null when `m.type` is none of them (or this Pharos lacks the
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
  return null;
}
