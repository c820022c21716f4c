import { Hono } from 'hono';
import { bundledFile } from '../lib/sea.ts';

const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
};

const PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Pharos API</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="/docs/assets/swagger-ui.css"></head>
<body><div id="ui"></div>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script src="/docs/assets/init.js"></script>
</body></html>`;

const INIT = `window.ui = SwaggerUIBundle({ url: '/openapi.json', dom_id: '#ui', deepLinking: true });`;

/**
 * The API reference page at /docs. Its assets come from the `swagger-ui-dist` package (SEA assets in
 * the binary) and are served by Pharos itself (installs are air-gapped: no CDN). The init script is a file of its own so
 * the page works under a strict Content-Security-Policy (`script-src 'self'`).
 */
export function docsRouter() {
  const app = new Hono();
  const cache = new Map<string, Buffer>();
  app.get('/', (c) => c.html(PAGE));
  app.get('/assets/init.js', (c) => c.body(INIT, 200, { 'Content-Type': 'text/javascript; charset=utf-8' }));
  app.get('/assets/:file', (c) => {
    const file = c.req.param('file');
    const type = ASSETS[file];
    if (!type) return c.notFound();
    let body = cache.get(file);
    if (!body) cache.set(file, (body = bundledFile(file, `swagger-ui-dist/${file}`)));
    return c.body(new Uint8Array(body), 200, { 'Content-Type': type, 'Cache-Control': 'public, max-age=86400' });
  });
  return app;
}
