/**
 * The stylesheet of public status pages, served at `/_pharos/status.css`. Colours are CSS variables:
 * light by default, dark under `data-theme="dark"`, and under `data-theme="system"` dark when the
 * browser prefers it (`prefers-color-scheme`). The page sets `--accent` and `--font` in its own
 * nonce'd style element, with `--link` and `--on-accent`: the accent made readable (AA) as link text and
 * under a button's label (src/lib/contrast.ts); `--*-strong` are status colours readable as text. No JavaScript: groups fold with <details>, tooltips are `title`s.
 */
export const STATUS_CSS = `
:root{--bg:#f6f7f9;--card:#fff;--text:#1d2430;--muted:#5d6778;--border:#e3e6eb;--ok:#2fa36b;--minor:#9ccc65;--partial:#f0a020;--major:#e5484d;--maint:#3b82f6;--none:#d5d9e0;--accent:#36b27e;--link:#1f7a55;--on-accent:#fff;--ok-strong:#1a7346;--partial-strong:#9a5b00;--major-strong:#c4262e;--maint-strong:#1d5fd1;--on-strong:#fff;--font:system-ui,sans-serif;color-scheme:light}
[data-theme=dark]{--bg:#0f1217;--card:#171b22;--text:#e6e9ef;--muted:#9aa3b2;--border:#2a303b;--ok:#34c07c;--minor:#8bc34a;--partial:#f5a524;--major:#f2555a;--maint:#5b9cff;--none:#343b47;--ok-strong:#34c07c;--partial-strong:#f5a524;--major-strong:#f2555a;--maint-strong:#5b9cff;--on-strong:#0f1217;color-scheme:dark}
@media (prefers-color-scheme:dark){[data-theme=system]{--bg:#0f1217;--card:#171b22;--text:#e6e9ef;--muted:#9aa3b2;--border:#2a303b;--ok:#34c07c;--minor:#8bc34a;--partial:#f5a524;--major:#f2555a;--maint:#5b9cff;--none:#343b47;--ok-strong:#34c07c;--partial-strong:#f5a524;--major-strong:#f2555a;--maint-strong:#5b9cff;--on-strong:#0f1217;color-scheme:dark}}
*{box-sizing:border-box}
html{background:var(--bg)}
body{margin:0;font-family:var(--font);color:var(--text);background:var(--bg);line-height:1.5;-webkit-font-smoothing:antialiased}
a{color:var(--link)}
.wrap{max-width:860px;margin:0 auto;padding:24px 16px 48px}
header.top{display:flex;align-items:center;justify-content:space-between;gap:16px;flex-wrap:wrap;padding:8px 0 20px}
header.top .brand{display:flex;align-items:center;gap:12px;text-decoration:none;color:var(--text)}
header.top h1{font-size:1.5rem;margin:0;font-weight:600}
header.top img{display:block;width:auto}
.top-links{display:flex;gap:12px;align-items:center;font-size:.9rem}
.desc{color:var(--muted);margin:-8px 0 20px}
.banner{border-radius:12px;padding:18px 22px;margin:0 0 28px;font-size:1.15rem;font-weight:600;color:var(--on-strong);display:flex;align-items:center;gap:12px}
.banner.plain{background:var(--card);color:var(--text);border:1px solid var(--border)}
.banner.s-operational{background:var(--ok-strong)}.banner.s-degraded{background:var(--partial-strong)}.banner.s-partial_outage{background:var(--partial-strong)}.banner.s-major_outage{background:var(--major-strong)}.banner.s-maintenance{background:var(--maint-strong)}
.banner:not(.plain) .dot{background:rgba(255,255,255,.85);width:12px;height:12px}
.banner.plain .dot{width:14px;height:14px}
.card{background:var(--card);border:1px solid var(--border);border-radius:12px;margin:0 0 24px;overflow:hidden}
.card>h2,.card>.card-head{margin:0;padding:14px 20px;font-size:1rem;font-weight:600;border-bottom:1px solid var(--border)}
.notice{padding:16px 20px;border-bottom:1px solid var(--border)}
.notice:last-child{border-bottom:0}
.notice h3{margin:0 0 4px;font-size:1rem}
.notice .when{color:var(--muted);font-size:.85rem}
.timeline{list-style:none;margin:10px 0 0;padding:0 0 0 14px;border-left:2px solid var(--border)}
.timeline li{margin:0 0 10px;position:relative}
.timeline li::before{content:"";position:absolute;left:-20px;top:.45em;width:10px;height:10px;border-radius:50%;background:var(--accent)}
.timeline .type{font-weight:600}
.timeline time{color:var(--muted);font-size:.85rem;display:block}
.incident.u-resolved .timeline li:last-child::before{background:var(--ok)}
.service{padding:16px 20px;border-bottom:1px solid var(--border)}
.service:last-child{border-bottom:0}
.svc-head{display:flex;justify-content:space-between;align-items:baseline;gap:12px}
.svc-name{font-weight:500}
.svc-desc{color:var(--muted);font-size:.85rem;margin-top:2px}
.status{font-size:.9rem;white-space:nowrap;display:inline-flex;align-items:center;gap:6px}
.dot{display:inline-block;width:10px;height:10px;border-radius:50%;background:var(--none);flex:none}
.s-operational .dot,.dot.s-operational{background:var(--ok)}.s-degraded .dot,.dot.s-degraded{background:var(--partial)}.s-partial_outage .dot,.dot.s-partial_outage{background:var(--partial)}.s-major_outage .dot,.dot.s-major_outage{background:var(--major)}.s-maintenance .dot,.dot.s-maintenance{background:var(--maint)}
.status.s-major_outage{color:var(--major-strong)}.status.s-partial_outage,.status.s-degraded{color:var(--partial-strong)}.status.s-maintenance{color:var(--maint-strong)}.status.s-operational{color:var(--ok-strong)}.status.s-paused,.status.s-unknown{color:var(--muted)}
.bars{display:flex;gap:2px;margin-top:10px;height:34px;align-items:stretch}
.bar{flex:1;border-radius:2px;background:var(--none);min-width:2px}
.bar:hover{opacity:.7}
.bar.l-ok{background:var(--ok)}.bar.l-minor{background:var(--minor)}.bar.l-partial{background:var(--partial)}.bar.l-major{background:var(--major)}
.bars-legend{display:flex;justify-content:space-between;gap:0 8px;color:var(--muted);font-size:.75rem;margin-top:4px}
.bars-legend .ago-30{display:none}
@media (max-width:520px){.bars>.bar:nth-child(-n+60){display:none}.bars-legend .ago-90{display:none}.bars-legend .ago-30{display:inline}.bars-legend>span{min-width:0}.bars-legend>span[data-uptime]{text-align:center}.svc-head{flex-wrap:wrap}}
.graph{margin-top:12px}
.graph svg{display:block;width:100%;height:64px}
.graph .line{fill:none;stroke:var(--accent);stroke-width:1.5;vector-effect:non-scaling-stroke}
.graph .area{fill:var(--accent);opacity:.12}
.graph-legend{display:flex;justify-content:space-between;color:var(--muted);font-size:.75rem}
details.group>summary{cursor:pointer;list-style:none;padding:16px 20px;border-bottom:1px solid var(--border)}
details.group>summary::-webkit-details-marker{display:none}
details.group>summary .svc-name::before{content:"▸";display:inline-block;width:1em;color:var(--muted);transition:transform .15s}
details.group[open]>summary .svc-name::before{transform:rotate(90deg)}
details.group .service{padding-left:40px}
.ranges{display:flex;gap:10px;font-size:.85rem;justify-content:flex-end;margin:-12px 0 12px}
.ranges a[aria-current]{font-weight:600;color:var(--text);text-decoration:none}
footer{display:flex;justify-content:space-between;flex-wrap:wrap;gap:12px;color:var(--muted);font-size:.85rem;margin-top:24px}
footer a{color:var(--muted)}
.langs{display:flex;gap:8px;flex-wrap:wrap}
.langs a[aria-current]{font-weight:600;color:var(--text);text-decoration:none}
form.box{display:grid;gap:12px;padding:20px}
label{display:grid;gap:4px;font-size:.9rem}
input[type=email],input[type=url],input[type=password]{font:inherit;padding:9px 12px;border-radius:8px;border:1px solid var(--border);background:var(--bg);color:var(--text)}
button,a.button{font:inherit;font-weight:600;padding:10px 16px;border-radius:8px;border:0;background:var(--accent);color:var(--on-accent);cursor:pointer;justify-self:start}
a.button{display:inline-block;text-decoration:none}
.radios{display:flex;gap:16px;flex-wrap:wrap}.radios label{display:flex;gap:6px;align-items:center}
.msg{padding:16px 20px}.msg.err{color:var(--major-strong)}
.empty{padding:16px 20px;color:var(--muted)}
.center{max-width:420px;margin:10vh auto 0}
.skip{position:absolute;left:8px;top:-48px;z-index:10;background:var(--card);color:var(--link);padding:8px 12px;border:2px solid var(--link);border-radius:8px}.skip:focus{top:8px}
`;
