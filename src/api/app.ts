import { hash } from 'node:crypto';
import express, { type NextFunction, type Request, type Response } from 'express';
import { SidecarError } from '../errors/base';
import { LedgerReadOnlyError } from '../errors/ledger-read-only';
import { LedgerUnavailableError } from '../errors/ledger-unavailable';
import {
  InternalError,
  InvalidJsonError,
  JsonTooDeepError,
  MalformedRequestError,
  NotFoundError,
  PayloadTooLargeError,
  UnauthorizedError,
  UnsupportedMediaTypeError,
} from '../errors/api-errors';
import { ValidationError } from '../errors/validation';
import { mayHoldSecret, redactDeep, redactText, type Logger } from '../log';
import { TokenAuthenticator, type NamedToken } from './auth';
import type { SidecarMetrics } from '../metrics';
import { httpMetrics } from './http-metrics';
import { openApiDocument } from './openapi';
import { JOB_STATES, type JobQuery } from '../store/types';
import { DOCS_CSP, renderOpenApiPage } from './openapi-page';
import { PAGE_CSP, renderJobsPage } from './page';
import type { JobView } from '../model/job-views';
import { parseSubmission } from '../model/deadline-submission';
import { parseClientReport } from '../model/client-report';
import { replayRoutes, type Replays } from './replays';
import type { SidecarService } from '../model/sidecar-service';

/**
 * Which instance leads, with HA (src/ha): a follower answers every write, and every read of the
 * loop's live state, 503 NOT_LEADER naming the leader.
 */
export interface Leadership {
  isLeader(): boolean;
  /** The leader's advertised URL, as known now (null: none known). */
  leaderUrl(): string | null;
  /** GET /api/v1/leader: this instance's role and the leader. */
  view(): {
    role: 'leader' | 'follower';
    id: string;
    leader: { id: string; url: string; epoch: number } | null;
  };
}

/** Seconds a client waits before retrying a write refused by a follower. */
export const NOT_LEADER_RETRY_AFTER_SECONDS = 1;

/** The refusal of a follower: where the leader is, when one is known. */
export function notLeaderError(leaderUrl: string | null): LedgerReadOnlyError {
  return new LedgerReadOnlyError(
    leaderUrl === null
      ? 'not leader, and no leader is known now: try again shortly'
      : `not leader, try ${leaderUrl}`,
    { context: { leader: leaderUrl } },
  );
}

export interface ApiOptions {
  service: SidecarService;
  /** With HA: who leads (without it, this instance does everything). */
  leadership?: Leadership;
  metrics: SidecarMetrics;
  logger: Logger;
  tokens: readonly NamedToken[];
  protectReads: boolean;
  maxBodyBytes: number;
  /** Deepest nesting of arrays and objects a JSON body may have (default MAX_JSON_DEPTH). */
  maxJsonDepth?: number;
  now: () => number;
  /** Replays of the cluster's history (POST /api/v1/replays); none: those routes answer 404. */
  replays?: Replays;
  /** Extra routes (the dashboard's assets) mounted before the 404 handler. */
  extraRoutes?: (app: express.Express) => void;
}

type RawRequest = Request & { rawBody?: Buffer; submitter?: string };

/**
 * The deepest JSON body the API reads. A submission's deepest field
 * (yarnSubmission.am-container-spec.local-resources.entry[i].value.resource) is 7 levels down.
 */
export const MAX_JSON_DEPTH = 32;

/**
 * Headers on every answer. The content security policy lets a page load only its own scripts
 * and styles and talk only to its own origin (the dashboard sets the same), and no other site
 * may frame it; nosniff keeps a browser from reading a JSON answer as script.
 */
export const API_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy': API_CSP,
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
  'Cross-Origin-Resource-Policy': 'same-origin',
};

type Middleware = (req: RawRequest, res: Response, next: NextFunction) => void;

/** Writes, and reads of the loop's live state, on the leader only. */
function leaderGuard(leadership: Leadership | undefined): Middleware {
  return (_req, _res, next) =>
    leadership === undefined || leadership.isLeader() ? next() : next(notLeaderError(leadership.leaderUrl()));
}

