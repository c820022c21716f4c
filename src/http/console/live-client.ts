/**
 * The live part of the console's script (issue 33 point 3), embedded in console.js (assets.ts) inside
 * its function scope. Plain ES5 as a string: the console ships no build step.
 *
 * - `placeOutage(html)`: an outage line from the stream goes to the table that takes its state or its
 *   subject (`table[data-outages]`: `open`, `resolved`, `of:<uuid>`): replaced in place when it is
 *   there, else moved (an ongoing outage that resolved leaves Ongoing for Resolved), added on top
 *   only where the table says `data-insert`; each table's empty message shows only while it is empty.
 * - `swapState(html)`: a monitor's or healthcheck's live parts (views/console/live-state.tsx) replace
 *   the elements with the same id and `data-for` (none elsewhere: another monitor's page ignores them);
 *   an outage's page hides its actions once the outage is resolved.
 * - `caughtUp()` on every `hello`: after a reconnect the page's content is loaded again (what changed
 *   while the stream was down was never sent), unless something is being typed on the page.
 * - `tick()`: every `[data-tick]` cell counts on from its `data-ms` (the elapsed time when the server
 *   rendered it) by the browser's own clock, so no clock skew between server and browser shows;
 *   `fmtDuration`/`fmtAgo` write it as `duration` (views/console/outages.tsx) and `ago`
 *   (views/console/layout.tsx) do: test/unit/console-live-client.test.ts holds them equal.
 */
export const LIVE_JS = `
  function fmtDuration(ms) {
    var s = Math.max(0, Math.round(ms / 1000));
    var d = Math.floor(s / 86400), h = Math.floor((s % 86400) / 3600), m = Math.floor((s % 3600) / 60);
    var p = [];
    if (d) p.push(d + 'd');
    if (h) p.push(h + 'h');
    if (m) p.push(m + 'min');
    if (!d && !h) p.push((s % 60) + 's');
    return p.join(' ');
  }
  function fmtAgo(ms) {
    var s = Math.max(0, Math.round(ms / 1000));
    if (s < 60) return s + ' s ago';
    if (s < 3600) return Math.floor(s / 60) + ' min ago';
    if (s < 86400) return Math.floor(s / 3600) + ' h ago';
    return Math.floor(s / 86400) + ' d ago';
  }
  var tickStart = new WeakMap();
  function tick() {
    var now = Date.now();
    document.querySelectorAll('[data-tick]').forEach(function (el) {
      var t0 = tickStart.get(el);
      if (t0 === undefined) { t0 = now - Number(el.getAttribute('data-ms') || 0); tickStart.set(el, t0); }
      var text = el.getAttribute('data-tick') === 'ago' ? fmtAgo(now - t0) : fmtDuration(now - t0);
      if (el.textContent !== text) el.textContent = text;
    });
  }
  function parsed(html, container) {
    var box = document.createElement(container);
    box.innerHTML = html;
    return Array.prototype.slice.call(box.children);
  }
  function showEmpty() {
    document.querySelectorAll('[data-empty-for]').forEach(function (p) {
      var t = document.getElementById(p.getAttribute('data-empty-for'));
      p.hidden = !!(t && t.querySelector('tbody tr'));
    });
  }
  function placeOutage(html) {
    var row = parsed(html, 'tbody')[0];
    if (!row) return;
    var open = row.getAttribute('data-state') === 'resolved' ? 'resolved' : 'open';
    var subject = 'of:' + row.getAttribute('data-subject');
    var old = document.getElementById(row.id);
    var dest = null;
    document.querySelectorAll('table[data-outages]').forEach(function (t) {
      var k = t.getAttribute('data-outages');
      if (k === open || k === subject) dest = t;
    });
    if (old && dest && dest.contains(old)) old.replaceWith(row);
    else {
      if (old) old.remove();
      if (dest && dest.hasAttribute('data-insert')) dest.querySelector('tbody').prepend(row);
    }
    if (row.isConnected && window.htmx) window.htmx.process(row);
    showEmpty();
    tick();
  }
  function swapState(html) {
    parsed(html, 'div').forEach(function (el) {
      var old = el.id ? document.getElementById(el.id) : null;
      if (!old || old.getAttribute('data-for') !== el.getAttribute('data-for')) return;
      old.replaceWith(el);
      if (window.htmx) window.htmx.process(el);
      // A resolved outage takes no more actions: its page's form goes with the news.
      var actions = document.getElementById('outage-actions');
      if (el.id === 'outage-badges' && actions && el.querySelector('[data-status=resolved]')) actions.remove();
    });
    tick();
  }
  var hellos = 0;
  function caughtUp() {
    if (hellos++ === 0) return;
    // The stream came back after a drop (EventSource reconnects by itself): changes sent meanwhile
    // were missed, so a live page loads its content again, unless a person is typing into it.
    if (!window.htmx || !document.querySelector('#overview, table[data-outages], [data-for]')) return;
    var typing = Array.prototype.some.call(document.querySelectorAll('main input:not([type=hidden]):not([type=search]), main textarea'), function (i) { return i.value !== '' && i.value !== i.defaultValue; });
    if (!typing) window.htmx.ajax('GET', location.pathname + location.search, { target: 'main', select: 'main', swap: 'outerHTML' });
  }
`;
