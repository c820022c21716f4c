import { raw } from 'hono/html';
import { HEARTBEAT_COUNT, type BeatState, type Heartbeat } from '../../src/domain/heartbeat.ts';

/**
 * Heartbeat bars (issue 33 point 2, Uptime Kuma's row of the newest checks): one `<i>` per check,
 * coloured by a one-letter class (`u` up, `g` degraded, `d` down, `m` maintenance), its state,
 * response time and time (UTC) in its `title` (shown on hover without script; a `role="img"`,
 * so the title is also its accessible name). The row is a `role="group"` with a summary label
 * ("Last 50 checks: 48 up, 2 down"). Built as strings: the overview
 * draws a page of rows of them (no per-bar style, ~70 bytes a bar before compression).
 *
 * The container carries `data-beats="<monitor uuid>"`, `data-last` (epoch ms of its newest bar) and
 * `data-max`; the console script (heartbeat-client.ts) appends what the live stream sends and drops
 * the oldest past `data-max`.
 */

const CLASS: Readonly<Record<BeatState, string>> = { up: 'u', degraded: 'g', down: 'd', maintenance: 'm' };
const ORDER: readonly BeatState[] = ['up', 'degraded', 'down', 'maintenance'];

/** `11-27 10:05:03` (UTC): a bar's time, short (the row's label says UTC). */
const stamp = (at: number) => new Date(at).toISOString().slice(5, 19).replace('T', ' ');

/** One bar: `<i class="d" role="img" title="down · 123 ms · 11-27 10:05:03 UTC · london"></i>` (its title is its accessible name). Region names are config names (`[a-z0-9-]`), escaped anyway. */
export function beatHtml(b: Heartbeat): string {
  return `<i class="${CLASS[b.state]}" role="img" title="${b.state} · ${Math.round(b.latencyMs)} ms · ${stamp(b.at)} UTC · ${esc(b.region)}"></i>`;
}

/** The row's accessible summary: `"Last 3 checks: 2 up, 1 down"`, or `"No check yet"`. The console script writes the same (heartbeat-client.ts). */
export function beatsLabel(beats: readonly Heartbeat[]): string {
  if (beats.length === 0) return 'No check yet';
  const n = new Map<BeatState, number>();
  for (const b of beats) n.set(b.state, (n.get(b.state) ?? 0) + 1);
  const parts = ORDER.filter((s) => n.has(s)).map((s) => `${n.get(s)} ${s}`);
  return `Last ${beats.length} ${beats.length === 1 ? 'check' : 'checks'}: ${parts.join(', ')}`;
}

/**
 * A monitor's bars as an HTML string, oldest left.
 * @param big the monitor page's taller bars that fill the width
 */
export function heartbeatBarsHtml(uuid: string, beats: readonly Heartbeat[], big = false): string {
  const last = beats.length ? beats[beats.length - 1]!.at : 0;
  let bars = '';
  for (const b of beats) bars += beatHtml(b);
  return `<span class="hb${big ? ' big' : ''}" data-beats="${esc(uuid)}" data-last="${last}" data-max="${HEARTBEAT_COUNT}" role="group" aria-label="${beatsLabel(beats)}">${bars}</span>`;
}

/** The overview's column heading's hint. */
export const HEARTBEAT_HEADING_TITLE = `The newest ${HEARTBEAT_COUNT} checks, oldest left (times UTC; hover a bar for its response time)`;

/** The overview's cell (`td.hb-c`) of a row: a monitor's bars (`beats`: filled for the rows of the page shown), empty for a healthcheck. */
export function heartbeatCellHtml(r: { kind: string; uuid: string; beats?: readonly Heartbeat[] | undefined }): string {
  return r.kind === 'monitor' ? `<td class="hb-c">${heartbeatBarsHtml(r.uuid, r.beats ?? [])}</td>` : '<td class="hb-c"></td>';
}

/** {@link heartbeatBarsHtml} as JSX (the monitor page). */
export function HeartbeatBars(props: { uuid: string; beats: readonly Heartbeat[]; big?: boolean }) {
  return raw(heartbeatBarsHtml(props.uuid, props.beats, props.big ?? false));
}

/** The live stream's `beats` message: each new bar with its monitor (`data-m`) and time (`data-at`), in the order they landed. */
export function liveBeatsHtml(list: ReadonlyArray<{ uuid: string; beat: Heartbeat }>): string {
  let out = '';
  for (const { uuid, beat } of list) out += beatHtml(beat).replace('<i ', `<i data-m="${esc(uuid)}" data-at="${beat.at}" `);
  return out;
}

/** The bars' rules, appended to the console's stylesheet (views/console/style.ts). Colours are the status colours (light and dark). */
export const HEARTBEAT_CSS = `
.hb{display:inline-flex;gap:1px;align-items:stretch;height:1.15rem;vertical-align:middle;max-width:100%;overflow:hidden}
.hb i{flex:0 0 4px;border-radius:1px;background:var(--up)}
.hb i.g{background:var(--warn)}.hb i.d{background:var(--down)}.hb i.m{background:var(--accent)}
.hb.big{display:flex;height:2rem;gap:2px}.hb.big i{flex:1 1 0;max-width:12px;border-radius:2px}
td.hb-c{white-space:nowrap}
@media (max-width:640px){table.rows td.hb-c{grid-column:1/-1}}
`;

function esc(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