/** The bearer-token checks: `requireToken` for writes, `readGuard` for reads (open unless protected). */
function tokenGuards(
  auth: TokenAuthenticator,
  protectReads: boolean,
): { requireToken: Middleware; readGuard: Middleware } {
  const requireToken: Middleware = (req, _res, next) => {
    if (!auth.enabled) {
      next(
        new UnauthorizedError(
          'no API tokens are configured (auth.tokens or YSS_TOKENS): the write API is closed',
        ),
      );
      return;
    }
    const name = auth.authenticate(req.get('authorization'));
    if (name === undefined) {
      next(new UnauthorizedError('a valid bearer token is required: Authorization: Bearer <token>'));
      return;
    }
    req.submitter = name;
    next();
  };
  const readGuard: Middleware = (req, res, next) => (protectReads ? requireToken(req, res, next) : next());
  return { requireToken, readGuard };
}

/** Health, readiness, metrics and the API's own description: what probes and tools read. */
function probeRoutes(app: express.Express, options: ApiOptions, auth: TokenAuthenticator): void {
  const { service, metrics } = options;
  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });

  // Probes read the status without a token. With reads protected, the details (the RM's
  // error, which names its addresses) go only to a caller with a valid token.
  app.get('/readyz', (req, res) => {
    const r = service.readiness();
    const detailed = !options.protectReads || auth.authenticate(req.get('authorization')) !== undefined;
    const body = detailed
      ? r
      : {
          ready: r.ready,
          ...(r.reason === undefined ? {} : { reason: summaryOf(r.reason) }),
          details: 'send a bearer token for the details',
        };
    res.status(r.ready ? 200 : 503).json(body);
  });

  app.get('/metrics', async (_req, res, next) => {
    try {
      res.type(metrics.registry.contentType).send(redactText(await metrics.registry.metrics()));
    } catch (err) {
      next(err);
    }
  });

  app.get('/api/v1/openapi.json', (_req, res) => {
    res.json(openApiDocument);
  });

  // The same document as an HTML reference, rendered once on the server (no script, no CDN).
  app.get('/api/v1/docs', (_req, res) => {
    res.set('Content-Security-Policy', DOCS_CSP).type('html').send(openApiPage());
  });
}

/**
 * POST /api/v1/jobs: a token, a JSON body within the limits, an idempotency key if any. The
 * checks run one after the other inside one route handler, in this order: the token, the
 * content type, the body read within its limit (no Content-Encoding), its charset and depth,
 * JSON.parse; the first that fails hands its error to the error renderer and ends the request.
 * (As separate handlers, each cost a pass through the router on every submission.)
 */
function submitRoute(app: express.Express, options: ApiOptions, requireToken: Middleware): void {
  const [readBody, parseBody] = jsonBodyParser(options.maxBodyBytes, options.maxJsonDepth ?? MAX_JSON_DEPTH);
  const submit = submitHandler(options);
  const leader = options.leadership;
  app.post('/api/v1/jobs', (req: RawRequest, res: Response, next: NextFunction) => {
    if (leader !== undefined && !leader.isLeader()) {
      next(notLeaderError(leader.leaderUrl()));
      return;
    }
    requireToken(req, res, (err?: unknown) => {
      if (err !== undefined) return next(err);
      if (!req.is('application/json')) {
        next(new UnsupportedMediaTypeError('send the job as Content-Type: application/json'));
        return;
      }
      readBody(req, res, (err?: unknown) => {
        if (err !== undefined) return next(err);
        parseBody(req, res, (err?: unknown) => {
          if (err !== undefined) return next(err);
          void submit(req, res, next);
        });
      });
    });
  });
}

/** The submission itself, once its body is read and parsed: checked, decided, answered. */
function submitHandler(options: ApiOptions) {
  return async (req: RawRequest, res: Response, next: NextFunction): Promise<void> => {
    try {
      const submission = parseSubmission(req.body, options.now());
      const idempotencyKey = req.get('idempotency-key');
      if (idempotencyKey !== undefined && !/^[\x21-\x7e]{1,200}$/.test(idempotencyKey)) {
        throw new ValidationError([
          { path: 'Idempotency-Key', message: 'must be 1 to 200 visible ASCII characters' },
        ]);
      }
      const requestHash = hash('sha256', req.rawBody ?? Buffer.alloc(0), 'hex');
      const answer = await options.service.submit(submission, {
        submitter: req.submitter!,
        idempotencyKey,
        requestHash,
      });
      sendJson(res, answer.status, answer.body, answer.json);
    } catch (err) {
      next(err);
    }
  };
}

