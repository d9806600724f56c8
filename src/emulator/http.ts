import { createHash } from 'node:crypto';
import express, {
  type Express,
  type NextFunction,
  type Request,
  type RequestHandler,
  type Response,
  type Router,
} from 'express';
import { EmulatedRmRejection, remoteRejection } from '../errors/emulated-rm-rejection';
import { RmMalformedResponseError } from '../errors/rm-malformed';
import type { Logger } from '../log';
import { Node, splitList } from '../yarn/coerce';
import { parseJson, parseXml } from '../yarn/format';
import { jettyErrorPage, remoteUser, sendJettyError, servletNameOf, type JettyError } from './auth';
import type { Controls } from './controls';
import {
  CONTENT_TYPE,
  formatFromAccept,
  preResourceFormat,
  renderBody,
  renderRemoteException,
  type Content,
  type Format,
  type RenderOptions,
} from './render';

/**
 * What every emulated server does before its routes: any body read as text (1 MB at most), the
 * fault controls (`rm`: with a standby RM's redirects), and the simulation brought up to now.
 */
export function useEmulatedBasics(
  r: Express | Router,
  sim: { sync(): void },
  controls: Controls,
  rm: boolean,
): void {
  r.use(express.text({ type: () => true, limit: '1mb' }));
  r.use(controls.middleware(rm));
  r.use((_req, _res, next) => {
    sim.sync();
    next();
  });
}

/**
 * How many bytes of request line and headers Hadoop's web servers read (HttpServer2's
 * `hadoop.http.max.request.header.size`, 64 KB by default), as measured on the RM 3.4.3: a
 * request line of 65,550 bytes or more (its CRLF counted) is refused with 414 "URI Too Long";
 * a shorter one whose headers take the request past about 65,548 bytes with 431 "Request Header
 * Fields Too Large" (where exactly, within a few tens of bytes, depends on how Jetty's buffer
 * fills). Both with a short HTML page and `Connection: close`.
 */
export const HADOOP_LINE_BYTES = 65_550;
export const HADOOP_HEADER_BYTES = 65_548;
/** Node's own limit for the emulated servers: above Hadoop's, so that the check below answers. */
export const NODE_HEADER_BYTES = 256 * 1024;

/** Jetty's refusal of a request too large for its header buffer (see HADOOP_HEADER_BYTES). */
function headerLimit(req: Request, res: Response, next: NextFunction): void {
  const line = req.method.length + 1 + req.url.length + ` HTTP/${req.httpVersion}\r\n`.length;
  let bytes = line + 2;
  const raw = req.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) bytes += raw[i]!.length + 2 + raw[i + 1]!.length + 2;
  if (line < HADOOP_LINE_BYTES && bytes <= HADOOP_HEADER_BYTES) {
    next();
    return;
  }
  const [status, reason] =
    line >= HADOOP_LINE_BYTES ? [414, 'URI Too Long'] : [431, 'Request Header Fields Too Large'];
  res
    .status(status)
    .set({ 'Content-Type': 'text/html;charset=iso-8859-1', Connection: 'close' })
    .send(`<h1>Bad Message ${status}</h1><pre>reason: ${reason}</pre>`);
}

/** An emulated server's app: no X-Powered-By or ETag header, as Hadoop's, then the basics above. */
export function emulatedApp(sim: { sync(): void }, controls: Controls, rm: boolean): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(headerLimit);
  useEmulatedBasics(app, sim, controls, rm);
  return app;
}

/**
 * Request and answer plumbing shared by the emulated RM and JobHistory server: the format the
 * client asked for, the RM's error bodies, and write bodies read the way the RM reads them
 * (JSON or XML by Content-Type, the root element present or not).
 */

/** Which web app answers: the RM's, the JobHistory server's, or a MapReduce AM's through the RM's proxy. */
export type WebApp = 'rm' | 'jhs' | 'am';

