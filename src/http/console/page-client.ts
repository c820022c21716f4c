/**
 * Console pages (issue 34 point 1, contact kind `console`), embedded in console.js (assets.ts) inside
 * its function scope. Plain ES5 as a string.
 *
 * - `consolePage(json)`: a `page` message of /events (`{title, text, link, tag}`, core/console-pager.ts)
 *   shows a banner at the top of the page with the acknowledge link (always), and a browser
 *   notification (`new Notification(title, {body, tag})`, the Notifications API) when the browser
 *   granted it; clicking the notification opens the acknowledge link.
 * - The Profile page's "Allow notifications" button (`[data-allow-notifications]`, hidden until this
 *   script shows it where the API exists and permission is not yet given) asks `Notification.requestPermission()`.
 */
export const PAGE_JS = `
  function consolePage(data) {
    var p;
    try { p = JSON.parse(data); } catch (err) { return; }
    var box = document.getElementById('page-banner');
    if (!box) {
      box = document.createElement('div');
      box.id = 'page-banner'; box.className = 'notice page-banner'; box.setAttribute('role', 'alert');
      var main = document.querySelector('main') || document.body;
      main.prepend(box);
    }
    var line = document.createElement('p');
    var b = document.createElement('b'); b.textContent = p.title; line.appendChild(b);
    line.appendChild(document.createTextNode(' ' + (p.text || '').split('\\n')[0] + ' '));
    if (p.link) { var a = document.createElement('a'); a.href = p.link; a.textContent = 'Acknowledge'; a.setAttribute('data-page-ack', ''); line.appendChild(a); }
    box.prepend(line);
    if (window.Notification && Notification.permission === 'granted') {
      try {
        var n = new Notification(p.title, { body: p.text, tag: p.tag || undefined });
        if (p.link) n.onclick = function () { window.focus(); location.href = p.link; };
      } catch (err) { box.setAttribute('data-notification-error', String(err)); }
    }
  }
  function allowNotifications() {
    document.querySelectorAll('[data-allow-notifications]').forEach(function (btn) {
      btn.hidden = !window.Notification || Notification.permission === 'granted';
    });
  }
  document.addEventListener('click', function (e) {
    var btn = e.target.closest && e.target.closest('[data-allow-notifications]');
    if (!btn || !window.Notification) return;
    e.preventDefault();
    Notification.requestPermission().then(allowNotifications, allowNotifications);
  });
  document.addEventListener('htmx:load', allowNotifications);
  document.addEventListener('DOMContentLoaded', allowNotifications);
  allowNotifications();
`;
