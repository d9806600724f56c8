import express, { type NextFunction, type Request, type Response } from 'express';
import { z } from 'zod';
import { NotFoundError, UnsupportedMediaTypeError } from '../errors/api-errors';
import { ValidationError, zodIssues } from '../errors/validation';
import type { ReplayRequestBody, ReplayView } from '../replay/runner';

/**
 * POST /api/v1/replays, GET /api/v1/replays and GET /api/v1/replays/{id} (docs/replay.md, "Through
 * the API"): a replay of the cluster's own history, run beside the sidecar in a process of its
 * own; the POST answers 202 at once with the run, its GET says how far it is and, once done,
 * the report.
 */

/** A duration as `--since` takes it (src/replay/workload.ts, durationSeconds). */
const DURATION = /^\d{1,9}(\.\d{1,6})?[smhd]?$/;
/** A time as `--from` and `--to` take it: epoch ms, or an ISO-8601 date with an optional time. */
const TIME =
  /^(\d{1,15}|\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])(T([01]\d|2[0-3]):[0-5]\d(:[0-5]\d(\.\d{1,9})?)?(Z|[+-]([01]\d|2[0-3]):[0-5]\d)?)?)$/;

/** What a POST asks for: the window, the deadline rules, the policies. */
export const replayRequestSchema = z
  .strictObject({
    since: z
      .string()
      .max(32)
      .regex(DURATION, 'must be a duration such as 7d, 12h or 90m')
      .optional()
      .describe('jobs started in the last 7d, 12h, 90m ... (default 7d)'),
    from: z
      .string()
      .max(64)
      .regex(TIME, 'must be an ISO-8601 time or epoch ms')
      .optional()
      .describe('jobs started from this time (ISO-8601 or epoch ms)'),
    to: z
      .string()
      .max(64)
      .regex(TIME, 'must be an ISO-8601 time or epoch ms')
      .optional()
      .describe('... until this time (default now)'),
    slack: z
      .number()
      .positive()
      .max(1000)
      .optional()
      .describe(
        "deadline = slack x the job's real duration, for a job without a deadline tag or a named deadline",
      ),
    deadlines: z
      .record(z.string().min(1).max(256), z.union([z.number().positive(), z.string().max(32)]))
      .optional()
      .describe('job name (exact, or without its numbers) -> deadline: seconds, or a duration such as 15m'),
    policies: z
      .array(z.string().min(1).max(64))
      .max(32)
      .optional()
      .describe('admission policies to compare (default: every registered one)'),
    maxJobs: z.int().min(1).max(1_000_000).optional().describe('replay at most this many jobs (the oldest)'),
    taskCounters: z.boolean().optional().describe("read each task's counters too (a request per task)"),
  })
  .describe('A replay of the cluster\u2019s own history under every admission policy (docs/replay.md)');

/** A replay as the API shows it; `report` is replay.json once it is done. */
export const replayViewSchema = z
  .object({
    id: z.string(),
    state: z.enum(['running', 'done', 'failed']),
    startedAt: z.string().meta({ format: 'date-time' }),
    finishedAt: z.string().meta({ format: 'date-time' }).nullable(),
    by: z.string().describe('the token name that asked for it'),
    request: replayRequestSchema,
    progress: z
      .object({ phase: z.string(), percent: z.number() })
      .nullable()
      .describe('reading, learning, then each policy by name, with its share done'),
    report: z
      .looseObject({
        jobs: z.int(),
        fidelity: z.looseObject({ medianAbsError: z.number().nullable() }),
        policies: z.record(
          z.string(),
          z.looseObject({ admitted: z.int(), rejected: z.int(), met: z.int(), missed: z.int() }),
        ),
      })
      .nullable()
      .describe(
        'replay.json: jobs read and left out, clock skew, cluster, deadlines, fidelity, figures per policy',
      ),
    error: z.string().nullable(),
  })
  .describe('A replay and, once done, its report');

/** Where the API starts and finds replays (src/replay/runner.ts). */
export interface Replays {
  start(body: ReplayRequestBody, by: string): ReplayView;
  get(id: string): ReplayView | undefined;
  list(): ReplayView[];
}

export function parseReplayRequest(body: unknown): ReplayRequestBody {
  const parsed = replayRequestSchema.safeParse(body);
  if (!parsed.success) throw new ValidationError(zodIssues(parsed.error, { noun: 'field', whole: '(body)' }));
  return parsed.data;
}

type Middleware = (req: Request, res: Response, next: NextFunction) => void;

/** The three routes; without a runner, each answers 404 saying so. */
export function replayRoutes(
  app: express.Express,
  replays: Replays | undefined,
  guards: { requireToken: Middleware; readGuard: Middleware },
  body: [Middleware, Middleware],
): void {
  const need = (): Replays => {
    if (!replays) throw new NotFoundError('this service runs no replays');
    return replays;
  };
  const json: Middleware = (req, _res, next) =>
    next(
      req.is('application/json')
        ? undefined
        : new UnsupportedMediaTypeError('send the replay as Content-Type: application/json'),
    );
  app.post(
    '/api/v1/replays',
    guards.requireToken,
    json,
    ...body,
    (req: Request & { submitter?: string }, res, next) => {
      try {
        res.status(202).json(need().start(parseReplayRequest(req.body), req.submitter!));
      } catch (err) {
        next(err);
      }
    },
  );
  app.get('/api/v1/replays', guards.readGuard, (_req, res, next) => {
    try {
      res.json({ replays: need().list() });
    } catch (err) {
      next(err);
    }
  });
  app.get('/api/v1/replays/:id', guards.readGuard, (req, res, next) => {
    try {
      const id = String(req.params.id);
      const view = need().get(id);
      if (!view) throw new NotFoundError(`no replay ${id.slice(0, 100)}`);
      res.json(view);
    } catch (err) {
      next(err);
    }
  });
}