/** The jobs, the cluster, the estimates and the stats: reads behind readGuard, writes behind a token. */
function sidecarRoutes(
  app: express.Express,
  service: SidecarService,
  guards: ReturnType<typeof tokenGuards>,
  leadership: Leadership | undefined,
): void {
  const leaderOnly = leaderGuard(leadership);
  app.get('/api/v1/leader', guards.readGuard, (_req, res) => {
    res.json(leadership?.view() ?? { role: 'leader', id: null, leader: null });
  });

  jobRoutes(app, service, leaderOnly, guards);
  clusterRoutes(app, service, leaderOnly, guards);
}

type Guards = Pick<ReturnType<typeof tokenGuards>, 'requireToken' | 'readGuard'>;

/** The jobs: listed, read (live or archived), a ticket cancelled, a client's report taken. */
function jobRoutes(
  app: express.Express,
  service: SidecarService,
  leaderOnly: Middleware,
  { requireToken, readGuard }: Guards,
): void {
  app.get('/api/v1/jobs', readGuard, async (req, res, next) => {
    try {
      const { archived, ...query } = parseJobQuery(req.query);
      if (!archived) res.json(service.listJobs(query));
      else res.json((await service.listArchivedJobs?.(query)) ?? { jobs: [], total: 0 });
    } catch (err) {
      next(err);
    }
  });

  // A live job first (synchronous, from the loop's ledger), then the archive.
  app.get('/api/v1/jobs/:id', readGuard, async (req, res, next) => {
    try {
      const id = String(req.params.id);
      let job = id.length > MAX_ID_LENGTH ? undefined : service.getJob(id);
      if (job === undefined && id.length <= MAX_ID_LENGTH) job = await service.getArchivedJob?.(id);
      if (job === undefined) next(new NotFoundError(`no job ${id.slice(0, MAX_ID_LENGTH)}`));
      else res.json(job);
    } catch (err) {
      next(err);
    }
  });

  app.delete('/api/v1/jobs/:id', leaderOnly, requireToken, async (req: RawRequest, res, next) => {
    try {
      const id = String(req.params.id);
      if (!service.cancelTicket || id.length > MAX_ID_LENGTH)
        throw new NotFoundError(`no job ${id.slice(0, MAX_ID_LENGTH)}`);
      res.json(await service.cancelTicket(id, req.submitter!));
    } catch (err) {
      next(err);
    }
  });

  const [readReport, parseReport] = jsonBodyParser(1024, 4);
  app.put(
    '/api/v1/jobs/:id/client',
    leaderOnly,
    requireToken,
    (req: RawRequest, _res, next) => {
      if (!req.is('application/json')) {
        next(new UnsupportedMediaTypeError('send the report as Content-Type: application/json'));
        return;
      }
      next();
    },
    readReport,
    parseReport,
    async (req: RawRequest, res, next) => {
      try {
        const id = String(req.params.id);
        if (!service.reportClient || id.length > MAX_ID_LENGTH)
          throw new NotFoundError(`no job ${id.slice(0, MAX_ID_LENGTH)}`);
        res.json(await service.reportClient(id, parseClientReport(req.body), req.submitter!));
      } catch (err) {
        next(err);
      }
    },
  );
}

/** The cluster, the estimates (read, or a class's reset) and the stats. */
function clusterRoutes(
  app: express.Express,
  service: SidecarService,
  leaderOnly: Middleware,
  { requireToken, readGuard }: Guards,
): void {
  app.get('/api/v1/cluster', leaderOnly, readGuard, (_req, res) => {
    res.json(service.cluster() ?? null);
  });

  app.get('/api/v1/estimates', leaderOnly, readGuard, (_req, res) => {
    res.json(service.taskCosts());
  });

  app.post(
    '/api/v1/estimates/:workloadClass/reset',
    leaderOnly,
    requireToken,
    async (req: RawRequest, res, next) => {
      try {
        if (!service.resetEstimates) throw new NotFoundError('this service keeps no learned estimates');
        res.json(await service.resetEstimates(String(req.params.workloadClass), req.submitter!));
      } catch (err) {
        next(err);
      }
    },
  );

  app.get('/api/v1/stats', readGuard, (_req, res) => {
    res.json(service.stats());
  });
}

/**
 * One place renders every error: a SidecarError as {error: {code, message, ...}} with its
 * status; the HTTP layer's own client errors (body reading, path decoding) mapped onto the
 * catalog; anything else a logged, typed 500 that says nothing of its cause.
 */
