/**
 * The searchable picker's browser part (views/console/picker.tsx; part of console.js, built by
 * assets.ts): typing in a picker's search box asks `GET /monitors/pick?source=…&q=…` (150 ms after
 * the last key; an older answer arriving late is dropped) and lists the matches as buttons; a click,
 * or Enter for the first, adds the match as a chip — a ticked checkbox named like the field the form
 * posts — and clears the search. "Search" and Enter stay on the page (without this script they
 * submit the form by GET); Enter in another field of the form submits it with its own button, as
 * before the picker. Event delegation on document: works on pages htmx swapped in.
 */
export const PICKER_JS = `
  var pickTimer = null;
  function pickerOf(el) { return el && el.closest ? el.closest('[data-picker]') : null; }
  function pickChosen(fs) {
    var chosen = {};
    fs.querySelectorAll('[data-picker-chips] input').forEach(function (i) { if (i.checked) chosen[i.value] = true; });
    return chosen;
  }
  function pickNote(out, text) { var p = document.createElement('p'); p.className = 'muted small'; p.textContent = text; out.appendChild(p); }
  function pickSearch(box) {
    var fs = pickerOf(box); if (!fs) return;
    var out = fs.querySelector('[data-picker-results]');
    var q = box.value.trim();
    var seq = (fs.pickSeq = (fs.pickSeq || 0) + 1);
    if (q === '') { out.textContent = ''; return; }
    fetch('/monitors/pick?source=' + encodeURIComponent(fs.getAttribute('data-picker')) + '&q=' + encodeURIComponent(q), { headers: { Accept: 'application/json' }, credentials: 'same-origin' })
      .then(function (r) { return r.json(); })
      .then(function (d) {
        if (seq !== fs.pickSeq) return;
        out.textContent = '';
        var chosen = pickChosen(fs);
        var items = d.items.filter(function (it) { return !chosen[it.uuid]; });
        if (!items.length) { pickNote(out, 'No match for \\u201c' + q + '\\u201d.'); return; }
        var ul = document.createElement('ul'); ul.className = 'picker-results';
        items.forEach(function (it) {
          var li = document.createElement('li');
          var b = document.createElement('button');
          b.type = 'button'; b.className = 'secondary';
          b.setAttribute('data-pick', it.uuid); b.setAttribute('data-pick-name', it.name); b.setAttribute('data-pick-kind', it.kind);
          b.textContent = 'Add ' + it.name + ' (' + it.kind + ')' + (it.tags.length ? ' \\u00b7 ' + it.tags.join(', ') : '');
          li.appendChild(b); ul.appendChild(li);
        });
        out.appendChild(ul);
        if (d.more) pickNote(out, 'More match: type more of the name.');
      })
      .catch(function () { if (seq === fs.pickSeq) { out.textContent = ''; pickNote(out, 'Search failed; try again.'); } });
  }
  function pickAdd(b) {
    var fs = pickerOf(b); if (!fs) return;
    var li = document.createElement('li');
    var label = document.createElement('label'); label.className = 'chip';
    var input = document.createElement('input');
    input.type = 'checkbox'; input.name = fs.getAttribute('data-field'); input.value = b.getAttribute('data-pick'); input.checked = true;
    var kind = document.createElement('span'); kind.className = 'muted small'; kind.textContent = '(' + b.getAttribute('data-pick-kind') + ')';
    label.appendChild(input); label.appendChild(document.createTextNode(' ' + b.getAttribute('data-pick-name') + ' ')); label.appendChild(kind);
    li.appendChild(label);
    fs.querySelector('[data-picker-chips]').appendChild(li);
    var none = fs.querySelector('[data-picker-none]'); if (none) none.hidden = true;
    var box = fs.querySelector('[data-picker-q]');
    box.value = ''; fs.querySelector('[data-picker-results]').textContent = ''; box.focus();
  }
  document.addEventListener('input', function (e) {
    if (!e.target.matches || !e.target.matches('[data-picker-q]')) return;
    var box = e.target;
    clearTimeout(pickTimer);
    pickTimer = setTimeout(function () { pickSearch(box); }, 150);
  });
  document.addEventListener('keydown', function (e) {
    if (e.key !== 'Enter' || !e.target.matches || !e.target.matches('[data-picker-q]')) return;
    e.preventDefault();
    var first = pickerOf(e.target).querySelector('[data-pick]');
    if (first) pickAdd(first); else pickSearch(e.target);
  });
  document.addEventListener('click', function (e) {
    var b = e.target.closest && e.target.closest('[data-pick]');
    if (b) { e.preventDefault(); pickAdd(b); return; }
    var go = e.target.closest && e.target.closest('[data-picker-go]');
    if (!go) return;
    e.preventDefault();
    var fs = pickerOf(go);
    // Enter in another field of the form "clicks" its first submit button, which may be this one:
    // submit the form with its own (last) submit button instead, as before the picker.
    var active = document.activeElement;
    if (go.form && active && active !== go && !fs.contains(active) && go.form.contains(active)) {
      var mains = Array.prototype.filter.call(go.form.querySelectorAll('button[type=submit], button:not([type]), input[type=submit]'), function (b) { return !b.hasAttribute('data-picker-go'); });
      var main = mains[mains.length - 1];
      // A click (not requestSubmit): htmx takes the submitter from the last button clicked.
      if (main) { main.click(); return; }
    }
    pickSearch(fs.querySelector('[data-picker-q]'));
  });
`;
