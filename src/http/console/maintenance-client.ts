/**
 * The maintenance form's part of the console's script (issue 33 point 6), embedded in console.js
 * (assets.ts) inside its function scope. Plain ES5 as a string: the console ships no build step.
 *
 * In a form marked `data-recurrence`, only the fields of the strategy chosen in
 * `select[data-strategy-select]` are shown: each field carries `data-strategies="<strategy> …"`
 * (views/console/maintenance.tsx, extras.tsx). Hidden fields are also disabled, so they are not sent.
 * Without JavaScript every field shows and the server reads the chosen strategy's.
 */
export const MAINTENANCE_JS = `
  function strategyFields() {
    document.querySelectorAll('form[data-recurrence] select[data-strategy-select]').forEach(function (sel) {
      sel.form.querySelectorAll('[data-strategies]').forEach(function (el) {
        var on = el.getAttribute('data-strategies').split(' ').indexOf(sel.value) >= 0;
        el.hidden = !on;
        el.querySelectorAll('input, select, textarea').forEach(function (i) { i.disabled = !on; });
      });
    });
  }
  document.addEventListener('change', function (e) { if (e.target.matches && e.target.matches('select[data-strategy-select]')) strategyFields(); });
  document.addEventListener('htmx:load', strategyFields);
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', strategyFields); else strategyFields();
`;
