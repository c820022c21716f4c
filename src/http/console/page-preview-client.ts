/**
 * The status-page editor's live preview, a piece of the console script (assets.ts). The settings
 * form (`#page-settings`, `data-preview` = the preview route) is posted into the sandboxed frame
 * `page-preview` 400 ms after the last input or change (debounced), so the frame shows the public
 * page with the unsaved draft. The post is the form's own native submission with its action and
 * target swapped for that moment (`HTMLFormElement.prototype.submit` fires no submit event, so htmx
 * does not take it, and nothing is saved); the answer carries the public page's CSP. Without
 * JavaScript the form's "Preview" button does the same into a new tab.
 */
export const PREVIEW_JS = `
  function pagePreview() {
    var form = document.getElementById('page-settings');
    var frame = document.querySelector('iframe[name="page-preview"]');
    if (!form || !frame || form.hasAttribute('data-preview-live')) return;
    form.setAttribute('data-preview-live', '');
    var timer = null;
    function send() {
      var action = form.getAttribute('action');
      var target = form.getAttribute('target');
      form.setAttribute('action', form.getAttribute('data-preview'));
      form.setAttribute('target', 'page-preview');
      HTMLFormElement.prototype.submit.call(form);
      form.setAttribute('action', action);
      if (target === null) form.removeAttribute('target'); else form.setAttribute('target', target);
    }
    function later() { clearTimeout(timer); timer = setTimeout(send, 400); }
    form.addEventListener('input', later);
    form.addEventListener('change', later);
  }
  document.addEventListener('htmx:load', pagePreview);
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', pagePreview); else pagePreview();
`;
