/**
 * The overview's part of the console script (issue 33 point 5), embedded in console.js (assets.ts)
 * inside its function scope, after live-client.ts (it uses `parsed`). Plain ES5 as a string.
 *
 * - `placeCounts(html)`: the counts by status (`#counts`) the live hub sends after changes replace the
 *   page's (a paged overview cannot count its own rows).
 * - `keepPicked(old, row)`: a row replaced live keeps its bulk checkbox ticked.
 * - "Select all on this page" (`[data-select-page]`) ticks or clears every row's checkbox; clearing
 *   one row's clears it (the server takes every row of the page while it is ticked).
 * Search as you type is htmx's (`hx-trigger="input changed delay:250ms"` on the search field).
 */
export const OVERVIEW_JS = `
  function placeCounts(html) {
    var box = parsed(html, 'div')[0];
    var old = document.getElementById('counts');
    if (!box || !old) return;
    old.replaceWith(box);
    if (window.htmx) window.htmx.process(box);
  }
  function keepPicked(old, row) {
    var a = old.querySelector('input[name=uuid]'), b = row.querySelector('input[name=uuid]');
    if (a && b) b.checked = a.checked;
  }
  document.addEventListener('change', function (e) {
    var t = e.target;
    if (!t.matches) return;
    if (t.matches('[data-select-page]')) {
      document.querySelectorAll('input[name=uuid][form=bulk]').forEach(function (b) { b.checked = t.checked; });
    } else if (t.matches('input[name=uuid][form=bulk]') && !t.checked) {
      var all = document.querySelector('[data-select-page]');
      if (all) all.checked = false;
    }
  });
`;
