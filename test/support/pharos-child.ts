/**
 * A test Pharos in a child process of its own (forked with an IPC channel), on a manual clock: what
 * a test kills with SIGKILL and starts again on the same data dir (issue 34 point 3, page requests).
 * Env: PHAROS_CHILD_CONFIG (JSON merged over startTestPharos's defaults; give `data_dir`),
 * PHAROS_CHILD_NOW (the manual clock's start, epoch ms). Sends `{ url }` once started and its
 * stepper settled (leader work at start: open page requests paged). Answers each message `{ id, … }`:
 * `{ advance: ms }` moves the clock (settling after each timer); `{ timeline: uuid }` answers the
 * outage's timeline; `{ request: [uuid, send] }` a page request's times. See {@link forkPharos}.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { ManualClock } from './manual-clock.ts';
import { isolatedCwd, isolatedEnv } from './process.ts';

/** A forked test Pharos: its URL, a request/answer call over IPC, and the child to kill. */
export interface ChildPharos {
  child: ChildProcess;
  url: string;
  call(message: Record<string, unknown>): Promise<Record<string, unknown>>;
  exited: Promise<number | string>;
}

/** Forks this file as a test Pharos with `config` on a manual clock starting at `now`; resolves once it serves. */
export async function forkPharos(config: Record<string, unknown>, now: number): Promise<ChildPharos> {
  const child = fork(fileURLToPath(import.meta.url), [], {
    cwd: isolatedCwd(),
    execArgv: ['--import', import.meta.resolve('tsx')],
    env: isolatedEnv({ PHAROS_CHILD_CONFIG: JSON.stringify(config), PHAROS_CHILD_NOW: String(now) }),
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
  });
  let err = '';
  child.stderr!.on('data', (d) => (err += d));
  const exited = new Promise<number | string>((r) => child.once('exit', (code, signal) => r(code ?? signal ?? -1)));
  const answers = new Map<number, (m: Record<string, unknown>) => void>();
  let seq = 0;
  const url = await new Promise<string>((resolve, reject) => {
    child.on('message', (m: Record<string, unknown>) => {
      if (typeof m.url === 'string') resolve(m.url);
      else answers.get(m.id as number)?.(m);
    });
    void exited.then((c) => reject(new Error(`child pharos exited (${c}) before serving: ${err}`)));
  });
  return {
    child,
    url,
    exited,
    call: (message) =>
      new Promise((resolve) => {
        const id = ++seq;
        answers.set(id, resolve);
        child.send({ ...message, id });
      }),
  };
}

async function main(): Promise<void> {
  const { startTestPharos } = await import('./pharos.ts');
  const clock = new ManualClock(Number(process.env.PHAROS_CHILD_NOW));
  const p = await startTestPharos(JSON.parse(process.env.PHAROS_CHILD_CONFIG!) as Record<string, unknown>, clock);
  await p.stepper.settled();
  process.on('message', (m: { id: number; advance?: number; timeline?: string; request?: [string, number] }) => {
    void (async () => {
      if (m.advance !== undefined) await p.advance(m.advance);
      await p.stepper.settled();
      await p.core.people.settled();
      const timeline = m.timeline ? (await p.core.outages.timeline(m.timeline)).map((e) => `${e.type} ${e.message ?? ''}`) : undefined;
      const request = m.request ? ((await p.store.async.people.pageRequest(m.request[0], m.request[1])) ?? null) : undefined;
      process.send!({ id: m.id, now: clock.now(), timeline, request });
    })();
  });
  process.send!({ url: p.url });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
