import type { Hono } from 'hono';
import { AppError } from '../../lib/errors.ts';
import { parseTagRef } from '../../domain/tags.ts';
import type { BulkChange } from '../../core/monitors-bulk.ts';
import type { HttpDeps } from '../context.ts';
import { BulkDeleteConfirmPage } from '../../../views/console/overview-list.tsx';
import { CONFIRM_FIELD, CONFIRM_VALUE } from '../../../views/console/delete-button.tsx';
import { consoleActor } from '../audit-actor.ts';
import { page, shellOf, type ConsoleEnv } from './context.ts';
import { formOf, text } from './forms.ts';

const MONITOR_UUID = /^mon_[0-9A-Za-z]{22}$/;
/** Where a bulk action may send the person back to: the overview with its query string only. */
const BACK = /^\/(?:\?[^#\s]*)?$/;

/**
 * The overview's bulk actions (issue 33 point 5): POST /monitors/bulk with the ticked rows (`uuid`,
 * repeated) or the whole page (`all=page` with `page_uuids`), `action` (pause, resume, delete, policy,
 * tag) and `back` (the list to answer with). Editors and admins only (the console's router refuses
 * viewers' posts). One transaction per action, an audit entry per monitor as for single edits (tags:
 * core/tags.ts's one entry for the tag). Answers 303 to the list with `done=<action>&n=<count>`, which
 * the overview shows as "Paused 12 monitors."; a delete first shows its confirmation page.
 */
export function bulkRoutes(app: Hono<ConsoleEnv>, deps: HttpDeps): void {
  const { core } = deps;
  app.post('/monitors/bulk', async (c) => {
    const f = await formOf(c);
    const back = BACK.test(text(f, 'back')) ? text(f, 'back') : '/';
    const answer = (done: string, n: number) => c.redirect(`${back}${back.includes('?') ? '&' : '?'}done=${done}&n=${n}`, 303);
    const ticked = ([] as string[]).concat(f.uuid ?? []);
    const whole = text(f, 'all') === 'page' ? text(f, 'page_uuids').split(',') : [];
    const uuids = [...new Set([...ticked, ...whole].map((u) => u.trim()).filter((u) => MONITOR_UUID.test(u)))];
    const action = text(f, 'action');
    if (uuids.length === 0) return answer('none', 0);
    const actor = consoleActor(c.var.session!);
    let change: BulkChange;
    switch (action) {
      case 'pause':
      case 'resume':
        change = { action };
        break;
      case 'policy': {
        const p = text(f, 'policy');
        change = { action: 'policy', policy: p === '' || p === 'none' ? null : p };
        break;
      }
      case 'delete': {
        if (text(f, CONFIRM_FIELD) !== CONFIRM_VALUE) {
          const found = await Promise.all(uuids.map((u) => core.monitors.get(u).catch(() => null)));
          const shown = found.filter((m) => m !== null);
          return page(c, BulkDeleteConfirmPage({ s: shellOf(c, '/'), names: shown.map((m) => m.name), uuids: shown.map((m) => m.uuid), back, confirmField: CONFIRM_FIELD, confirmValue: CONFIRM_VALUE }));
        }
        change = { action: 'delete' };
        break;
      }
      case 'tag': {
        const ref = parseTagRef(text(f, 'tag'));
        if ('error' in ref) throw new AppError(400, 'validation.invalid', `tag: ${ref.error}`);
        const r = await core.tags.addTag(uuids, ref, actor);
        return answer('tag', r.added);
      }
      default:
        throw new AppError(400, 'validation.invalid', `action: must be one of pause, resume, delete, policy, tag`);
    }
    return answer(change.action, await core.monitorsBulk.apply(uuids, change, actor));
  });
}
