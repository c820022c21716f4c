import { LANGUAGES } from '../../src/domain/localized.ts';
import { HEARTBEAT_CSS } from './heartbeat-bars.tsx';
import { THEME_CSS } from './theme.tsx';
import { TAGS_CSS } from './tags.tsx';
import { PROFILE_CSS } from './profile.tsx';
import { PICKER_CSS } from './picker.tsx';
import { RESPONSE_CHART_CSS } from './response-chart.tsx';
import { OVERVIEW_LIST_CSS } from './overview-list.tsx';
import { MAINTENANCE_CSS } from './maintenance.tsx';
import { PAGE_EDITOR_CSS } from './statuspage-settings.tsx';
import { ON_CALL_CSS } from './on-call-calendar.tsx';

/** Language tabs of incident updates: the panel after the checked radio of the same position (no script). */
const TABS_CSS =
  '.tabs{display:flex;flex-wrap:wrap;gap:.2rem;margin:.2rem 0}.tabs>input{position:absolute;opacity:0;width:1px;height:1px}' +
  '.tabs>label{padding:.05rem .5rem;border:1px solid var(--line);border-radius:.3rem;font-size:.8rem;cursor:pointer}' +
  '.tabs>input:checked+label{background:var(--chip);border-color:var(--accent)}.tabs>input:focus-visible+label{outline:2px solid var(--accent)}' +
  '.tabs>div{display:none;flex-basis:100%}' +
  LANGUAGES.map((_, i) => `.tabs>input:nth-of-type(${i + 1}):checked~div:nth-of-type(${i + 1})`).join(',') +
  '{display:block}';

/**
 * The console's one stylesheet (served at /_console/console.css): system fonts, light and dark by
 * prefers-color-scheme or the person's choice (theme.tsx), readable from a 360 px phone up. No inline styles anywhere (strict CSP).
 */
