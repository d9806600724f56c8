import type { NextFunction, Request, Response } from 'express';
import { EmulatedRmRejection, remoteRejection } from '../errors/emulated-rm-rejection';
import { RmMalformedResponseError } from '../errors/rm-malformed';
import type { Logger } from '../log';
import { Node } from '../yarn/coerce';
import { parseJson, parseXml } from '../yarn/format';
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

/** The format to answer in; an Accept the RM cannot serve is answered 500 (INDEX.md section 6). */
export function formatOf(req: Request): Format {
  const f = formatFromAccept(req.get('accept'));
  if (f === undefined) {
    throw new EmulatedRmRejection({
      status: 500,
      exception: 'WebApplicationException',
      javaClassName: 'javax.ws.rs.WebApplicationException',
      message: `javax.ws.rs.WebApplicationException: no representation for Accept: ${req.get('accept') ?? ''}`,
    });
  }
  return f;
}

export function answer(
  req: Request,
  res: Response,
  root: string,
  content: Content,
  options: RenderOptions & { status?: number } = {},
): void {
  const format = formatOf(req);
  res
    .status(options.status ?? 200)
    .type(CONTENT_TYPE[format])
    .send(renderBody(format, root, content, options));
}

/** Render a refusal as the RM would: a RemoteException in the asked format, or plain text. */
export function sendRejection(req: Request, res: Response, err: EmulatedRmRejection): void {
  if (err.plainText) {
    res.status(err.httpStatus).type('text/plain').send(err.message);
    return;
  }
  const format = formatFromAccept(req.get('accept')) ?? 'json';
  res
    .status(err.httpStatus)
    .type(CONTENT_TYPE[format])
    .send(renderRemoteException(format, err.exception!, err.message, err.javaClassName!));
}

/** Wrap a handler: refusals become the RM's answers, anything else a logged 500. */
export function handle(log: Logger, fn: (req: Request, res: Response) => void) {
  return (req: Request, res: Response, next: NextFunction): void => {
    try {
      fn(req, res);
    } catch (err) {
      if (err instanceof EmulatedRmRejection) return sendRejection(req, res, err);
      if (err instanceof RmMalformedResponseError) {
        // A body member of the wrong kind: Jersey cannot bind it (400).
        return sendRejection(
          req,
          res,
          remoteRejection(
            400,
            'BadRequestException',
            `java.lang.Exception: the request body could not be read: ${err.message.replace(/^RM body: /, '')}`,
          ),
        );
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
    throw new EmulatedRmRejection({ status: 415, message: 'Unsupported Media Type' });
  }
  let tree;
  try {
    tree = isXml ? parseXml(text) : parseJson(text);
  } catch (err) {
    throw remoteRejection(
      400,
      'BadRequestException',
      `java.lang.Exception: The request sent by the client was syntactically incorrect (${(err as Error).message})`,
    );
  }
  const top = Node.root(tree);
  if (isXml || options.wrappedJson) return top.get(root);
  return top.unwrap(root);
}

export function userOf(req: Request): string | undefined {
  return query(req, 'user.name');
}
