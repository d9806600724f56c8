import { createHash } from 'node:crypto';
import express, { type NextFunction, type Request, type Response } from 'express';
import { SidecarError } from '../errors/base';
import {
  InvalidJsonError,
  NotFoundError,
  PayloadTooLargeError,
  UnauthorizedError,
  UnsupportedMediaTypeError,
} from '../errors/api-errors';
import { ValidationError } from '../errors/validation';
import type { Logger } from '../log';
import type { JobQuery } from '../store/ledger';
import { TokenAuthenticator, type NamedToken } from './auth';
import type { SidecarMetrics } from './metrics';
import { openApiDocument } from './openapi';
import { renderJobsPage } from './page';
import { parseSubmission, type Submission } from './submission';

/** What the HTTP layer needs from the running sidecar. */
export interface SidecarService {
  submit(
    submission: Submission,
    context: { submitter: string; idempotencyKey?: string; requestHash: string },
  ): Promise<{ status: number; body: unknown }>;
  listJobs(query: JobQuery): { jobs: unknown[]; total: number };
  getJob(id: string): unknown | undefined;
  cluster(): unknown;
  /** The learned worst-case task costs beside the observed distribution (EstimatesView). */
  taskCosts(): unknown;
  /** Samples over time for the dashboard's charts (see StatsSample in views.ts). */
  stats(): { samples: unknown[] };
  readiness(): { ready: boolean; reason?: string; [key: string]: unknown };
}

export interface ApiOptions {
  service: SidecarService;
  metrics: SidecarMetrics;
  logger: Logger;
  tokens: readonly NamedToken[];
  protectReads: boolean;
  maxBodyBytes: number;
  now: () => number;
  /** Extra routes (the dashboard's assets) mounted before the 404 handler. */
  extraRoutes?: (app: express.Express) => void;
}

type RawRequest = Request & { rawBody?: Buffer; submitter?: string };

const JOB_STATES = [
  'rejected',
  'accepted',
  'submitted',
  'running',
  'finished',
  'failed',
  'killed',
  'lost',
] as const;

export function createApiApp(options: ApiOptions): express.Express {
  const { service, metrics, logger, now } = options;
  const auth = new TokenAuthenticator(options.tokens);
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);

  const requireToken = (req: RawRequest, _res: Response, next: NextFunction): void => {
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
  const readGuard = (req: RawRequest, res: Response, next: NextFunction): void =>
    options.protectReads ? requireToken(req, res, next) : next();

  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });

  app.get('/readyz', (_req, res) => {
    const r = service.readiness();
    res.status(r.ready ? 200 : 503).json(r);
  });

  app.get('/metrics', async (_req, res, next) => {
    try {
      res.type(metrics.registry.contentType).send(await metrics.registry.metrics());
    } catch (err) {
      next(err);
    }
  });

  app.get('/api/v1/openapi.json', (_req, res) => {
    res.json(openApiDocument);
  });

  const jsonBody = express.json({
    limit: options.maxBodyBytes,
    strict: false,
    verify: (req, _res, buf) => {
      (req as RawRequest).rawBody = buf;
    },
  });

  app.post('/api/v1/jobs', requireToken, (req: RawRequest, _res, next) => {
    if (!req.is('application/json')) {
      next(new UnsupportedMediaTypeError('send the job as Content-Type: application/json'));
      return;
    }
    next();
  });
  app.post('/api/v1/jobs', jsonBody, async (req: RawRequest, res: Response, next: NextFunction) => {
    try {
      const submission = parseSubmission(req.body, now());
      const idempotencyKey = req.get('idempotency-key');
      if (idempotencyKey !== undefined && !/^[\x21-\x7e]{1,200}$/.test(idempotencyKey)) {
        throw new ValidationError([
          { path: 'Idempotency-Key', message: 'must be 1 to 200 visible ASCII characters' },
        ]);
      }
      const requestHash = createHash('sha256')
        .update(req.rawBody ?? Buffer.alloc(0))
        .digest('hex');
      const answer = await service.submit(submission, {
        submitter: req.submitter!,
        idempotencyKey,
        requestHash,
      });
      res.status(answer.status).json(answer.body);
    } catch (err) {
      next(err);
    }
  });

  app.get('/api/v1/jobs', readGuard, (req, res, next) => {
    try {
      res.json(service.listJobs(parseJobQuery(req.query)));
    } catch (err) {
      next(err);
    }
  });

  app.get('/api/v1/jobs/:id', readGuard, (req, res, next) => {
    const job = service.getJob(String(req.params.id));
    if (job === undefined) next(new NotFoundError(`no job ${String(req.params.id)}`));
    else res.json(job);
  });

  app.get('/api/v1/cluster', readGuard, (_req, res) => {
    res.json(service.cluster() ?? null);
  });

  app.get('/api/v1/estimates', readGuard, (_req, res) => {
    res.json(service.taskCosts());
  });

  app.get('/api/v1/stats', readGuard, (_req, res) => {
    res.json(service.stats());
  });

  options.extraRoutes?.(app);

  if (!options.extraRoutes) {
    app.get('/', readGuard, (_req, res) => {
      res.type('html').send(renderJobsPage(service.listJobs({ limit: 200 }).jobs as never[], now()));
    });
  }

  app.use((req, _res, next) => next(new NotFoundError(`no route ${req.method} ${req.path}`)));

  // One place renders every error: a SidecarError as {error: {code, message, ...}} with its
  // status; body-parser's errors mapped onto the catalog; anything else a logged 500.
  app.use((err: unknown, req: Request, res: Response, _next: NextFunction) => {
    const known = toSidecarError(err);
    if (known) {
      if (known.httpStatus >= 500)
        logger.warn('request failed', { path: req.path, code: known.code, error: known.message });
      res.status(known.httpStatus).json({ error: renderError(known) });
      return;
    }
    logger.error('unexpected error', { path: req.path, error: (err as Error)?.stack ?? String(err) });
    res.status(500).json({ error: { code: 'INTERNAL', message: 'internal error; see the sidecar log' } });
  });

  return app;
}

function renderError(err: SidecarError): Record<string, unknown> {
  const body: Record<string, unknown> = { code: err.code, message: err.message };
  if (err instanceof ValidationError) body.issues = err.issues;
  return body;
}

function toSidecarError(err: unknown): SidecarError | undefined {
  if (err instanceof SidecarError) return err;
  const type = (err as { type?: string } | undefined)?.type;
  if (type === 'entity.too.large') {
    const limit = (err as { limit?: number }).limit;
    return new PayloadTooLargeError(`request body is larger than ${limit ?? 'the limit of'} bytes`);
  }
  if (type === 'entity.parse.failed') {
    return new InvalidJsonError(`request body is not valid JSON: ${(err as Error).message}`);
  }
  if (type === 'encoding.unsupported' || type === 'charset.unsupported') {
    return new UnsupportedMediaTypeError((err as Error).message);
  }
  return undefined;
}

function parseJobQuery(q: Record<string, unknown>): JobQuery {
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
  const query: JobQuery = {
    decision: decision as JobQuery['decision'],
    state: state as JobQuery['state'],
    queue: one('queue'),
    user: one('user'),
    limit: int('limit', 1, 1000) ?? 100,
    offset: int('offset', 0, 10_000_000) ?? 0,
  };
  if (issues.length) throw new ValidationError(issues);
  return query;
}
