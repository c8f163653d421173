/**
 * Serves the dashboard's static build (web/dist) at /app/, with index.html as the fallback for client
 * routes; `/` redirects there (a JSON client gets the links to the dashboard and the API docs). Hashed assets are cached for a year, index.html is always revalidated.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};

/**
 * The dashboard's Content-Security-Policy: scripts, styles, fonts and API calls from this origin only
 * (the Vite build has no inline script or style; React sets styles through the CSSOM, which CSP allows),
 * images and media also from data:/blob: (the QR preview, local previews), no plugins, no <base>, forms
 * post only here, and no page may frame it (clickjacking).
 */
const DASHBOARD_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "media-src 'self' blob:",
  "font-src 'self'",
  "connect-src 'self'",
  "manifest-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** Headers of every answer under /app/ (the shell, assets, 404s): see docs/hardening.md, "Trust boundaries". */
function dashboardSecurityHeaders(reply: FastifyReply, https: boolean): FastifyReply {
  reply.headers({
    'content-security-policy': DASHBOARD_CSP,
    'x-frame-options': 'DENY',
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'cross-origin-opener-policy': 'same-origin',
    'cross-origin-resource-policy': 'same-origin',
    'permissions-policy': 'camera=(), microphone=(), geolocation=(), payment=(), usb=()',
  });
  // only over https: a browser ignores it on http, and a local http install must not be pinned to https
  if (https) reply.header('strict-transport-security', 'max-age=31536000');
  return reply;
}

/** web/dist from the source tree (src/modules/dashboard) or from the bundle (dist/main). */
function dashboardRoot(): string {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const candidates = [path.resolve(here, '../../../web/dist'), path.resolve(here, '../../web/dist'), path.resolve('web/dist')];
  return candidates.find((c) => fs.existsSync(path.join(c, 'index.html'))) ?? candidates[0]!;
}

export function registerDashboardRoutes(app: FastifyInstance, root = dashboardRoot()): void {
  const sendFile = async (reply: FastifyReply, file: string, immutable: boolean) => {
    const body = await fs.promises.readFile(file);
    return reply
      .header('content-type', TYPES[path.extname(file)] ?? 'application/octet-stream')
      .header('cache-control', immutable ? 'public, max-age=31536000, immutable' : 'no-cache')
      .send(body);
  };

  const serve = async (rel: string, request: FastifyRequest, reply: FastifyReply) => {
    dashboardSecurityHeaders(reply, request.protocol === 'https');
    const index = path.join(root, 'index.html');
    if (!fs.existsSync(index)) {
      return reply
        .code(503)
        .header('content-type', 'text/plain; charset=utf-8')
        .send('The dashboard is not built: run `npm run build:web`.');
    }
    let decoded: string;
    try {
      decoded = decodeURIComponent(rel);
    } catch {
      decoded = '';
    }
    const file = path.resolve(root, `.${path.posix.normalize(`/${decoded}`)}`);
    const inside = file.startsWith(root + path.sep) && !decoded.includes('\0');
    if (inside) {
      const stat = await fs.promises.stat(file).catch(() => null);
      if (stat?.isFile()) return sendFile(reply, file, rel.startsWith('assets/'));
    }
    // a missing asset is a 404, any other path under /app/ is a client route
    if (rel.startsWith('assets/') || path.extname(decoded) !== '') {
      return reply.code(404).header('content-type', 'text/plain; charset=utf-8').send('Not found');
    }
    return sendFile(reply, index, false);
  };

  app.get('/', { schema: { hide: true } }, (request, reply) => {
    // RFC 8631 links to the API's documentation, for a browser and a script alike
    reply.header('link', '</v1/docs>; rel="service-doc", </v1/openapi.json>; rel="service-desc"');
    const accept = String(request.headers.accept ?? '');
    if (accept.includes('application/json') && !accept.includes('text/html'))
      return reply.send({ dashboard: '/app/', docs: '/v1/docs', openapi: '/v1/openapi.json', health: '/v1/health/ready' });
    return reply.redirect('/app/', 302);
  });
  app.get('/app', { schema: { hide: true } }, (request, reply) =>
    dashboardSecurityHeaders(reply, request.protocol === 'https').redirect('/app/', 302),
  );
  app.get('/app/', { schema: { hide: true } }, (request, reply) => serve('index.html', request, reply));
  app.get<{ Params: { '*': string } }>('/app/*', { schema: { hide: true } }, (request, reply) =>
    serve(request.params['*'], request, reply),
  );
}
