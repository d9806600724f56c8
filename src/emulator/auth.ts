import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { acceptedTypes } from './render';

/**
 * Hadoop's HTTP authentication in front of the emulated RM, its AM proxy and the JobHistory
 * server (AuthenticationFilter with the pseudo handler), as measured on a real RM 3.4.3:
 *
 * - `none` (a stock cluster): every call is accepted. A call without `user.name` is the static
 *   web user (`dr.who`); with `?user.name=alice` it runs as alice, and the RM sets a signed
 *   `hadoop.auth` cookie of type `simple-dt` (the RM's own delegation-token filter).
 * - `simple` (`hadoop.http.authentication.type=simple`,
 *   `hadoop.http.authentication.simple.anonymous.allowed=false`): every call, reads included,
 *   needs a user: a valid `hadoop.auth` cookie this server signed, or `user.name`. The first
 *   answer to a `user.name` call sets the cookie (`u=alice&p=alice&t=simple&e=EXPIRY&s=SIG`,
 *   valid 10 hours). Anything else is 401 `Authentication required` with
 *   `WWW-Authenticate: PseudoAuth`, the cookie cleared, and Jetty's error page as the body.
 *
 * In both modes an empty `user.name` (or one holding `&`) is Jetty's 500 error page: the user
 * name check throws before the request is served.
 *
 * Jetty's error page depends on the method and on Accept: GET, POST and HEAD get JSON for
 * `application/json` or `text/json`, text for `text/plain`, HTML for `text/html`, `text/*`,
 * `*` + `/*` or no Accept (the first acceptable in quality order), and nothing for any other type
 * (XML included); PUT and DELETE get no body at all.
 */

export type AuthMode = 'none' | 'simple';

export const AUTH_MODES: readonly AuthMode[] = ['none', 'simple'];

/** Where the request landed, as the servlet Jetty names in its error pages. */
export type Servlet = 'rest' | 'proxy' | 'isActive';

export interface AuthOptions {
  mode: AuthMode;
  /** The server's clock (epoch ms): cookie expiry. */
  nowMs: () => number;
  /** `org.apache.hadoop.http.WebServlet-xxxxxxxx`: the RM and the JobHistory server each have theirs. */
  restServletName: string;
  /** The RM's own `simple-dt` cookie in `none` mode (the JobHistory server has no such filter). */
  cookieWithoutAuth: boolean;
  /** Signs the cookie (`hadoop.http.authentication.signature.secret`); random per server. */
  secret?: Buffer;
}

/** `hadoop.http.authentication.token.validity`, seconds. */
export const TOKEN_VALIDITY_SECONDS = 36_000;

export const AUTH_COOKIE = 'hadoop.auth';

const users = new WeakMap<Request, string>();

/** The user the filter authenticated the request as, if any. */
export function remoteUser(req: Request): string | undefined {
  return users.get(req);
}

/** A name Jetty prints for a servlet instance, `WebServlet-` and 8 hex digits. */
export function webServletName(): string {
  return `org.apache.hadoop.http.WebServlet-${randomBytes(4).toString('hex')}`;
}

/** The servlet name Jetty would print for this request (the filter notes the server's own). */
export function servletNameOf(req: Request, res: Response): string {
  const s = servletOf(req.path);
  if (s !== 'rest') return s;
  return (res.locals.restServletName as string | undefined) ?? 'org.apache.hadoop.http.WebServlet';
}

function servletOf(path: string): Servlet {
  if (path.startsWith('/proxy/')) return 'proxy';
  if (path === '/isActive') return 'isActive';
  return 'rest';
}

