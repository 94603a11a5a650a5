/**
 * GET / and /assets/*: the web chat. Plain files served as they are (no bundler), from `gateway/page/`
 * beside this file in a checkout, or from the package root when this runs compiled from dist/ (tsc does
 * not copy them; package.json `files` ships `gateway/page`). The page holds no data of its own: it
 * calls the REST routes and the event stream with the token the user gives it.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Hono } from 'hono';
import type { GatewayEnv } from '../gateway-app';
import { HttpError } from '../http-errors';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
};

/**
 * What a browser may run on the page: its own scripts and styles only, and requests to this gateway.
 * Model output is put into the page as text, never as HTML; this policy is the second wall should a
 * future change forget that (an injected inline script would not run).
 */
const SECURITY_HEADERS: Record<string, string> = {
  'Content-Security-Policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
};

/** Asset names are plain file names: no folders, so no request can reach a file outside the page. */
const ASSET_NAME = /^[a-z0-9][a-z0-9-]*\.(js|css|svg)$/;

/** The page's folder: in the source tree, or (compiled) dist/gateway/routes → <package>/gateway/page. */
export function pageDir(): string {
  const candidates = [path.join(__dirname, '..', 'page'), path.join(__dirname, '..', '..', '..', 'gateway', 'page')];
  const found = candidates.find((dir) => existsSync(path.join(dir, 'index.html')));
  if (!found) throw new Error(`The web page's files are missing (looked in ${candidates.join(', ')}).`);
  return found;
}

/**
 * Libraries the page uses, served from node_modules as their packages ship them (no bundler, no copy):
 * `marked` splits an answer's markdown into tokens (assets/markdown.js builds the elements).
 */
const VENDOR: Record<string, () => string> = {
  'marked.js': () => path.join(path.dirname(require.resolve('marked/package.json')), 'lib', 'marked.esm.js'),
};

export function mountPageRoutes(app: Hono<GatewayEnv>): void {
  let dir: string | undefined;
  const serve = (file: string) => {
    dir ??= pageDir();
    const body = readFileSync(path.isAbsolute(file) ? file : path.join(dir, file));
    return new Response(body, {
      headers: { 'Content-Type': TYPES[path.extname(file)] ?? 'application/octet-stream', 'Cache-Control': 'no-cache', ...SECURITY_HEADERS },
    });
  };
  app.get('/', () => serve('index.html'));
  app.get('/index.html', () => serve('index.html'));
  app.get('/assets/vendor/:name', (c) => {
    const name = c.req.param('name');
    if (!Object.hasOwn(VENDOR, name)) throw new HttpError(404, 'NOT_FOUND', `No asset vendor/${name}.`);
    return serve(VENDOR[name]());
  });
  app.get('/assets/:name', (c) => {
    const name = c.req.param('name');
    if (!ASSET_NAME.test(name) || !existsSync(path.join((dir ??= pageDir()), 'assets', name))) {
      throw new HttpError(404, 'NOT_FOUND', `No asset ${name}.`);
    }
    return serve(path.join('assets', name));
  });
}
