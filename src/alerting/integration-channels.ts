import type { ChannelTestTarget } from '../core/channels.ts';
import { TypedChannelConfig } from '../domain/channels/index.ts';
import { ID_PREFIX } from '../domain/ids.ts';
import { openSettings, type Integration, type SealedSecret } from '../domain/integration.ts';
import type { Logger } from '../lib/logger.ts';
import type { SecretBox } from '../lib/secret-box.ts';
import { procedure } from '../store/async.ts';
import type { Store } from '../store/index.ts';
import { createChannel } from './channels/index.ts';
import { ChannelError, type Channel } from './channels/types.ts';

/**
 * A sender for one integration's plaintext settings, with the plugin of its kind (the settings are
 * validated by the kind's schema first, which applies its defaults). Nothing connects until the first send.
 * @throws Error naming the fields (never their values) when the settings are not a valid config of the kind
 */
export function integrationSender(target: ChannelTestTarget): Channel {
  const parsed = TypedChannelConfig.safeParse({ ...target.settings, name: target.name, type: target.kind });
  if (!parsed.success) {
    const fields = parsed.error.issues.map((i) => `${i.path.join('.') || '(settings)'}: ${i.message}`).join('; ');
    throw new Error(`integration "${target.name}" (${target.kind}) has invalid settings: ${fields}`);
  }
  return createChannel(parsed.data);
}

/** A channel that refuses every send permanently (a disabled or deleted integration): the row fails, never retried. */
function refusing(name: string, reason: string): Channel {
  return {
    name,
    send: () => Promise.reject(new ChannelError(reason, true)),
    close: async () => {},
  };
}

/**
 * The integration an outbox row's `channel` names (`int_…` by uuid, else a config.yaml name by name)
 * with its sealed secrets, read together (one transaction: settings and secrets of the same version).
 */
const readForSending = procedure('alerting.integrationForSending', (tx: Store, a: { channel: string }): { integration: Integration; secrets: SealedSecret[] } | null => {
  const integration = a.channel.startsWith(ID_PREFIX.integration) ? tx.integrations.get(a.channel) : tx.integrations.getByName(a.channel);
  return integration ? { integration, secrets: tx.integrations.sealedSecrets(integration.uuid) ?? [] } : null;
});

interface Cached {
  /** The version built: `updatedAt` plus the stored settings and sealed secrets (two writes in one ms differ too). */
  version: string;
  name: string;
  channel: Channel;
}

/**
 * The outbox's integrations, resolved when a row is sent (issue 32 point 2: a change works at once,
 * without restart, on every instance): an `int_…` channel is read by uuid, a config.yaml name of a row
 * written before issue 32 by name (`getByName`, the provisioned integration). Senders are built from the
 * stored settings opened with the SecretBox and kept per uuid while it is unchanged (`updatedAt`,
 * settings and sealed secrets as stored); a changed integration gets a new sender and the old one is
 * closed. A disabled integration, and one deleted since the row was written, answer with a sender that fails the row permanently, saying why.
 * When the store cannot be read (a database outage: the leader's direct alerts, issue 31 point 5),
 * the last sender built for that channel is used, if any.
 */
export function integrationChannels(deps: { store: Store; box: SecretBox; logger: Logger }) {
  const { store, box, logger } = deps;
  const byUuid = new Map<string, Cached>();
  const uuidOfName = new Map<string, string>();

  function senderOf(i: Integration, secrets: SealedSecret[]): Channel {
    const version = JSON.stringify([i.updatedAt, i.name, i.settings, secrets]);
    const hit = byUuid.get(i.uuid);
    if (hit && hit.version === version) return hit.channel;
    const channel = integrationSender({ name: i.name, kind: i.kind, settings: openSettings(i.settings, secrets, (s) => box.open(s)) });
    byUuid.set(i.uuid, { version, name: i.name, channel });
    if (hit) retire(hit);
    return channel;
  }

  function retire(old: Cached): void {
    old.channel.close().catch((e: unknown) => logger.warn(`closing the previous sender of integration "${old.name}" failed`, { error: (e as Error).message }));
  }

  return {
    /**
     * The sender for an outbox row's `channel` (`int_…` or a config.yaml name).
     * Settings that are not valid for the kind, or secrets that do not open, fail the row permanently.
     * @throws (rejects) what the store throws when it cannot be read and no earlier sender is kept
     *   (the dispatcher logs it; the claimed row is sent again when its claim expires)
     */
    async get(channel: string): Promise<Channel> {
      let read: { integration: Integration; secrets: SealedSecret[] } | null;
      try {
        read = await store.async.tx(readForSending, { channel });
      } catch (e) {
        const cached = channel.startsWith(ID_PREFIX.integration)
          ? byUuid.get(channel)
          : (byUuid.get(uuidOfName.get(channel) ?? '') ?? [...byUuid.values()].find((c) => c.name === channel));
        if (cached) return cached.channel;
        throw e;
      }
      if (!read) return refusing(channel, `integration ${channel} was deleted (or never existed): not sent`);
      const i = read.integration;
      if (!channel.startsWith(ID_PREFIX.integration)) uuidOfName.set(channel, i.uuid);
      if (!i.enabled) return refusing(i.name, `integration "${i.name}" is disabled: not sent`);
      try {
        return senderOf(i, read.secrets);
      } catch (e) {
        // Settings no longer valid for the kind, or a secret that does not open: retrying cannot help.
        return refusing(i.name, `integration "${i.name}" cannot send: ${(e as Error).message}`);
      }
    },
    /** Closes every sender kept (at stop). */
    async close(): Promise<void> {
      const all = [...byUuid.values()];
      byUuid.clear();
      await Promise.all(all.map((c) => c.channel.close()));
    },
  };
}

/** The integration channels' interface. */
export type IntegrationChannels = ReturnType<typeof integrationChannels>;
