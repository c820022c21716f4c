/**
 * The heartbeat bars' part of the console's script (issue 33 point 2), embedded in console.js
 * (assets.ts) inside its function scope. Plain ES5 as a string: the console ships no build step.
 *
 * `placeBeats(html)`: the live stream's `beats` message is a run of bars
 * (views/console/heartbeat-bars.tsx `liveBeatsHtml`), each with its monitor (`data-m`) and time
 * (`data-at`). Each goes to the end of every `[data-beats="<uuid>"]` row on the page (the overview's
 * row, the monitor page's) unless the row already has it (`data-last`: its newest bar's time, so a
 * bar that came with a re-rendered row is not added twice); the oldest bars past `data-max` go, and
 * the row's summary label is counted again as the server writes it (`beatsLabel`).
 */
export const HEARTBEAT_JS = `
  var BEAT_NAMES = { u: 'up', g: 'degraded', d: 'down', m: 'maintenance' };
  function beatsLabel(box) {
    var bars = box.children, n = {}, parts = [];
    if (!bars.length) return 'No check yet';
    for (var i = 0; i < bars.length; i++) n[bars[i].className] = (n[bars[i].className] || 0) + 1;
    ['u', 'g', 'd', 'm'].forEach(function (k) { if (n[k]) parts.push(n[k] + ' ' + BEAT_NAMES[k]); });
    return 'Last ' + bars.length + (bars.length === 1 ? ' check: ' : ' checks: ') + parts.join(', ');
  }
  function placeBeats(html) {
    var box = document.createElement('div');
    box.innerHTML = html;
    Array.prototype.slice.call(box.children).forEach(function (bar) {
      var uuid = bar.getAttribute('data-m'), at = Number(bar.getAttribute('data-at'));
      bar.removeAttribute('data-m');
      bar.removeAttribute('data-at');
      document.querySelectorAll('[data-beats="' + uuid + '"]').forEach(function (row) {
        if (Number(row.getAttribute('data-last') || 0) >= at) return;
        row.appendChild(bar.cloneNode(true));
        row.setAttribute('data-last', String(at));
        var max = Number(row.getAttribute('data-max') || 50);
        while (row.children.length > max) row.removeChild(row.firstElementChild);
        row.setAttribute('aria-label', beatsLabel(row));
      });
    });
  }
`;
