import type { ChannelConfigOf } from '../../../domain/channels/index.ts';
import { createHttpSender } from '../http.ts';
import { escapeHtml, facts, joinUrl, jsonRequest, plainBody } from '../render.ts';
import type { AlertMessage, Channel, ChannelPlugin } from '../types.ts';

/** The `m.room.message` content Pharos sends: plain `body` and the same as HTML. */
export interface MatrixContent {
  msgtype: 'm.text';
  body: string;
  format: 'org.matrix.custom.html';
  formatted_body: string;
}

/** Renders a message as an `m.text` event with an HTML version (title bold, facts, link). */
export function matrixContent(message: AlertMessage): MatrixContent {
  const list = facts(message).map((f) => `<b>${escapeHtml(f.label)}:</b> ${f.href ? `<a href="${escapeHtml(f.href)}">${escapeHtml(f.value)}</a>` : escapeHtml(f.value)}`);
  return {
    msgtype: 'm.text',
    body: `${message.title}\n\n${plainBody(message)}`,
    format: 'org.matrix.custom.html',
    formatted_body: `<b>${escapeHtml(message.title)}</b><br>${escapeHtml(message.text)}<br>${list.join('<br>')}`,
  };
}

/**
 * A Matrix channel: client-server API `PUT <homeserver>/_matrix/client/v3/rooms/<room>/send/
 * m.room.message/<txnId>` with `Authorization: Bearer <access_token>`. The transaction id is the
 * delivery id, so a retried delivery is deduplicated by the homeserver itself.
 */
export function createMatrixChannel(config: ChannelConfigOf<'matrix'>): Channel {
  const http = createHttpSender({ label: `matrix ${config.name}`, timeoutSeconds: config.timeout_seconds });
  const room = joinUrl(config.homeserver, `_matrix/client/v3/rooms/${encodeURIComponent(config.room_id)}/send/m.room.message/`);
  return {
    name: config.name,
    send: (message, delivery) =>
      http.request({ ...jsonRequest(room + encodeURIComponent(delivery.deliveryId), matrixContent(message), { authorization: `Bearer ${config.access_token}` }), method: 'PUT' }, delivery),
    close: () => http.close(),
  };
}

/** The Matrix plugin. */
export const matrix: ChannelPlugin<'matrix'> = {
  create: createMatrixChannel,
  transport: 'http',
  example: (name, base) => ({ name, type: 'matrix', homeserver: base, room_id: '!ops:example.org', access_token: 'syt_SECRET123', timeout_seconds: 5 }),
  secrets: ['SECRET123'],
};