/**
 * Jersey refused the request before any resource method ran: no reader for the body's type,
 * a method the path does not have, or an Accept no method produces. The exception mapper
 * answers 503 WebApplicationException, in the type preResourceFormat finds (measured on 3.4.3).
 */
export class PreResourceRejection extends EmulatedRmRejection {
  constructor() {
    super({
      status: 503,
      exception: 'WebApplicationException',
      javaClassName: 'javax.ws.rs.WebApplicationException',
      message: '',
    });
  }
}

/**
 * The format to answer in. An Accept no resource method produces (text/xml, text/html...) is
 * refused before the method runs: a PreResourceRejection.
 */
export function formatOf(req: Request): Format {
  const f = formatFromAccept(req.get('accept'));
  if (f === undefined) throw new PreResourceRejection();
  return f;
}

/**
 * Send a body with exactly this Content-Type: express's `send` of a string rewrites it
 * (`application/json; charset=utf-8`), the RM writes `application/json;charset=utf-8`.
 */
export function sendExact(
  res: Response,
  status: number,
  contentType: string | undefined,
  body: string,
): void {
  res.status(status);
  if (contentType !== undefined) res.setHeader('Content-Type', contentType);
  res.send(Buffer.from(body, 'utf8'));
}

export function answer(
  req: Request,
  res: Response,
  root: string,
  content: Content,
  options: RenderOptions & { status?: number } = {},
): void {
  const format = formatOf(req);
  sendExact(res, options.status ?? 200, CONTENT_TYPE[format], renderBody(format, root, content, options));
}

const STREAM = 'java.lang.IllegalStateException: STREAM';

/** The name Jetty gives an AM's web servlet in its pages: one per app, as each AM has its own. */
function amServletName(appId: string): string {
  return `org.apache.hadoop.http.WebServlet-${createHash('sha256').update(appId).digest('hex').slice(0, 8)}`;
}

/**
 * A 404 the web services answer in XML never reaches the client (measured on 3.4.3, RM,
 * JobHistory server and MapReduce AM alike, reads and writes): Jersey buffers an XML answer
 * (JSON goes out at once, chunked), and its filter, which passes a 404 on to the web UI
 * (FEATURE_FILTER_FORWARD_ON_404), hands the request to the UI's dispatcher, which fails to
 * write its page. Jetty answers 500 `Server Error` with its own error page for
 * `IllegalStateException: STREAM`: no body for an Accept of XML alone, nor for a PUT; a page
 * in JSON, HTML or text when the Accept also names one of those. Through the RM's proxy (an
 * AM's answer) the proxy relays it with a charset added, `text/plain;charset=utf-8` when empty.
 */
function sendXmlNotFound(req: Request, res: Response, app: WebApp): void {
  const err: JettyError = { status: 500, reason: 'Server Error', message: STREAM, cause: STREAM };
  if (app !== 'am') return sendJettyError(req, res, servletNameOf(req, res), err);
  const appId = String(req.params.appId);
  const amPath = req.path.slice(`/proxy/${appId}`.length);
  const page = jettyErrorPage(req.method, req.get('accept'), amPath, amServletName(appId), err);
  res.statusCode = 500;
  res.statusMessage = 'Server Error';
  res.setHeader('Cache-Control', 'must-revalidate,no-cache,no-store');
  res.setHeader('Connection', 'close');
  if (page === undefined) return sendExact(res, 500, 'text/plain;charset=utf-8', '');
  const type = page.contentType.includes('charset=') ? page.contentType : `${page.contentType};charset=utf-8`;
  res.setHeader('Content-Type', type);
  res.send(Buffer.from(page.body, 'latin1'));
}