function errorRenderer(logger: Logger) {
  return (err: unknown, req: Request, res: Response, _next: NextFunction): void => {
    let known = toSidecarError(err);
    if (!known) {
      known = new InternalError('internal error; see the sidecar log', { cause: err });
      logger.error('unexpected error', {
        component: 'api',
        method: req.method,
        path: req.path,
        error: err instanceof Error ? (err.stack ?? err.message) : String(err),
      });
    } else if (known.httpStatus >= 500) {
      logger.warn('request failed', {
        component: 'api',
        path: req.path,
        code: known.code,
        error: known.message,
      });
    }
    if (res.headersSent) {
      res.end();
      return;
    }
    // A retryable refusal (the shared ledger did not commit in time) says when to come back.
    if (known instanceof LedgerUnavailableError)
      res.setHeader('Retry-After', String(known.retryAfterSeconds));
    if (known instanceof LedgerReadOnlyError) {
      // A follower: come back in a moment, or go to the leader it names.
      res.setHeader('Retry-After', String(NOT_LEADER_RETRY_AFTER_SECONDS));
      const leader = known.context.leader;
      if (typeof leader === 'string') res.setHeader('Location', `${leader}${req.originalUrl}`);
    }
    res.status(known.httpStatus).json({ error: renderError(known) });
  };
}

export function createApiApp(options: ApiOptions): express.Express {
  const { service, metrics, logger, now } = options;
  const auth = new TokenAuthenticator(options.tokens);
  const guards = tokenGuards(auth, options.protectReads);
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  // Every JSON answer passes here: a credential inside any string (an RM URL with user:pw in an
  // error, a token in a message) is redacted however it got there.
  app.set('json replacer', (_key: string, value: unknown) =>
    typeof value === 'string' ? redactText(value) : value,
  );
  app.use(httpMetrics(metrics));
  app.use((_req, res, next) => {
    res.set(SECURITY_HEADERS);
    next();
  });

  probeRoutes(app, options, auth);
  submitRoute(app, options, guards.requireToken);
  sidecarRoutes(app, service, guards, options.leadership);
  replayRoutes(app, options.replays, guards, jsonBodyParser(4096, 4) as [Middleware, Middleware]);

  options.extraRoutes?.(app);

  if (!options.extraRoutes) {
    app.get('/', guards.readGuard, (_req, res) => {
      res.set('Content-Security-Policy', PAGE_CSP);
      res
        .type('html')
        .send(
          redactText(renderJobsPage(service.listJobs({ limit: 200 }).jobs as Array<Partial<JobView>>, now())),
        );
    });
  }

  app.use((req, _res, next) =>
    next(new NotFoundError(`no route ${req.method} ${req.path.slice(0, MAX_ID_LENGTH)}`)),
  );
  app.use(errorRenderer(logger));
  return app;
}

/**
 * Answers `body` as JSON, the same bytes as res.json(body): `json`, its JSON.stringify, is
 * sent as it is when it holds no credential marker (then the app's redacting replacer would
 * change none of its strings), in one write with the headers; otherwise res.json redacts.
 */
function sendJson(res: Response, status: number, body: unknown, json = JSON.stringify(body)): void {
  if (json === undefined || mayHoldSecret(json)) {
    res.status(status).json(body);
    return;
  }
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(json));
  res.end(json);
}

let docsPage: string | undefined;
const openApiPage = (): string => (docsPage ??= renderOpenApiPage(openApiDocument));

/** Longest job id or path echoed back in an answer. */
const MAX_ID_LENGTH = 200;

/** /readyz's reason without the error text after its kind (which may name the RM's addresses). */
function summaryOf(reason: string): string {
  const at = reason.indexOf(':');
  return at < 0 ? reason : reason.slice(0, at);
}

function renderError(err: SidecarError): Record<string, unknown> {
  const body: Record<string, unknown> = { code: err.code, message: err.message };
  if (err instanceof ValidationError) body.issues = redactDeep(err.issues);
  if (err instanceof LedgerReadOnlyError) body.leader = err.context.leader ?? null;
  return body;
}

/**
 * Errors of the HTTP layer (express, its router, raw-body) carry a `status` and a `type`:
 * each client error becomes the catalog's class for it. A status below 500 that is not listed
 * is still the client's fault: a MalformedRequestError with the layer's own message.
 */
