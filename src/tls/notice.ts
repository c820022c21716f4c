import { raiseOperatorNotice, resolveOperatorNotice, type OperatorNoticeDeps } from '../core/operator-notice.ts';
import { noticeKey } from '../domain/alert.ts';

/**
 * Queues an operator notice "certificate for <host> failed" to the flood guard's channels (every
 * channel when it names none), keyed `tls:failed:<host>` (core/operator-notice.ts, like a failed
 * backup's); `error` null: the notice that resolves it (a certificate obtained after a failure).
 * Nothing is queued when no channel is configured. The returned function rejects with what the store throws.
 */
export function tlsNotifier(deps: OperatorNoticeDeps) {
  return async (host: string, error: string | null, now: number): Promise<void> => {
    const key = noticeKey.tls(host);
    if (error !== null) await raiseOperatorNotice(deps, { key, title: `Pharos could not obtain a certificate for ${host}`, text: error }, now);
    else await resolveOperatorNotice(deps, { key, title: `Pharos obtained a certificate for ${host} again`, text: `The certificate for ${host} was obtained after earlier failures.` }, now);
  };
}