/**
 * Render a refusal as the RM would: a RemoteException in the asked format, or a plain-text
 * entity. A resource method's text entity (`App in FINISHED state cannot be moved.`) still gets
 * the Content-Type negotiated from Accept, `application/json;charset=utf-8` or the XML one
 * (measured on 3.4.3), though its body is neither. A 404 asked for in XML is Jetty's 500
 * (sendXmlNotFound). A request Jersey refused before any method ran (or whose Accept no
 * method produces) is 503 WebApplicationException typed by preResourceFormat, with
 * `;charset=null` on the RM, or Jetty's 500 `Server Error` page when no writer suits the Accept.
 */
export function sendRejection(
  req: Request,
  res: Response,
  err: EmulatedRmRejection,
  app: WebApp = 'rm',
): void {
  const accept = req.get('accept');
  const format = formatFromAccept(accept);
  if (err instanceof PreResourceRejection || format === undefined) {
    const pre = preResourceFormat(accept);
    if (pre === undefined)
      return sendJettyError(req, res, servletNameOf(req, res), { status: 500, message: 'Server Error' });
    const e = err instanceof PreResourceRejection ? err : new PreResourceRejection();
    return sendExact(
      res,
      e.httpStatus,
      app === 'rm' ? `${pre.mediaType};charset=null` : pre.mediaType,
      renderRemoteException(pre.format, e.exception!, e.message, e.javaClassName!),
    );
  }
  if (format === 'xml' && err.httpStatus === 404) return sendXmlNotFound(req, res, app);
  const type = CONTENT_TYPE[format];
  if (err.plainText) return sendExact(res, err.httpStatus, type, err.message);
  sendExact(
    res,
    err.httpStatus,
    type,
    renderRemoteException(format, err.exception!, err.message, err.javaClassName!),
  );
}

/**
 * What the web services' exception mapper answers for an exception it does not know, as a
 * YarnException from the scheduler reaches it wrapped: 503 and the wrapper's name, no message
 * (a move to a queue that does not exist, a lifetime in the past; measured on 3.4.3).
 */
export function undeclaredThrowable(): EmulatedRmRejection {
  return new EmulatedRmRejection({
    status: 503,
    exception: 'UndeclaredThrowableException',
    javaClassName: 'java.lang.reflect.UndeclaredThrowableException',
    message: '',
  });
}

/** Jersey could not bind the body (bad JSON or XML, a member of the wrong kind): 400. */
export function unmarshalRejection(detail: string): EmulatedRmRejection {
  return new EmulatedRmRejection({
    status: 400,
    exception: 'WebApplicationException',
    javaClassName: 'javax.ws.rs.WebApplicationException',
    message: `javax.xml.bind.UnmarshalException\n - with linked exception:\n[${detail}]`,
  });
}

/**
 * Wrap a handler of `app`: refusals become its answers, anything else a logged 500.
 * `checkAccept` (default: not for an AM, whose answers pass the RM's proxy first, which answers
 * some requests itself whatever the Accept) refuses an Accept no method produces before the
 * handler runs, as Jersey picks the method by Accept before it runs it.
 */
export function handle(
  log: Logger,
  fn: (req: Request, res: Response) => void,
  app: WebApp = 'rm',
  checkAccept = app !== 'am',
) {
  return (req: Request, res: Response, next: NextFunction): void => {
    try {
      if (checkAccept && formatFromAccept(req.get('accept')) === undefined) throw new PreResourceRejection();
      fn(req, res);
    } catch (err) {
      if (err instanceof EmulatedRmRejection) return sendRejection(req, res, err, app);
      if (err instanceof RmMalformedResponseError) {
        // A body member of the wrong kind: Jersey cannot bind it (400).
        return sendRejection(req, res, unmarshalRejection(err.message.replace(/^RM body: /, '')), app);
      }
      log.error('emulator handler failed', {
        method: req.method,
        path: req.path,
        error: (err as Error).message,
      });
      next(err);
    }
  };
}

/** One string query parameter (the first when repeated). */
export function query(req: Request, name: string): string | undefined {
  const v = (req.query as Record<string, unknown>)[name];
  if (Array.isArray(v)) return typeof v[0] === 'string' ? v[0] : undefined;
  return typeof v === 'string' ? v : undefined;
}