function toSidecarError(err: unknown): SidecarError | undefined {
  if (err instanceof SidecarError) return err;
  const e = err as { type?: unknown; status?: unknown; statusCode?: unknown; message?: unknown } | null;
  if (e === null || typeof e !== 'object') return undefined;
  const type = typeof e.type === 'string' ? e.type : undefined;
  const status = Number(e.status ?? e.statusCode);
  const message = typeof e.message === 'string' ? e.message : '';
  if (type === 'entity.too.large' || status === 413) {
    const limit = (err as { limit?: number }).limit;
    return new PayloadTooLargeError(`request body is larger than ${limit ?? 'the limit of'} bytes`);
  }
  if (type === 'encoding.unsupported') {
    const encoding = String((err as { encoding?: unknown }).encoding ?? '').slice(0, 40);
    return new UnsupportedMediaTypeError(
      `Content-Encoding '${encoding}' is not accepted: send the body uncompressed (identity)`,
    );
  }
  if (type === 'charset.unsupported' || status === 415) {
    return new UnsupportedMediaTypeError(message || 'unsupported request encoding');
  }
  if (err instanceof URIError) {
    return new MalformedRequestError(`the path holds a malformed %-escape: ${message}`);
  }
  if (Number.isInteger(status) && status >= 400 && status < 500) {
    return new MalformedRequestError(`the request could not be read: ${message || type || status}`);
  }
  return undefined;
}

/**
 * The JSON body of a write: read whole (no Content-Encoding: a compressed body is refused,
 * so nothing is inflated), at most `limit` bytes, UTF-8 only, checked for nesting depth on the
 * raw bytes before JSON.parse runs, so no body can make anything below recurse too deep.
 */
function jsonBodyParser(
  limit: number,
  maxDepth: number,
): [read: express.RequestHandler, parse: express.RequestHandler] {
  const raw = express.raw({ type: () => true, limit, inflate: false });
  const parse: express.RequestHandler = (req: RawRequest, _res, next) => {
    const charset = /;\s*charset\s*=\s*"?([^";\s]*)"?/i.exec(req.get('content-type') ?? '')?.[1];
    if (charset !== undefined && !/^utf-?8$/i.test(charset)) {
      next(new UnsupportedMediaTypeError(`unsupported charset "${charset.slice(0, 40)}": send UTF-8`));
      return;
    }
    const buf = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    req.rawBody = buf;
    if (jsonDepthExceeds(buf, maxDepth)) {
      next(new JsonTooDeepError(`request body nests arrays and objects more than ${maxDepth} levels deep`));
      return;
    }
    try {
      req.body = JSON.parse(buf.toString('utf8')) as unknown;
    } catch (err) {
      next(
        new InvalidJsonError(
          buf.length === 0
            ? 'request body is empty: send the job as JSON'
            : `request body is not valid JSON: ${(err as Error).message.slice(0, 200)}`,
        ),
      );
      return;
    }
    next();
  };
  return [raw, parse];
}

/**
 * Whether JSON text nests `[` and `{` deeper than `max` (strings skipped): one pass over the
 * bytes, no recursion. Invalid JSON is left for JSON.parse to name.
 */
export function jsonDepthExceeds(buf: Uint8Array, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < buf.length; i++) {
    const c = buf[i]!;
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) return true;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
}

function parseJobQuery(q: Record<string, unknown>): JobQuery & { archived: boolean } {
  const issues: Array<{ path: string; message: string }> = [];
  const one = (key: string): string | undefined => {
    const v = q[key];
    if (v === undefined) return undefined;
    if (typeof v !== 'string') {
      issues.push({ path: key, message: 'must be given once' });
      return undefined;
    }
    return v;
  };
  const int = (key: string, min: number, max: number): number | undefined => {
    const v = one(key);
    if (v === undefined) return undefined;
    const n = Number(v);
    if (!/^\d+$/.test(v) || n < min || n > max) {
      issues.push({ path: key, message: `must be a whole number from ${min} to ${max}` });
      return undefined;
    }
    return n;
  };
  const decision = one('decision');
  if (decision !== undefined && decision !== 'admitted' && decision !== 'rejected') {
    issues.push({ path: 'decision', message: "must be 'admitted' or 'rejected'" });
  }
  const state = one('state');
  if (state !== undefined && !(JOB_STATES as readonly string[]).includes(state)) {
    issues.push({ path: 'state', message: `must be one of ${JOB_STATES.join(', ')}` });
  }
  const archived = one('archived');
  if (archived !== undefined && archived !== 'true' && archived !== 'false') {
    issues.push({ path: 'archived', message: "must be 'true' or 'false'" });
  }
  const query = {
    decision: decision as JobQuery['decision'],
    state: state as JobQuery['state'],
    queue: one('queue'),
    user: one('user'),
    limit: int('limit', 1, 1000) ?? 100,
    offset: int('offset', 0, 10_000_000) ?? 0,
    archived: archived === 'true',
  };
  if (issues.length) throw new ValidationError(issues);
  return query;
}
