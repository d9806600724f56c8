import { z } from 'zod';
import { WORKLOAD_CLASS_PATTERN } from '../core/estimates';
import { ValidationError } from '../errors/validation';
import { MAX_TAG_LENGTH, MAX_TAGS, ownTagCount, userTagBudget } from '../loop/tags';
import { parseSubmissionRequest, type SubmissionRequest } from '../yarn/submission';

/**
 * `POST /api/v1/jobs`: a deadline-annotated MapReduce job. The deadline is an ISO-8601 time
 * or a number of seconds from now. Everything is checked here; the admission core checks
 * the job model again (its own invariants) before deciding.
 */
const isoTime = z
  .string()
  .refine((s) => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/.test(s), {
    message: 'must be an ISO-8601 time with a zone, e.g. 2026-11-22T09:00:00Z',
  })
  .refine((s) => Number.isFinite(Date.parse(s)), { message: 'is not a valid time' });

const tag = z
  .string()
  .max(MAX_TAG_LENGTH, `may be at most ${MAX_TAG_LENGTH} characters (YARN's limit)`)
  .regex(/^[^,\s][^,]*$/, 'must be non-empty with no comma')
  .regex(/^[\x20-\x7e]*$/, 'may hold printable ASCII characters only (YARN refuses others)');

export const submissionSchema = z
  .object({
    name: z.string().min(1).max(256),
    user: z
      .string()
      .min(1)
      .max(128)
      .regex(/^[A-Za-z0-9._@-]+$/, 'may hold letters, digits and . _ @ - only'),
    /** Optional only where the queue has a default (admission.queueDefaults); see resolveDeadline. */
    deadline: z
      .union([isoTime, z.number().positive('must be positive (seconds from now)').finite()])
      .optional(),
    maps: z.number().int('must be a whole number').min(1).max(1_000_000),
    // The admission model (the papers') has at least one reduce; map-only jobs are not supported yet.
    reduces: z
      .number()
      .int('must be a whole number')
      .min(1, 'must be at least 1 (map-only jobs are not supported yet)')
      .max(100_000),
    /**
     * Bytes of input. May be left out when `inputPaths` are given: the sidecar then reads the
     * files' lengths from WebHDFS (and refuses the job when it cannot).
     */
    inputBytes: z.number().finite().min(0).optional(),
    /** Per-map split sizes in bytes; when given, one per map, adding up to inputBytes. */
    splitBytes: z.array(z.number().finite().min(0)).optional(),
    jobType: z.enum(['cpu', 'gpu', 'adaptive']).default('cpu'),
    /**
     * The workload class whose worst-case estimates judge the job (default: its jobType), for
     * recurring jobs whose cost per MB differs from the rest of their type. Lower case: it
     * travels as an RM application tag, which YARN lower-cases.
     */
    workloadClass: z
      .string()
      .regex(
        WORKLOAD_CLASS_PATTERN,
        'must be 1-64 characters of a-z, 0-9, ".", "_" or "-", starting with a letter or digit',
      )
      .optional(),
    queue: z.string().min(1).max(256).optional(),
    inputPaths: z
      .array(z.string().min(1).startsWith('/', 'must be an absolute HDFS path'))
      .max(1000)
      .optional(),
    tags: z.array(tag).max(MAX_TAGS).optional(),
    /**
     * The RM's submission context, with the RM's field names (am-container-spec, resource,
     * max-app-attempts, log-aggregation-context, ...): everything but what the sidecar decides.
     * Required unless dryRun: it holds the application master's command. Read by
     * yarn/submission.ts.
     */
    yarnSubmission: z.record(z.string(), z.unknown()).optional(),
    /**
     * When the RM loses the app (an RM restarted without recovery forgets its apps): decide the
     * job again for the time left and, if admitted, submit it again. Off: the job is marked lost.
     */
    resubmitIfLost: z.boolean().default(false),
    /** Decide and answer, but record nothing and submit nothing (a feasibility check). */
    dryRun: z.boolean().default(false),
  })
  .strict()
  .superRefine((job, ctx) => {
    const budget = userTagBudget(job.workloadClass !== undefined);
    const userTags = new Set((job.tags ?? []).map((t) => t.toLowerCase()));
    if (userTags.size > budget) {
      ctx.addIssue({
        code: 'custom',
        path: ['tags'],
        message: `has ${userTags.size} tags; YARN allows ${MAX_TAGS} per app and the sidecar writes ${ownTagCount(job.workloadClass !== undefined)} of its own${job.workloadClass !== undefined ? ' (with workloadClass)' : ''}, so at most ${budget} may be given`,
      });
    }
    if (job.inputBytes === undefined && !(job.inputPaths && job.inputPaths.length > 0)) {
      ctx.addIssue({
        code: 'custom',
        path: ['inputBytes'],
        message: 'is required unless inputPaths are given (their lengths are then read from WebHDFS)',
      });
    }
    if (job.splitBytes && job.inputBytes === undefined) {
      ctx.addIssue({ code: 'custom', path: ['splitBytes'], message: 'needs inputBytes beside it' });
    } else if (job.splitBytes && job.inputBytes !== undefined) {
      if (job.splitBytes.length !== job.maps) {
        ctx.addIssue({
          code: 'custom',
          path: ['splitBytes'],
          message: `has ${job.splitBytes.length} entries, expected one per map (${job.maps})`,
        });
      } else {
        const total = job.splitBytes.reduce((a, b) => a + b, 0);
        if (Math.abs(total - job.inputBytes) > Math.max(1, job.inputBytes * 1e-9)) {
          ctx.addIssue({
            code: 'custom',
            path: ['splitBytes'],
            message: `adds up to ${total} bytes, but inputBytes is ${job.inputBytes}`,
          });
        }
      }
    }
    if (job.yarnSubmission === undefined && !job.dryRun) {
      ctx.addIssue({
        code: 'custom',
        path: ['yarnSubmission'],
        message:
          "is required to submit the job: it carries the application master's launch context (am-container-spec.commands.command at least; an app without an AM command fails at once on YARN). Give dryRun: true to only ask whether the deadline would be admitted",
      });
    }
  });

