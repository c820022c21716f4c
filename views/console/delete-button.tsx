import type { Shell } from './model.ts';
import { canWrite } from './model.ts';

/** The form field a delete must carry (issue 33 point 1): a POST without it shows the confirmation page. */
export const CONFIRM_FIELD = 'confirm';
/** Its value. */
export const CONFIRM_VALUE = 'delete';

/**
 * The "Delete" control of a resource page. Without JavaScript it is a link to the confirmation page
 * (GET `<base>/delete`). With it, htmx asks with the browser's confirm() and, once accepted, posts
 * the confirmation field itself. The question sits on the element that makes the request: htmx
 * reads `hx-confirm` from the requesting element and its ancestors only, so on a button inside a
 * boosted form (the request is the form's) it was never asked (issue 33 point 1).
 */
export function DeleteButton(props: { s: Shell; base: string; question: string; label?: string }) {
  if (!canWrite(props.s)) return null;
  const href = `${props.base}/delete`;
  return (
    <a class="button danger" href={href} hx-post={href} hx-vals={JSON.stringify({ [CONFIRM_FIELD]: CONFIRM_VALUE })} hx-confirm={props.question} hx-target="body" hx-push-url="true" data-delete>
      {props.label ?? 'Delete…'}
    </a>
  );
}
