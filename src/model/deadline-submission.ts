import { z } from 'zod';
import { WORKLOAD_CLASS_PATTERN } from '../core/estimates';
import { JOB_TYPES } from '../core/kinds';
import { JOB_LIMITS } from '../core/limits';
import { PROFILE_NAME_PATTERN } from '../core/profiles';
import { SPARK_DEFAULTS } from '../core/spark';
import { ValidationError, zodIssues } from '../errors/validation';
import {
  MAX_TAG_LENGTH,
  MAX_TAGS,
  ownTagCount,
  RESERVED_TAG_KEYS,
  reservedTagKey,
  userTagBudget,
} from '../yarn/tags';
import { parseSubmissionRequest, type SubmissionRequest } from '../yarn/submission';

/**
 * `POST /api/v1/jobs`: a deadline-annotated MapReduce job. The deadline is an ISO-8601 time
 * or a number of seconds from now. Everything is checked here; the admission core checks
 * the job model again (its own invariants) before deciding.
 */

/** Every bound a submission is held to; docs/security.md lists them, the OpenAPI shows them. */
export const SUBMISSION_LIMITS = {
  ...JOB_LIMITS,
  maxNameLength: 256,
  maxUserLength: 128,
  maxQueueLength: 256,
  maxInputPaths: 1000,
  /** HDFS's own limit on a path (HdfsServerConstants.MAX_PATH_LENGTH). */
  maxInputPathLength: 8000,
} as const;

const HORIZON = SUBMISSION_LIMITS.deadlineHorizonSeconds;
const HORIZON_TEXT = `${HORIZON} seconds (366 days)`;

const ISO_TIME =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|([+-])(\d{2}):?(\d{2}))$/;

/**
 * An ISO-8601 time with a zone, of a real calendar date and clock time (`2026-02-30`, `24:00`
 * and `+25:00` are refused: Date.parse would roll them over), as epoch milliseconds.
 */
export function parseIsoTime(s: string): number | string {
  const m = ISO_TIME.exec(s);
  if (!m) return 'must be an ISO-8601 time with a zone, e.g. 2026-11-22T09:00:00Z';
  const [y, mo, d, h, mi, sec] = [m[1], m[2], m[3], m[4], m[5], m[6] ?? '0'].map(Number) as number[];
  const day = new Date(Date.UTC(y!, mo! - 1, d!));
  if (mo! < 1 || mo! > 12 || day.getUTCMonth() !== mo! - 1 || day.getUTCDate() !== d!)
    return `is not a calendar date (${m[1]}-${m[2]}-${m[3]})`;
  if (h! > 23 || mi! > 59 || sec! > 59) return `is not a clock time (${m[4]}:${m[5]}:${m[6] ?? '00'})`;
  if (m[9] !== undefined && (Number(m[10]) > 14 || Number(m[11]) > 59))
    return `has a zone offset no place uses (${m[8]}); offsets run from -14:00 to +14:00`;
  const ms = Date.parse(s);
  return Number.isFinite(ms) ? ms : 'is not a valid time';
}

const isoTime = z
  .string()
  .max(40, 'must be an ISO-8601 time with a zone, e.g. 2026-11-22T09:00:00Z')
  .superRefine((s, ctx) => {
    const r = parseIsoTime(s);
    if (typeof r === 'string') ctx.addIssue({ code: 'custom', message: r });
  })
  .meta({ format: 'date-time', description: 'absolute deadline with a zone, of a real calendar date' });

const tag = z
  .string()
  .max(MAX_TAG_LENGTH, `may be at most ${MAX_TAG_LENGTH} characters (YARN's limit)`)
  .regex(/^[^,\s][^,]*$/, 'must be non-empty with no comma')
  .regex(/^[\x20-\x7e]*$/, 'may hold printable ASCII characters only (YARN refuses others)')
  .superRefine((t, ctx) => {
    const key = reservedTagKey(t);
    if (key !== undefined)
      ctx.addIssue({
        code: 'custom',
        message: `'${t}' uses the reserved key '${key}:': the sidecar writes ${RESERVED_TAG_KEYS.map((k) => `${k}:`).join(', ')} itself`,
      });
  });

/** A whole number from min to max, the bound named in the message. */
const count = (min: number, max: number) =>
  z
    .number({ error: 'must be a number' })
    .int('must be a whole number')
    .min(min, `must be at least ${min}`)
    .max(max, `must be at most ${max}`);

const bytes = z
  .number({ error: 'must be a number of bytes' })
  .finite('must be a finite number of bytes')
  .min(0, 'must be at least 0')
  .max(SUBMISSION_LIMITS.maxInputBytes, `must be at most ${SUBMISSION_LIMITS.maxInputBytes} bytes (1 PiB)`);

/** A split size setting as Hadoop reads it (a long), in bytes. */
const splitSetting = z
  .number({ error: 'must be a number of bytes' })
  .int('must be a whole number of bytes')
  .min(0, 'must be at least 0')
  .max(Number.MAX_SAFE_INTEGER, `must be at most ${Number.MAX_SAFE_INTEGER}`);