export type SubmissionInput = z.input<typeof submissionSchema>;
/** A checked request; `deadlineMs` is null when it gave no deadline (a queue default may apply). */
export type Submission = Omit<z.output<typeof submissionSchema>, 'yarnSubmission'> & {
  deadlineMs: number | null;
  /** The `yarnSubmission` read and checked; absent only for a dry run without one. */
  request?: SubmissionRequest;
};

/** Where a decided submission's deadline came from. */
export type DeadlineSource = 'request' | 'queue-default';

export type SubmissionWithDeadline = Submission & {
  deadlineMs: number;
  deadlineSource: DeadlineSource;
  /** The queue default applied, in seconds from arrival (only for `queue-default`). */
  defaultDeadlineSeconds?: number;
};

/**
 * The submission with its deadline settled: its own, or else the queue's default from its
 * arrival. `queueDefault` is what admission.queueDefaults holds for the queue (by name, path
 * or `*`); without one, a submission with no deadline is a ValidationError naming the field.
 */
export function resolveDeadline(
  s: Submission,
  queue: string,
  queueDefault: { key: string; deadlineSeconds: number } | undefined,
  nowMs: number,
): SubmissionWithDeadline {
  if (s.deadlineMs !== null) return { ...s, deadlineMs: s.deadlineMs, deadlineSource: 'request' };
  if (queueDefault === undefined) {
    throw new ValidationError([
      {
        path: 'deadline',
        message: `is required: queue '${queue}' has no default deadline configured (admission.queueDefaults)`,
      },
    ]);
  }
  return {
    ...s,
    deadlineMs: nowMs + queueDefault.deadlineSeconds * 1000,
    deadlineSource: 'queue-default',
    defaultDeadlineSeconds: queueDefault.deadlineSeconds,
  };
}

/**
 * Validate a request body; `nowMs` turns a relative deadline into an absolute one. A body
 * without `deadline` passes with `deadlineMs: null`: whether its queue has a default is the
 * sidecar's to say (resolveDeadline).
 */
export function parseSubmission(body: unknown, nowMs: number): Submission {
  const parsed = submissionSchema.safeParse(body);
  if (!parsed.success) {
    throw new ValidationError(
      parsed.error.issues.map((i) => ({
        path: i.path.length ? i.path.join('.') : '(body)',
        message: i.code === 'unrecognized_keys' ? `unknown field(s) ${i.keys.join(', ')}` : i.message,
      })),
    );
  }
  const { yarnSubmission, ...rest } = parsed.data;
  const job = {
    ...rest,
    ...(yarnSubmission === undefined ? {} : { request: parseSubmissionRequest(yarnSubmission) }),
  };
  if (job.deadline === undefined) return { ...job, deadlineMs: null };
  const deadlineMs =
    typeof job.deadline === 'number' ? nowMs + job.deadline * 1000 : Date.parse(job.deadline);
  if (deadlineMs <= nowMs) {
    throw new ValidationError([
      { path: 'deadline', message: `is in the past (${new Date(deadlineMs).toISOString()})` },
    ]);
  }
  return { ...job, deadlineMs };
}