const escapeHtml = (s: string) =>
  s
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/'/g, '&apos;')
    .replace(/"/g, '&quot;');

export interface JettyError {
  status: number;
  /** The page's message, and the reason phrase unless `reason` is given. */
  message: string;
  /** The status line's reason phrase when it is not the message (`Server Error`). */
  reason?: string;
  /** `CAUSED BY` of a 500 (the exception's text). */
  cause?: string;
}

/**
 * Jetty's error page for a request, as the ErrorHandler of Hadoop 3.4.3's Jetty writes it:
 * the Content-Type and body, or neither (a PUT or DELETE, or an Accept it cannot serve).
 */
export function jettyErrorPage(
  method: string,
  accept: string | undefined,
  uri: string,
  servlet: string,
  err: JettyError,
): { contentType: string; body: string } | undefined {
  if (!['GET', 'POST', 'HEAD'].includes(method.toUpperCase())) return undefined;
  for (const type of acceptedTypes(accept)) {
    if (type === 'application/json' || type === 'text/json') {
      const fields: Array<[string, string]> = [['servlet', servlet]];
      if (err.cause !== undefined) fields.push(['cause0', escapeHtml(err.cause)]);
      fields.push(['message', escapeHtml(err.message)], ['url', uri], ['status', String(err.status)]);
      return {
        contentType: type,
        body: `{\n${fields.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`).join(',\n')}\n}`,
      };
    }
    if (type === 'text/plain') {
      const lines = [
        `HTTP ERROR ${err.status} ${escapeHtml(err.message)}`,
        `URI: ${uri}`,
        `STATUS: ${err.status}`,
        `MESSAGE: ${err.message}`,
        `SERVLET: ${servlet}`,
        ...(err.cause !== undefined ? [`CAUSED BY ${err.cause}`] : []),
      ];
      return { contentType: 'text/plain;charset=iso-8859-1', body: `${lines.join('\n')}\n` };
    }
    if (type === 'text/html' || type === 'text/*' || type === '*/*') {
      const m = escapeHtml(err.message);
      const rows = [
        ['URI:', escapeHtml(uri)],
        ['STATUS:', String(err.status)],
        ['MESSAGE:', m],
        ['SERVLET:', escapeHtml(servlet)],
        ...(err.cause !== undefined ? [['CAUSED BY:', escapeHtml(err.cause)]] : []),
      ];
      const body =
        `<html>\n<head>\n<meta http-equiv="Content-Type" content="text/html;charset=ISO-8859-1"/>\n` +
        `<title>Error ${err.status} ${m}</title>\n</head>\n<body><h2>HTTP ERROR ${err.status} ${m}</h2>\n<table>\n` +
        rows.map(([k, v]) => `<tr><th>${k}</th><td>${v}</td></tr>\n`).join('') +
        `</table>\n\n</body>\n</html>\n`;
      return { contentType: 'text/html;charset=iso-8859-1', body };
    }
  }
  return undefined;
}

/**
 * Send Jetty's error answer: the status line with the message (or `reason`) as its reason
 * phrase, `Cache-Control` for the methods that get a page (even when the Accept leaves it
 * empty), and the page.
 */
export function sendJettyError(
  req: Request,
  res: Response,
  servlet: string,
  err: JettyError,
  headers: Record<string, string> = {},
): void {
  res.statusCode = err.status;
  // Node refuses a reason phrase with characters outside Latin-1 printable ones.
  res.statusMessage = (err.reason ?? err.message).replace(/[^\x20-\x7e]/g, '?');
  for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
  if (err.status >= 500) res.setHeader('Connection', 'close');
  if (['GET', 'POST', 'HEAD'].includes(req.method.toUpperCase()))
    res.setHeader('Cache-Control', 'must-revalidate,no-cache,no-store');
  const page = jettyErrorPage(req.method, req.get('accept'), req.path, servlet, err);
  if (page === undefined) {
    res.setHeader('Content-Length', '0');
    res.end();
    return;
  }
  res.setHeader('Content-Type', page.contentType);
  res.send(Buffer.from(page.body, 'latin1'));
}

/** The signed cookie value for a user, `u=…&p=…&t=…&e=…&s=…`. */
export function signToken(secret: Buffer, user: string, type: string, expiresMs: number): string {
  const token = `u=${user}&p=${user}&t=${type}&e=${expiresMs}`;
  const s = createHmac('sha256', secret).update(token).digest('base64');
  return `${token}&s=${s}`;
}

type CookieCheck =
  | { kind: 'none' }
  | { kind: 'valid'; user: string }
  | { kind: 'expired' }
  | { kind: 'invalid'; message: string };

function readCookie(req: Request, secret: Buffer, types: readonly string[], nowMs: number): CookieCheck {
  const header = req.get('cookie');
  if (!header) return { kind: 'none' };
  let value: string | undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === AUTH_COOKIE) value = part.slice(eq + 1).trim();
  }
  if (value === undefined) return { kind: 'none' };
  value = value.replace(/^"(.*)"$/, '$1');
  if (value === '') return { kind: 'none' };
  const at = value.lastIndexOf('&s=');
  const invalid = {
    kind: 'invalid',
    message: 'org.apache.hadoop.security.authentication.util.SignerException: Invalid signature',
  } as const;
  if (at < 0) return invalid;
  const token = value.slice(0, at);
  const given = Buffer.from(value.slice(at + 3), 'base64');
  const expected = createHmac('sha256', secret).update(token).digest();
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return invalid;
  const fields = new Map(
    token.split('&').map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]),
  );
  if (!types.includes(fields.get('t') ?? ''))
    return {
      kind: 'invalid',
      message:
        'org.apache.hadoop.security.authentication.client.AuthenticationException: Invalid AuthenticationToken type',
    };
  const e = Number(fields.get('e'));
  if (Number.isFinite(e) && e !== -1 && e <= nowMs) return { kind: 'expired' };
  return { kind: 'valid', user: fields.get('u') ?? '' };
}

/** The filter: authenticates, or answers 401 (simple) or 500 (a bad user name) itself. */
export function authFilter(o: AuthOptions): RequestHandler {
  const secret = o.secret ?? randomBytes(32);
  const type = o.mode === 'simple' ? 'simple' : 'simple-dt';
  const servletName = (path: string) => {
    const s = servletOf(path);
    return s === 'rest' ? o.restServletName : s;
  };
  const setCookie = (res: Response, user: string) =>
    res.append(
      'Set-Cookie',
      `${AUTH_COOKIE}="${signToken(secret, user, type, o.nowMs() + TOKEN_VALIDITY_SECONDS * 1000)}"; Path=/; HttpOnly`,
    );
  return (req: Request, res: Response, next: NextFunction): void => {
    res.locals.restServletName = o.restServletName;
    const raw = req.query['user.name'];
    const name = Array.isArray(raw) ? raw[0] : raw;
    if (name !== undefined && (typeof name !== 'string' || name === '' || name.includes('&'))) {
      const text = "java.lang.IllegalArgumentException: userName is NULL, empty or contains a '&'";
      sendJettyError(req, res, servletName(req.path), { status: 500, message: text, cause: text });
      return;
    }
    const cookie = readCookie(req, secret, [type], o.nowMs());
    if (cookie.kind === 'valid') {
      users.set(req, cookie.user);
      return next();
    }
    if (typeof name === 'string') {
      users.set(req, name);
      if (o.mode === 'simple' || o.cookieWithoutAuth) setCookie(res, name);
      return next();
    }
    if (o.mode === 'none') return next();
    sendJettyError(
      req,
      res,
      servletName(req.path),
      { status: 401, message: cookie.kind === 'invalid' ? cookie.message : 'Authentication required' },
      { 'WWW-Authenticate': 'PseudoAuth', 'Set-Cookie': `${AUTH_COOKIE}=; Path=/; HttpOnly` },
    );
  };
}