/** Every value of a parameter, repeated or comma-separated. */
export function queryList(req: Request, name: string): string[] | undefined {
  const v = (req.query as Record<string, unknown>)[name];
  if (v === undefined) return undefined;
  const all = (Array.isArray(v) ? v : [v]).filter((x): x is string => typeof x === 'string');
  return all.flatMap(splitList);
}

/** A numeric query parameter; a non-number is the RM's 400. */
export function queryNumber(req: Request, name: string, min = Number.NEGATIVE_INFINITY): number | undefined {
  const raw = query(req, name);
  if (raw === undefined || raw === '') return undefined;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < min) {
    throw remoteRejection(
      400,
      'BadRequestException',
      `java.lang.Exception: ${name} must be a number >= ${min}, got ${raw}`,
    );
  }
  return n;
}

/**
 * A write body as a tree cursor under its root. JSON may come with or without the root
 * member (the RM unwraps most bodies, INDEX.md section 5); XML always carries it.
 */
export function readBody(req: Request, root: string, options: { wrappedJson?: boolean } = {}): Node {
  const text = typeof req.body === 'string' ? req.body : '';
  const type = (req.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  const isXml = type === 'application/xml';
  // No reader for the type (the writes consume application/json and application/xml only;
  // text/plain and text/xml measured on 3.4.3): refused before the method runs.
  if (!isXml && type !== 'application/json') throw new PreResourceRejection();
  let tree;
  try {
    tree = isXml ? parseXml(text) : parseJson(text);
  } catch (err) {
    throw unmarshalRejection((err as Error).message);
  }
  const top = Node.root(tree);
  if (!isXml && options.wrappedJson && !top.get(root).present) {
    // JAXB takes the first member for the root element and knows no element of that name.
    const first = top.keys()[0];
    if (first !== undefined)
      throw unmarshalRejection(
        `com.sun.istack.SAXParseException2; lineNumber: 1; columnNumber: ${first.length + 4}; unexpected element (uri:"", local:"${first}"). Expected elements are <{}${root}>`,
      );
  }
  if (isXml || options.wrappedJson) return top.get(root);
  return top.unwrap(root);
}

/**
 * The caller as the RM knows it: the authenticated user (auth.ts: the `hadoop.auth` cookie or
 * `user.name`), or undefined for an anonymous call (the RM's static user, `dr.who`).
 */
export function userOf(req: Request): string | undefined {
  return remoteUser(req) ?? query(req, 'user.name');
}

/**
 * The web UI's page for a path under `/ws/` that no REST resource has (Hadoop's Dispatcher
 * finds no controller for it): 404, text/html, "Sorry, got error 404" and the WebAppException
 * (measured on 3.4.3, RM and JobHistory server alike). The real page goes on with the whole
 * stack trace; this one stops after the web app's frames.
 */
export function webUiNotFoundPage(path: string): string {
  const rest = path.replace(/^\/ws(?=\/|$)/, '') || '/';
  const controller = rest.split('/')[1] ?? '';
  const css = [
    '/static/yarn.css',
    '/static/jquery/themes-1.9.1/base/jquery-ui.css',
    '/static/dt-1.11.5/css/jquery.dataTables.css',
    '/static/dt-1.11.5/css/jui-dt.css',
    '/static/dt-1.11.5/css/custom_datatable.css',
  ];
  const js = [
    '/static/jquery/jquery-3.6.0.min.js',
    '/static/jquery/jquery-ui-1.13.2.custom.min.js',
    '/static/dt-1.11.5/js/jquery.dataTables.min.js',
    '/static/yarn.dt.plugins.js',
    '/static/dt-sorting/natural.js',
  ];
  const escape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  return [
    '<!DOCTYPE html PUBLIC "-//W3C//DTD HTML 4.01//EN" "http://www.w3.org/TR/html4/strict.dtd">',
    '<html>',
    '  <meta http-equiv="X-UA-Compatible" content="IE=8">',
    '  <meta http-equiv="Content-type" content="text/html; charset=UTF-8">',
    '  <title>',
    '    Sorry, got error 404',
    '  </title>',
    ...css.map((href) => `  <link rel="stylesheet" href="${href}">`),
    ...js.flatMap((src) => [`  <script type="text/javascript" src="${src}">`, '  </script>']),
    '  <style type="text/css">',
    '    #jsnotice { padding: 0.2em; text-align: center; }',
    '    .ui-progressbar { height: 1em; min-width: 5em }',
    '  </style>',
    '  <script type="text/javascript">',
    '    $(function() {',
    "      $('#msg').accordion({autoHeight: false});",
    '    });',
    '  </script>',
    '  <style type="text/css">',
    '    #msg { margin: 1em auto; width: 88%; }',
    '    #msg h1 { padding: 0.2em 1.5em; font: bold 1.3em serif; }',
    '  </style>',
    '  <div id="msg">',
    '    <h1>',
    '      Sorry, got error 404',
    '    </h1>',
    '    <div>',
    '      Please consult',
    '      <a href="http://www.w3.org/Protocols/rfc2616/rfc2616-sec10.html">RFC 2616</a>',
    '       for meanings of the error code.',
    '    </div>',
    '    <h1>',
    '      Error Details',
    '    </h1>',
    `    <pre>org.apache.hadoop.yarn.webapp.WebAppException: ${escape(rest)}: controller for ${escape(controller)} not found`,
    '\tat org.apache.hadoop.yarn.webapp.Router.resolveDefault(Router.java:247)',
    '\tat org.apache.hadoop.yarn.webapp.Router.resolve(Router.java:155)',
    '\tat org.apache.hadoop.yarn.webapp.Dispatcher.service(Dispatcher.java:152)',
    '\tat javax.servlet.http.HttpServlet.service(HttpServlet.java:790)',
    '</pre>',
    '  </div>',
    '</html>',
    '',
  ].join('\n');
}

/**
 * What a web app (the RM's, the JobHistory server's) answers past its REST resources, as the
 * last handler of its express app: a REST path (under `/ws/`) asked with a method it does not
 * have is refused by Jersey before any method runs (PreResourceRejection: 503), a servlet's
 * (`/isActive`, `/conf`) is the servlet's 405 page; a path under `/ws/` it does not know goes
 * on to the web UI (webUiNotFoundPage); any other path is Jetty's own 404 page. Measured on
 * 3.4.3.
 */
export function unknownRoutes(app: Express, log: Logger, webApp: WebApp): RequestHandler {
  const known: Array<{ re: RegExp; rest: boolean }> = [];
  const stack = (app.router as unknown as { stack: Array<{ route?: { path: string | string[] } }> }).stack;
  for (const layer of stack) {
    const paths = layer.route === undefined ? [] : [layer.route.path].flat();
    for (const p of paths) {
      const pattern = p
        .split('/')
        .map((seg) => (seg.startsWith(':') ? '[^/]+' : seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
        .join('/');
      known.push({ re: new RegExp(`^${pattern}/?$`, 'i'), rest: p.startsWith('/ws/') });
    }
  }
  return handle(
    log,
    (req, res) => {
      const route = known.find((k) => k.re.test(req.path));
      if (route?.rest) throw new PreResourceRejection();
      if (route !== undefined)
        return sendJettyError(req, res, servletNameOf(req, res), {
          status: 405,
          reason: 'Method Not Allowed',
          message: `HTTP method ${req.method} is not supported by this URL`,
        });
      if (/^\/ws(\/|$)/.test(req.path))
        return sendExact(res, 404, 'text/html;charset=utf-8', webUiNotFoundPage(req.path));
      sendJettyError(req, res, servletNameOf(req, res), { status: 404, message: 'Not Found' });
    },
    webApp,
    false,
  );
}