export const submissionSchema = z
  .object({
    name: z.string().min(1).max(SUBMISSION_LIMITS.maxNameLength),
    user: z
      .string()
      .min(1)
      .max(SUBMISSION_LIMITS.maxUserLength)
      .regex(/^[A-Za-z0-9._@-]+$/, 'may hold letters, digits and . _ @ - only'),
    /** Optional only where the queue has a default (admission.queueDefaults); see resolveDeadline. */
    deadline: z
      .union([
        isoTime,
        z
          .number()
          .positive('must be positive (seconds from now)')
          .finite()
          .max(HORIZON, `must be at most ${HORIZON_TEXT} from now`),
      ])
      .optional()
      .describe(
        "an ISO-8601 time, or seconds from now; required unless the job's queue has a default deadline (admission.queueDefaults)",
      ),
    /**
     * May be left out when `inputPaths` are given: the sidecar then derives the maps, and each
     * map's split, from the files' lengths and block sizes as FileInputFormat splits them.
     */
    maps: count(1, SUBMISSION_LIMITS.maxMaps)
      .optional()
      .describe(
        "map tasks; may be left out when inputPaths are given: then one per input split, as Hadoop's FileInputFormat splits the files",
      ),
    /**
     * 0 for a map-only job (distcp, Sqoop imports): admitted as RTMR with an empty reduce stage.
     * Required, except for a Spark app (`spark`), which has none.
     */
    reduces: count(0, SUBMISSION_LIMITS.maxReduces)
      .optional()
      .describe(
        'reduce tasks; 0 for a map-only job (it finishes with its last map and holds no reduce slot); required unless spark is given',
      ),
    /**
     * A Spark app (cluster mode): its executors, held from their start to the app's end, instead
     * of maps and reduces (src/core/spark.ts). With dynamic allocation, `dynamicMax` is planned.
     */
    spark: z
      .object({
        executors: count(1, SUBMISSION_LIMITS.maxMaps)
          .default(SPARK_DEFAULTS.executors)
          .describe('spark.executor.instances (--num-executors); default 2, as Spark on YARN'),
        executorCores: count(1, 1024)
          .default(SPARK_DEFAULTS.executorCores)
          .describe('spark.executor.cores (--executor-cores); default 1'),
        executorMemoryMb: count(1, 1_048_576)
          .default(SPARK_DEFAULTS.executorMemoryMb)
          .describe('spark.executor.memory (--executor-memory) in MB; default 1024'),
        executorMemoryOverheadMb: count(0, 1_048_576)
          .optional()
          .describe("spark.executor.memoryOverhead in MB; default Spark's, max(384, 10 % of the memory)"),
        dynamicMax: count(1, SUBMISSION_LIMITS.maxMaps)
          .optional()
          .describe(
            'spark.dynamicAllocation.maxExecutors when dynamic allocation is on: the executors planned',
          ),
      })
      .strict()
      .optional()
      .describe(
        "a Spark app's executors, held for the app's life (counted instead of maps and reduces); with dynamic allocation, dynamicMax is planned",
      ),
    /**
     * Bytes of input. May be left out when `inputPaths` are given: the sidecar then reads the
     * files' lengths from WebHDFS (and refuses the job when it cannot).
     */
    inputBytes: bytes.optional(),
    /** Per-map split sizes in bytes; when given, one per map, adding up to inputBytes. */
    splitBytes: z
      .array(bytes)
      .max(SUBMISSION_LIMITS.maxMaps, `may have at most ${SUBMISSION_LIMITS.maxMaps} entries (one per map)`)
      .optional(),
    /** `mapreduce.input.fileinputformat.split.minsize` and `.maxsize`, for maps derived from inputPaths. */
    splitMinBytes: splitSetting
      .optional()
      .describe(
        'mapreduce.input.fileinputformat.split.minsize of the job, when its maps are derived from inputPaths',
      ),
    splitMaxBytes: splitSetting
      .optional()
      .describe(
        'mapreduce.input.fileinputformat.split.maxsize of the job, when its maps are derived from inputPaths',
      ),
    jobType: z.enum(JOB_TYPES).default('cpu'),
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
    /**
     * The profile of a recurring job its runs are learned into and judged by (default: its name
     * with ids, dates and numbers stripped, with its user and queue). Jobs giving one name share one.
     */
    profile: z
      .string()
      .regex(
        PROFILE_NAME_PATTERN,
        'must be 1-128 characters of a-z, 0-9, ".", "_", "-", "@" or "/", starting with a letter or digit',
      )
      .optional()
      .describe(
        'the profile of past runs the job is learned into and judged by; default: its name without ids, dates and numbers, with its user and queue',
      ),
    queue: z.string().min(1).max(SUBMISSION_LIMITS.maxQueueLength).optional(),
    inputPaths: z
      .array(
        z
          .string()
          .min(1)
          .max(
            SUBMISSION_LIMITS.maxInputPathLength,
            `may be at most ${SUBMISSION_LIMITS.maxInputPathLength} characters (HDFS's limit)`,
          )
          .startsWith('/', 'must be an absolute HDFS path'),
      )
      .max(SUBMISSION_LIMITS.maxInputPaths, `may list at most ${SUBMISSION_LIMITS.maxInputPaths} paths`)
      .optional(),
    tags: z.array(tag).max(MAX_TAGS).optional(),
    /**
     * The RM's submission context, with the RM's field names (am-container-spec, resource,
     * max-app-attempts, log-aggregation-context, ...): everything but what the sidecar decides.
     * With it, an admitted job is submitted by the sidecar; without it, an admitted job gets a
     * ticket and its own client submits it (loop/tickets.ts). Read by yarn/submission.ts.
     */
    yarnSubmission: z.record(z.string(), z.unknown()).optional(),
    /**
     * When the RM loses the app (an RM restarted without recovery forgets its apps): decide the
     * job again for the time left and, if admitted, submit it again. Off: the job is marked lost.
     */
    resubmitIfLost: z
      .boolean()
      .default(false)
      .describe(
        'when the RM loses the app, decide the job again for the time left and submit it again if admitted',
      ),
    /** Decide and answer, but record nothing and submit nothing (a feasibility check). */
    dryRun: z.boolean().default(false).describe('decide without recording or submitting'),
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
    if (job.spark !== undefined) {
      // A Spark app is its executors: no maps, reduces or splits of its own.
      for (const key of ['maps', 'reduces', 'splitBytes', 'splitMinBytes', 'splitMaxBytes'] as const)
        if (job[key] !== undefined)
          ctx.addIssue({
            code: 'custom',
            path: [key],
            message: 'is not given with spark: a Spark app is counted by its executors',
          });
      return;
    }
    if (job.reduces === undefined) {
      ctx.addIssue({ code: 'custom', path: ['reduces'], message: 'is required (0 for a map-only job)' });
    }
    if (job.inputBytes === undefined && !(job.inputPaths && job.inputPaths.length > 0)) {
      ctx.addIssue({
        code: 'custom',
        path: ['inputBytes'],
        message: 'is required unless inputPaths are given (their lengths are then read from WebHDFS)',
      });
    }
    const fromPaths = job.inputPaths !== undefined && job.inputPaths.length > 0;
    if (job.maps === undefined && !fromPaths) {
      ctx.addIssue({
        code: 'custom',
        path: ['maps'],
        message: "is required unless inputPaths are given (the maps are then the files' splits)",
      });
    }
    for (const key of ['splitMinBytes', 'splitMaxBytes'] as const) {
      if (job[key] !== undefined && (job.maps !== undefined || !fromPaths)) {
        ctx.addIssue({
          code: 'custom',
          path: [key],
          message: 'applies only when the maps are derived from inputPaths (no maps given)',
        });
      }
    }
    if (job.splitBytes && job.maps === undefined) {
      ctx.addIssue({ code: 'custom', path: ['splitBytes'], message: 'needs maps beside it' });
    } else if (job.splitBytes && job.inputBytes === undefined) {
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
  });

export type SubmissionInput = z.input<typeof submissionSchema>;
/** A checked request; `deadlineMs` is null when it gave no deadline (a queue default may apply). */
export type Submission = Omit<z.output<typeof submissionSchema>, 'yarnSubmission'> & {
  deadlineMs: number | null;
  /** The `yarnSubmission` read and checked; absent when none was given (a ticket, or a dry run). */
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
export function parseSubmission(
  body: unknown,
  nowMs: number,
  options: { horizonSeconds?: number } = {},
): Submission {
  const parsed = submissionSchema.safeParse(body);
  if (!parsed.success) {
    throw new ValidationError(zodIssues(parsed.error, { noun: 'field', whole: '(body)' }));
  }
  const { yarnSubmission, ...rest } = parsed.data;
  const job = {
    ...rest,
    ...(yarnSubmission === undefined ? {} : { request: parseSubmissionRequest(yarnSubmission) }),
  };
  if (job.deadline === undefined) return { ...job, deadlineMs: null };
  const deadlineMs =
    typeof job.deadline === 'number' ? nowMs + job.deadline * 1000 : (parseIsoTime(job.deadline) as number);
  if (deadlineMs <= nowMs) {
    throw new ValidationError([
      { path: 'deadline', message: `is in the past (${new Date(deadlineMs).toISOString()})` },
    ]);
  }
  const horizon = options.horizonSeconds ?? HORIZON;
  if (deadlineMs > nowMs + horizon * 1000) {
    throw new ValidationError([
      {
        path: 'deadline',
        message: `is more than ${horizon} seconds from now (${new Date(deadlineMs).toISOString()}); deadlines may lie at most ${horizon === HORIZON ? HORIZON_TEXT : `${horizon} seconds`} ahead`,
      },
    ]);
  }
  return { ...job, deadlineMs };
}