export const CONSOLE_CSS = `
:root{color-scheme:light dark;--bg:#f6f7f9;--card:#fff;--fg:#1b1f24;--muted:#5d6672;--line:#dde1e6;--accent:#2563eb;--up:#16804a;--down:#c62828;--warn:#a86200;--paused:#6b7280;--chip:#eef1f4}
${THEME_CSS}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
a{color:var(--accent)}
header.bar{display:flex;flex-wrap:wrap;gap:.25rem 1rem;align-items:center;padding:.6rem 1rem;background:var(--card);border-bottom:1px solid var(--line)}
header.bar .brand{font-weight:700;text-decoration:none;color:var(--fg);margin-right:.5rem}
header.bar nav{display:flex;flex-wrap:wrap;gap:.25rem .9rem;flex:1}
header.bar nav a{text-decoration:none;color:var(--muted);padding:.2rem 0}
header.bar nav a[aria-current=page]{color:var(--fg);border-bottom:2px solid var(--accent)}
header.bar .me{display:flex;gap:.5rem;align-items:center;color:var(--muted);font-size:.9em}
main{max-width:1100px;margin:0 auto;padding:1rem}
h1{font-size:1.35rem;margin:.2rem 0 1rem}
h2{font-size:1.1rem;margin:1.4rem 0 .6rem}
.card{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:1rem;margin-bottom:1rem}
.counts{display:flex;flex-wrap:wrap;gap:.5rem;margin-bottom:1rem}
.counts a{flex:1 1 6rem;text-decoration:none;color:var(--fg);background:var(--card);border:1px solid var(--line);border-radius:8px;padding:.5rem .75rem}
.counts b{display:block;font-size:1.4rem}
table{width:100%;border-collapse:collapse}
th,td{text-align:left;padding:.45rem .5rem;border-bottom:1px solid var(--line);vertical-align:top}
th{font-size:.8em;color:var(--muted);font-weight:600;text-transform:uppercase;letter-spacing:.03em}
td.num{font-variant-numeric:tabular-nums;white-space:nowrap}
td.spark{white-space:nowrap;letter-spacing:-.05em;color:var(--accent);line-height:1}
.muted{color:var(--muted)}
.small{font-size:.85em}
.status{display:inline-block;min-width:4.2rem;text-align:center;border-radius:999px;padding:.05rem .5rem;font-size:.8em;font-weight:600;color:var(--on-accent);background:var(--paused)}
.status[data-status=up],.status[data-status=resolved]{background:var(--up)}
.status[data-status=down],.status[data-status=ongoing]{background:var(--down)}
.status[data-status=new],.status[data-status=pending],.status[data-status=acknowledged],.status[data-status=degraded]{background:var(--warn)}
.filters{display:flex;flex-wrap:wrap;gap:.5rem;margin-bottom:.75rem}
.filters input,.filters select{flex:1 1 8rem}
form.stack{display:grid;gap:.8rem;max-width:40rem}
label{display:grid;gap:.2rem;font-weight:600;font-size:.92em}
label.check{display:flex;gap:.5rem;align-items:center;font-weight:400}
input,select,textarea,button{font:inherit;color:inherit}
input[type=text],input[type=email],input[type=password],input[type=number],input[type=url],input:not([type]),select,textarea{width:100%;padding:.45rem .55rem;border:1px solid var(--line);border-radius:6px;background:var(--bg)}
textarea{min-height:4rem}
button,.button{display:inline-block;cursor:pointer;border:1px solid var(--accent);background:var(--accent);color:var(--on-accent);border-radius:6px;padding:.45rem .9rem;text-decoration:none;font-weight:600;min-height:2.5rem}
button.secondary,.button.secondary{background:transparent;color:var(--accent)}
button.danger,.button.danger{background:var(--down);border-color:var(--down);color:var(--on-accent)}
.actions{display:flex;flex-wrap:wrap;gap:.5rem;align-items:flex-end;margin:.75rem 0}
.actions form{display:flex;flex-wrap:wrap;gap:.5rem;align-items:flex-end}
.field-error{color:var(--down);font-weight:400;font-size:.88em}
.alert{border:1px solid var(--down);color:var(--down);background:var(--card);border-radius:6px;padding:.6rem .8rem;margin-bottom:1rem}
.notice{border:1px solid var(--up);background:var(--card);border-radius:6px;padding:.6rem .8rem;margin-bottom:1rem}
.secret{font-family:ui-monospace,monospace;word-break:break-all;background:var(--chip);padding:.4rem .6rem;border-radius:6px}
pre{background:var(--chip);padding:.6rem .75rem;border-radius:6px;overflow-x:auto;font-size:.85em}
code{font-family:ui-monospace,monospace}
dl.props{display:grid;grid-template-columns:max-content 1fr;gap:.3rem 1rem;margin:0}
dl.props dt{color:var(--muted)}
dl.props dd{margin:0;word-break:break-word}
ol.timeline{list-style:none;padding:0;margin:0}
ol.timeline li{border-left:2px solid var(--line);padding:.2rem 0 .6rem .8rem}
.auth{max-width:24rem;margin:8vh auto}
.qr svg{width:200px;height:200px;display:block;background:#fff}
@media (max-width:640px){
 main{padding:.6rem}
 header.bar nav{order:3;flex-basis:100%;flex-wrap:wrap;gap:.1rem .8rem}
 header.bar nav a{padding:.35rem 0}
 header.bar .me{margin-left:auto}
 table.rows thead{display:none}
 table.rows tr{display:grid;grid-template-columns:auto 1fr;gap:.1rem .6rem;padding:.5rem 0;border-bottom:1px solid var(--line)}
 table.rows td{border:0;padding:.05rem 0}
 table.rows td.hide-sm{display:none}
 dl.props{grid-template-columns:1fr}
}
${TABS_CSS}
${HEARTBEAT_CSS}
${TAGS_CSS}
${PROFILE_CSS}
${PICKER_CSS}
${RESPONSE_CHART_CSS}
${OVERVIEW_LIST_CSS}
${MAINTENANCE_CSS}
${PAGE_EDITOR_CSS}
${ON_CALL_CSS}
`;
