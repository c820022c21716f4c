import type { Clock } from '../../lib/clock.ts';
import type { Logger } from '../../lib/logger.ts';
import type { Core } from '../../core/index.ts';

/**
 * The default warm-up: src/http/pages/warm-up-render.ts, loaded only when the process has a status
 * page (its template and the views it renders are memory an idle process without pages need not hold).
 */
const renderOnce = async (clock: Clock): Promise<unknown> => (await import('./warm-up-render.ts')).warmUpPageRender(clock);

/**
 * Runs `render` (default: warm-up-render.ts's `warmUpPageRender`, loaded then) once, in a later turn of the event loop, as soon as
 * the process has a status page: when the store (asked asynchronously) says one exists, else when the
 * first is saved (event `statuspage.content`). A Pharos without status pages never pays the render's
 * compiled code and heap (~4 MB of RSS in bench/storm.ts). At most one render per process (it is
 * synchronous and reads nothing); a failure of the read or the render is one warn line.
 * @returns stops waiting (and cancels a warm-up not yet run; a read in flight is then ignored)
 */
export function warmUpWhenPagesExist(core: Pick<Core, 'bus' | 'statuspages'>, clock: Clock, logger: Logger, render: (clock: Clock) => unknown = renderOnce): () => void {
  let pending: NodeJS.Immediate | undefined;
  let stopped = false;
  let done = false;
  const off = core.bus.on('statuspage.content', ({ kind }) => kind === 'statuspage' && once());
  function once(): void {
    off();
    if (stopped || done) return;
    done = true;
    pending = setImmediate(() => {
      Promise.resolve()
        .then(() => render(clock))
        .catch((e: unknown) => logger.warn('status page warm-up render failed', { error: (e as Error).message }));
    });
  }
  core.statuspages.list(0).then(
    (r) => r.total > 0 && once(),
    (e: unknown) => logger.warn('status page warm-up: could not tell whether a status page exists', { error: (e as Error).message }),
  );
  return () => {
    stopped = true;
    off();
    if (pending) clearImmediate(pending);
  };
}
