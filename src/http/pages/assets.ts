import { Hono } from 'hono';
import { STATUS_CSS } from '../../../views/style.ts';
import { fontFile } from './fonts.ts';

/** The default favicon of pages that set none: a beacon in a ring. */
const FAVICON = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><circle cx="16" cy="16" r="14" fill="none" stroke="#36b27e" stroke-width="4"/><circle cx="16" cy="16" r="6" fill="#36b27e"/></svg>';

/**
 * Static files of public status pages at `/_pharos/…`: the stylesheet and the font files shipped
 * in the binary (air-gapped installs: no CDN). Not page data, so outside every password wall.
 */
export function pageAssetsRouter() {
  const app = new Hono();
  app.get('/status.css', (c) => c.body(STATUS_CSS, 200, { 'Content-Type': 'text/css; charset=utf-8', 'Cache-Control': 'public, max-age=3600' }));
  app.get('/favicon.svg', (c) => c.body(FAVICON, 200, { 'Content-Type': 'image/svg+xml', 'Cache-Control': 'public, max-age=86400' }));
  app.get('/fonts/:file', (c) => {
    const bytes = fontFile(c.req.param('file'));
    if (!bytes) return c.text('no such font file', 404);
    return c.body(new Uint8Array(bytes), 200, { 'Content-Type': 'font/woff2', 'Cache-Control': 'public, max-age=31536000, immutable' });
  });
  return app;
}
