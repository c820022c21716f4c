import type { ChannelConfigOf } from '../../../domain/channels/index.ts';
import { createHttpSender } from '../http.ts';
import { cut, joinUrl, jsonRequest, plainBody } from '../render.ts';
import type { AlertMessage, Channel, ChannelPlugin } from '../types.ts';

/** The service data of a `notify.<service>` call (Home Assistant's notify integration). */
export interface HomeAssistantPayload {
  title: string;
  message: string;
  target?: string[];
  /** The console link, as the companion apps read it: `url` (iOS) and `clickAction` (Android). */
  data?: { url: string; clickAction: string };
}

/** Renders a message as notify service data: title, the text and facts as plain text, the link as `data`. */
export function homeAssistantPayload(message: AlertMessage, config: Pick<ChannelConfigOf<'homeassistant'>, 'target'>): HomeAssistantPayload {
  return {
    title: cut(message.title || 'Pharos', 250),
    message: plainBody(message),
    ...(config.target?.length ? { target: config.target } : {}),
    ...(message.link ? { data: { url: message.link, clickAction: message.link } } : {}),
  };
}

/**
 * A Home Assistant channel: `POST <base_url>/api/services/notify/<service>` with
 * `Authorization: Bearer <token>` and {@link homeAssistantPayload}
 * (https://developers.home-assistant.io/docs/api/rest/). Home Assistant answers 200 with the
 * changed states, 401 for a bad token, 400 for a bad service call (both permanent).
 */
export function createHomeAssistantChannel(config: ChannelConfigOf<'homeassistant'>): Channel {
  const http = createHttpSender({ label: `homeassistant ${config.name}`, timeoutSeconds: config.timeout_seconds });
  const url = joinUrl(config.base_url, `api/services/notify/${config.service}`);
  const auth = { authorization: `Bearer ${config.token}` };
  return {
    name: config.name,
    send: (message, delivery) => http.request(jsonRequest(url, homeAssistantPayload(message, config), auth), delivery),
    close: () => http.close(),
  };
}

/** The Home Assistant plugin. */
export const homeassistant: ChannelPlugin<'homeassistant'> = {
  create: createHomeAssistantChannel,
  transport: 'http',
  example: (name, base) => ({ name, type: 'homeassistant', base_url: base, token: 'llat_SECRET123', service: 'mobile_app_phone', timeout_seconds: 5 }),
  secrets: ['SECRET123'],
};
