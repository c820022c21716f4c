import { Hono } from 'hono';
import { bundledFile } from '../../lib/sea.ts';
import { CONSOLE_CSS } from '../../../views/console/style.ts';
import { LIVE_JS } from './live-client.ts';
import { PICKER_JS } from './picker-client.ts';
import { OVERVIEW_JS } from './overview-client.ts';
import { HEARTBEAT_JS } from './heartbeat-client.ts';
import { MAINTENANCE_JS } from './maintenance-client.ts';
import { PREVIEW_JS } from './page-preview-client.ts';
import { PAGE_JS } from './page-client.ts';

/**
 * The console's own script (no inline script: strict CSP). Live updates: one EventSource on
 * /events for the whole visit (htmx-boosted navigation keeps the page, and so the stream); each
 * message is a server-rendered row that replaces the row with its id, or is added to the table
 * that takes it. Copy buttons (`data-copy`) put their text on the clipboard. The monitor form shows
 * only the chosen protocol's fieldset.
 */
const CONSOLE_JS = `(function () {
  'use strict';
${LIVE_JS}
${PICKER_JS}
${OVERVIEW_JS}
${HEARTBEAT_JS}
${MAINTENANCE_JS}
${PREVIEW_JS}
${PAGE_JS}
  function swapRow(html, tableId) {
    var t = document.createElement('tbody');
    t.innerHTML = html;
    var row = t.firstElementChild;
    if (!row) return;
    var old = document.getElementById(row.id);
    if (old) { keepPicked(old, row); old.replaceWith(row); }
    // Added only where every row belongs (the overview's plain first page: data-insert), never to another page or filter.
    else { var body = document.querySelector('#' + tableId + '[data-insert] tbody'); if (body) body.prepend(row); }
    recount();
  }
  // The counts come from the server ('counts' after each change: the overview shows one page of rows).
  function recount() {}
  function live() {
    if (!document.querySelector('header.bar') || !window.EventSource) return;
    var es = new EventSource('/events');
    es.addEventListener('row', function (e) { swapRow(e.data, 'overview'); });
    es.addEventListener('outage', function (e) { placeOutage(e.data); });
    es.addEventListener('state', function (e) { swapState(e.data); });
    es.addEventListener('counts', function (e) { placeCounts(e.data); });
    es.addEventListener('beats', function (e) { placeBeats(e.data); });
    es.addEventListener('page', function (e) { consolePage(e.data); });
    es.addEventListener('hello', caughtUp);
    es.addEventListener('remove', function (e) { var el = document.getElementById('row-' + e.data) || document.getElementById('outage-' + e.data); if (el) el.remove(); recount(); showEmpty(); });
    es.addEventListener('signed-out', function () { es.close(); location.href = '/login'; });
  }
  document.addEventListener('click', function (e) {
    var b = e.target.closest && e.target.closest('[data-copy]');
    if (!b) return;
    e.preventDefault();
    var text = b.getAttribute('data-copy');
    var done = function () { b.textContent = 'Copied'; b.setAttribute('data-copied', 'true'); };
    if (navigator.clipboard && navigator.clipboard.writeText) navigator.clipboard.writeText(text).then(done, done);
    else done();
  });
  // Monitor form: only the chosen protocol's fieldset is shown (and sent); with JS off all are.
  function protocolFields() {
    document.querySelectorAll('select[data-protocol-select]').forEach(function (sel) {
      sel.form.querySelectorAll('fieldset[data-protocol]').forEach(function (fs) {
        var on = fs.getAttribute('data-protocol') === sel.value;
        fs.hidden = !on; fs.disabled = !on;
      });
    });
  }
  document.addEventListener('change', function (e) { if (e.target.matches && e.target.matches('select[data-protocol-select]')) protocolFields(); });
  document.addEventListener('htmx:load', protocolFields);
  function ready() { live(); protocolFields(); tick(); setInterval(tick, 1000); }
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', ready); else ready();
})();
`;

/**
 * Static files of the console at `/_console/…`: its stylesheet and script, and htmx from the npm
 * package `htmx.org` (a SEA asset in the binary; installs are air-gapped, so no CDN).
 */
export function consoleAssetsRouter() {
  const app = new Hono();
  let htmx: Buffer | null = null;
  const cache = { 'Cache-Control': 'public, max-age=3600' };
  app.get('/console.css', (c) => c.body(CONSOLE_CSS, 200, { 'Content-Type': 'text/css; charset=utf-8', ...cache }));
  app.get('/console.js', (c) => c.body(CONSOLE_JS, 200, { 'Content-Type': 'text/javascript; charset=utf-8', ...cache }));
  app.get('/htmx.min.js', (c) => {
    htmx ??= bundledFile('htmx.min.js', 'htmx.org/dist/htmx.min.js');
    return c.body(new Uint8Array(htmx), 200, { 'Content-Type': 'text/javascript; charset=utf-8', ...cache });
  });
  return app;
}
