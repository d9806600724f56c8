import type { NextFunction, Request, Response } from 'express';
import { EmulatedRmRejection, remoteRejection } from '../errors/emulated-rm-rejection';
import { RmMalformedResponseError } from '../errors/rm-malformed';
import type { Logger } from '../log';
import { Node } from '../yarn/coerce';
import { parseJson, parseXml } from '../yarn/format';
import { remoteUser, sendJettyError, servletNameOf } from './auth';
import {
  CONTENT_TYPE,
  formatFromAccept,
  renderBody,
  renderRemoteException,
  type Content,
  type Format,
  type RenderOptions,
} from './render';

/**
 * Request and answer plumbing shared by the emulated RM and JobHistory server: the format the
 * client asked for, the RM's error bodies, and write bodies read the way the RM reads them
 * (JSON or XML by Content-Type, the root element present or not).
 */

/** A failure Jetty answers with its own error page, not the web services' RemoteException. */
export class JettyErrorRejection extends EmulatedRmRejection {}

/**
 * The format to answer in. An Accept the RM cannot serve is Jetty's 500 `Server Error` page
 * (HTML for text/html, text for text/plain; measured on 3.4.3), not a RemoteException.
 */
export function formatOf(req: Request): Format {
  const f = formatFromAccept(req.get('accept'));
  if (f === undefined) throw new JettyErrorRejection({ status: 500, message: 'Server Error' });
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

/** A refusal whose Content-Type is not the one negotiated from Accept. */
export class TypedRejection extends EmulatedRmRejection {
  constructor(
    details: ConstructorParameters<typeof EmulatedRmRejection>[0],
    readonly contentType: (format: Format) => string,
  ) {
    super(details);
  }
}

/**
 * Render a refusal as the RM would: a RemoteException in the asked format, or a plain-text
 * entity. A resource method's text entity (`App in FINISHED state cannot be moved.`) still gets
 * the Content-Type negotiated from Accept, `application/json;charset=utf-8` or the XML one
 * (measured on 3.4.3), though its body is neither.
 */
export function sendRejection(req: Request, res: Response, err: EmulatedRmRejection): void {
  const format = formatFromAccept(req.get('accept')) ?? 'json';
  const type = err instanceof TypedRejection ? err.contentType(format) : CONTENT_TYPE[format];
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

/** Wrap a handler: refusals become the RM's answers, anything else a logged 500. */
export function handle(log: Logger, fn: (req: Request, res: Response) => void) {
  return (req: Request, res: Response, next: NextFunction): void => {
    try {
      fn(req, res);
    } catch (err) {
      if (err instanceof JettyErrorRejection)
        return sendJettyError(req, res, servletNameOf(req, res), {
          status: err.httpStatus,
          message: err.message,
        });
      if (err instanceof EmulatedRmRejection) return sendRejection(req, res, err);
      if (err instanceof RmMalformedResponseError) {
        // A body member of the wrong kind: Jersey cannot bind it (400).
        return sendRejection(req, res, unmarshalRejection(err.message.replace(/^RM body: /, '')));
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
  return all
    .flatMap((s) => s.split(','))
    .map((s) => s.trim())
    .filter((s) => s !== '');
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
  const isXml = type === 'application/xml' || type === 'text/xml';
  if (!isXml && type !== 'application/json') {
    // No reader for the type: Jersey's WebApplicationException through the exception mapper,
    // with a Content-Type whose charset is `null` (measured on 3.4.3 with text/plain).
    throw new TypedRejection(
      {
        status: 503,
        exception: 'WebApplicationException',
        javaClassName: 'javax.ws.rs.WebApplicationException',
        message: '',
      },
      (format) => (format === 'json' ? 'application/json;charset=null' : 'application/xml;charset=null'),
    );
  }
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
