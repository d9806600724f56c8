import { z } from 'zod';
import { DEFAULT_RECENT_CLASSES } from '../core/cost-distribution';
import { WORKLOAD_CLASS_PATTERN } from '../core/estimates';
import { errorCatalog } from '../errors/catalog';
import { JOB_STATES } from '../store/types';
import { RESERVED_TAG_KEYS } from '../yarn/tags';
import { submissionSchema, SUBMISSION_LIMITS as L } from '../model/deadline-submission';
import { clientReportSchema } from '../model/client-report';
import { replayRequestSchema, replayViewSchema } from './replays';

/**
 * OpenAPI 3.1 description of the sidecar's HTTP API, served at /api/v1/openapi.json. Every
 * schema is generated from zod (z.toJSONSchema): the request body from the very schema that
 * validates it (submission.ts), the answers from the schemas below. test/api/api.test.ts checks
 * that every route the app serves is described; `npm run lint:openapi` runs redocly over it.
 */

const isoTime = z.string().meta({ format: 'date-time' });
const nullableNumber = z.number().nullable();

const errorBody = z.object({
  error: z.object({
    code: z.enum(errorCatalog.map((e) => e.code) as [string, ...string[]]),
    message: z.string(),
    issues: z
      .array(z.object({ path: z.string(), message: z.string() }))
      .optional()
      .describe('with VALIDATION_FAILED: each field at fault and the limit it broke'),
    leader: z
      .string()
      .nullable()
      .optional()
      .describe("with NOT_LEADER: the leader's URL to send the request to (null when none is known now)"),
  }),
});

const leaderView = z.object({
  role: z
    .enum(['leader', 'follower'])
    .describe('this instance: leader (decides and writes) or follower (reads)'),
  id: z.string().nullable().describe("this instance's ha.id (null without HA)"),
  leader: z
    .object({
      id: z.string(),
      url: z.string(),
      epoch: z.int().describe('the fencing token: grows with each leader'),
    })
    .nullable()
    .describe('the leader as last read from ZooKeeper; null when none is known (or without HA)'),
});

const triple = z
  .object({
    eta: z.number().describe('intermediate/input ratio'),
    mapCostMax: z.number().describe('c_m^max, seconds per MB of a map task'),
    reduceCostMax: z.number().describe('c_r^max, seconds per MB of a reduce task'),
  })
  .describe('worst-case estimates of one workload class (He et al., RTMR, IV.A)');

const estimateFrom = z
  .object({
    source: z
      .enum(['profile', 'class', 'default'])
      .describe(
        "profile: the job's profile of past runs; class: its class's learned figures (no history of its own); default: its class's configured figures",
      ),
    profile: z.string().describe('the profile the job is judged by and its runs are learned into'),
    text: z
      .string()
      .describe('the same in words, e.g. "profile wordcount@alice/default, 12 runs, p95 of 11 errors: x1.1"'),
    factor: z.number().describe("the factor on the figures: the profile's error quantile, or the margin"),
    expected: z
      .number()
      .describe("the point prediction's factor (expectedFinish): the median of the profile's errors, else 1"),
    runs: z.int().optional().describe("source profile: the profile's runs in all"),
    errors: z.int().optional().describe('source profile: the errors its factor is taken from'),
    quantile: z.number().optional().describe('source profile: the quantile of its errors judged at'),
    workloadClass: z
      .string()
      .optional()
      .describe('source class or default: the class whose figures were used'),
  })
  .describe('where the figures the job was judged with came from (absent under estimateModel paper)');

const rejectionReason = z
  .looseObject({
    kind: z
      .string()
      .describe(
        'e.g. new-job-misses, admitted-job-would-miss, no-capacity, guarantee-held, label-unavailable',
      ),
    message: z.string(),
    jobId: z.string().optional().describe('the job whose deadline would be missed'),
    lateBySeconds: z.number().optional(),
    partition: z
      .string()
      .nullable()
      .optional()
      .describe(
        'the label partition the rejection was judged in; null for the default partition (as `label`)',
      ),
    sharing: z
      .object({
        mode: z
          .enum(['own', 'preemption', 'lent', 'unknown'])
          .describe(
            "how the lane's guarantee stood: its own; partly held by other queues and taken back by preemption; lent with preemption off; lent with preemption not known to be on",
          ),
        guaranteed: z.number().int().describe("the queue's guaranteed containers in the partition"),
        held: z.number().int().describe('of them, held by other queues when the job was decided'),
        firstReturnSeconds: z.number().nullable().describe('seconds until the first held container returns'),
        lastReturnSeconds: z.number().nullable().describe('seconds until the last one with a known return'),
        neverReturn: z.number().int().describe('held containers with no known return (preemption off)'),
      })
      .optional()
      .describe(
        'present when other queues held part of the guarantee: which way it comes back (docs/admission.md)',
      ),
  })
  .describe('why a job was rejected: which job would miss its deadline, and by how much');

const ticket = z
  .object({
    id: z.string().describe('the job id; the tag `sidecar-id:<id>` binds an app to it'),
    status: z.enum(['waiting', 'bound', 'expired', 'cancelled']),
    expiresAt: isoTime.describe('when a waiting ticket expires and its capacity is released'),
    queue: z.string(),
    priority: z.int(),
    labelExpression: z.string().nullable(),
    tags: z.array(z.string()).describe('the application tags to submit the app with, exactly'),
    mapreduce: z
      .array(z.string())
      .describe('generic options for hadoop jar / yarn jar, after the main class (-Dmapreduce.job.*)'),
    spark: z.array(z.string()).describe('options for spark-submit, before the application jar'),
    env: z.record(z.string(), z.string()).describe('the same as YSS_TICKET_* environment variables'),
    appId: z.string().nullable().optional().describe('the (first) app the ticket was bound to'),
    client: z
      .object({
        state: z.enum(['running', 'exited']),
        exitCode: z.int().nullable().describe('once exited'),
        reportedAt: isoTime.describe('its last report (its first report of exited is kept)'),
      })
      .nullable()
      .optional()
      .describe(
        "what the ticket's client (run) reported of itself (PUT /api/v1/jobs/{id}/client); null when it reported nothing: the job is then judged on its first app",
      ),
  })
  .describe(
    'Admission before submission: submit the app yourself with these, before expiresAt; until then the admitted capacity is held for it',
  );

const answer = z.object({
  id: z.string(),
  decision: z.enum(['admitted', 'rejected']),
  deadline: isoTime.optional(),
  estimatedFinish: isoTime
    .optional()
    .describe('admitted: the bound admission judged with (the figures times the error factor): the promise'),
  expectedFinish: isoTime
    .optional()
    .describe(
      "admitted: the point prediction (the figures times the errors' median, or the figures themselves before any error is known): when the job is expected to end, as its running job's predictedFinish starts",
    ),
  slackSeconds: z.number().optional(),
  position: z.int().optional().describe('place in the EDF queue, 1 = first'),
  queue: z.string().optional(),
  priority: z.int().optional(),
  label: z.string().nullable().optional(),
  energyJoules: nullableNumber
    .optional()
    .describe(
      "estimated energy of the job's map tasks in the chosen partition, from the energy profile; null without a profile whose energies are in kWh",
    ),
  reason: rejectionReason.optional(),
  earliestAdmissibleDeadline: isoTime.nullable().optional(),
  earliestAdmissibleDeadlineNote: z
    .string()
    .optional()
    .describe(
      'with a null earliestAdmissibleDeadline after a search: no deadline within the horizon searched (366 days) would be admitted now',
    ),
  placement: z
    .looseObject({})
    .optional()
    .describe(
      'why the partition was chosen: `locality` (`known`, `uniform (...)` or `unavailable (<reason>)`), and per partition tried, best first, `label`, `dop` (share of the input with a replica there), `ef` (1 / energy of a map task; null without an energy profile) and `h` = ef * dop; `input` summarises what WebHDFS listed',
    ),
  inputBytes: z.number().optional().describe("only when read from the input files' lengths"),
  inputBytesFrom: z.enum(['inputPaths']).optional().describe('present when inputBytes was derived'),
  maps: z
    .int()
    .optional()
    .describe("only when derived: one per split of the input files, as Hadoop's FileInputFormat makes them"),
  mapsFrom: z.enum(['inputPaths']).optional().describe('present when maps were derived'),
  spark: z
    .object({
      executors: z
        .int()
        .describe('executors planned: the fixed count, or spark.dynamicAllocation.maxExecutors'),
      containersPerExecutor: z
        .int()
        .describe("containers of admission's size one executor holds (its cores, its memory with overhead)"),
      maps: z.int().describe("the job's maps in the core's model: executors x containers per executor"),
      reduces: z.literal(0),
      executorContainerMb: z.int().describe("an executor's memory with Spark's overhead, MB"),
      executorsFrom: z.enum(['executors', 'dynamicAllocation.maxExecutors']),
    })
    .optional()
    .describe("a Spark app's executors as planned, held for the app's life beside the driver's AM container"),
  deadlineSource: z
    .enum(['request', 'queue-default'])
    .optional()
    .describe("whether the deadline came from the request or from the queue's default"),
  defaultDeadlineSeconds: z
    .number()
    .optional()
    .describe("the queue's default applied (seconds from arrival), with deadlineSource queue-default"),
  workloadClass: z
    .string()
    .optional()
    .describe('the workload class the job was judged with: its workloadClass, else its jobType'),
  estimates: triple.optional(),
  estimateFrom: estimateFrom.optional(),
  dryRun: z.boolean().optional(),
  ticket: ticket
    .optional()
    .describe('admitted without yarnSubmission (not a dry run): the ticket to submit the app with'),
});

const job = z.object({
  id: z.string(),
  name: z.string(),
  user: z.string(),
  submitter: z.string(),
  source: z.enum(['api', 'discovered']),
  jobType: z.string(),
  maps: z.int(),
  reduces: z.int(),
  inputBytes: z.number(),
  decision: z.enum(['admitted', 'rejected']),
  state: z.string(),
  outcome: z
    .enum(['met', 'missed'])
    .nullable()
    .describe('of a job that finished; null while open, and for one that failed, was killed or never ran'),
  queue: z.string().nullable(),
  label: z.string().nullable(),
  priority: z.int().nullable(),
  appId: z.string().nullable(),
  arrival: isoTime,
  deadline: isoTime,
  estimatedFinish: isoTime
    .nullable()
    .describe("the admission's estimated finish: the promise made when the job was admitted, never changed"),
  predictedFinish: isoTime
    .nullable()
    .describe(
      "an admitted job's predicted finish: at admission its expected finish (the point prediction), then while it runs its lane's placement made again from its tasks' progress (read from its AM) when it runs past it; null for a rejected job",
    ),
  predictedMiss: z
    .boolean()
    .describe('an admitted job not yet ended whose predicted finish is after its deadline'),
  finishedAt: isoTime.nullable(),
  slackSeconds: nullableNumber.describe(
    'deadline minus the actual finish (when ended) or the estimated finish; negative = late',
  ),
  reason: rejectionReason.nullable(),
  earliestAdmissibleDeadline: isoTime.nullable(),
  energyJoules: nullableNumber,
  position: z.int().nullable().describe('1-based place in the EDF queue, for admitted jobs not yet ended'),
  deadlineSource: z.enum(['request', 'queue-default', 'tag']),
  ticket: ticket.nullable().describe('the ticket of a job admitted before its app existed; null for others'),
  apps: z
    .array(
      z.object({
        id: z.string(),
        state: z
          .string()
          .nullable()
          .describe("the RM's state as last tracked; null for an app tracked before apps were kept"),
        finalStatus: z.string().nullable(),
        queue: z.string().nullable(),
        startedAt: isoTime.nullable(),
        finishedAt: isoTime.nullable(),
      }),
    )
    .describe(
      'every app of the job, first bound first (appId is the first): several for a ticket whose client ran one app after another',
    ),
  betweenApps: z
    .boolean()
    .describe(
      "an open job whose apps have all ended, waiting for its client's next app or its exit (it is judged on its last app once the client has exited)",
    ),
  archived: z
    .boolean()
    .describe(
      "a closed job moved to the ledger's archive (ledger.retention.archiveAfterDays): listed with archived=true, no longer in the live list",
    ),
});

const jobDetail = job.extend({
  decisions: z.array(
    z.object({ at: isoTime, policy: z.string(), decision: z.string(), detail: z.unknown() }),
  ),
  actions: z
    .array(
      z.object({
        id: z.int(),
        kind: z.string(),
        status: z.string(),
        attempts: z.int(),
        payload: z.unknown(),
        result: z.unknown(),
        error: z.string().nullable(),
        createdAt: isoTime,
        updatedAt: isoTime,
      }),
    )
    .describe('the timeline of RM actions taken to enforce the decision'),
});

const costDistribution = z
  .object({
    count: z.int(),
    min: nullableNumber,
    max: nullableNumber,
    mean: nullableNumber,
    p50: nullableNumber,
    p90: nullableNumber,
    p99: nullableNumber,
    zeros: z.int().describe('tasks that took no measurable time'),
    histogram: z
      .array(
        z.object({
          from: z.number().describe('exclusive'),
          to: z.number().describe('inclusive'),
          count: z.int(),
        }),
      )
      .describe('log-spaced bins, at most 24'),
  })
  .describe(
    'Observed unit costs of one stage (seconds per MB), quantiles within quantileRelativeError of the exact nearest-rank ones',
  );

const stageCosts = z.object({
  learnedWorstCase: z.number().describe('c^max, what admission plans each task with'),
  observed: costDistribution,
  worstCaseOverP50: nullableNumber.describe('how far the worst case sits above the median task'),
  observedMaxOverP50: nullableNumber.describe('the slowest task over the median one'),
});

const stretchFit = z
  .object({
    observations: z
      .int()
      .describe('finished tasks used: in groups of 2 or more of one class, stage and data size'),
    groups: z.int(),
    maxConcurrent: z.number().describe('the most containers seen running at once beside a task'),
    fullSpeedContainers: nullableNumber.describe(
      'containers the partition runs at full speed: beside k, a task took max(1, k / this) times its time alone; null with too few tasks or no slowdown seen',
    ),
    meanLogError: nullableNumber.describe('mean |ln(seconds / modelled seconds)| with the fit'),
    meanLogErrorFlat: nullableNumber.describe('the same with no slowdown modelled'),
    outcome: z.enum(['fit', 'too-few-observations', 'no-slowdown-seen']),
  })
  .describe(
    'the robust fit of task seconds against the containers running beside them (src/core/slowdown.ts)',
  );

const slowdown = z
  .object({
    usedByAdmission: z
      .literal(false)
      .describe('shown only: admission counts admission.nodeCores (and nodeCoresByLabel) when set'),
    partitions: z.array(
      z.object({
        label: z.string().describe("'' is the default partition"),
        nodes: z.int().nullable().describe('RUNNING nodes at the last capacity read'),
        jobs: z.int(),
        tasks: z.int(),
        fit: stretchFit,
        fullSpeedContainersPerNode: nullableNumber,
        suggestedNodeCores: z
          .int()
          .nullable()
          .describe(
            'the admission.nodeCores the fit amounts to (containerVcores per container, rounded down)',
          ),
        nodeCores: z
          .int()
          .nullable()
          .describe('what admission counts each node’s vcores at (null: as advertised)'),
      }),
    ),
  })
  .describe(
    'how the sidecar\'s finished jobs\' tasks stretched with the containers running beside them, per label partition (docs/estimates.md, "Capacity as the nodes deliver it")',
  );

const estimates = z.object({
  scope: z.literal('class').describe('figures and distributions are per workload class'),
  unit: z.literal('seconds per MB'),
  quantileRelativeError: z.number(),
  jobs: z.int().describe('finished jobs observed in all, including those of classes no longer kept'),
  mostObserved: z
    .string()
    .nullable()
    .describe('the class with the most observed jobs (the dashboard shows it first); null before any'),
  classes: z
    .array(
      z.object({
        workloadClass: z.string(),
        ownFigures: z.boolean().describe("false when the class is judged with the default's figures"),
        eta: z.number(),
        mapSecondsPerMb: z.number(),
        reduceSecondsPerMb: z.number(),
        mapTaskSeconds: z.number().describe('seconds every map task takes whatever its data'),
        reduceTaskSeconds: z.number().describe('seconds every reduce task takes whatever its data'),
        setupSeconds: z
          .number()
          .describe("seconds from a job's start to its first task: its AM's launch and the job's set-up"),
        commitSeconds: z.number().describe("seconds from a job's last task to its end: the output's commit"),
        amContainers: z.int().describe("containers a job's AM holds for its whole life (1 for MapReduce)"),
        jobs: z.int().describe('finished jobs of this class in its distribution'),
        map: stageCosts,
        reduce: stageCosts,
      }),
    )
    .describe(
      `per workload class, the default (\`*\`, every class without figures of its own) first, then by name: the figures admission plans with and the distribution of its own finished tasks against them. A distribution is kept for \`*\`, the job types (cpu, gpu, adaptive), the configured classes (admission.classEstimates) and the ${DEFAULT_RECENT_CLASSES} most recently seen others; a class dropped for a newer one keeps its figures and starts a new distribution when it runs again`,
    ),
  profiles: z
    .array(
      z.object({
        profile: z.string(),
        workloadClass: z
          .string()
          .nullable()
          .describe('the class whose figures fill what the profile has not seen'),
        runs: z.int().describe('runs learned in all'),
        keptRuns: z.int().describe('runs kept, which its figures are fitted on'),
        mapTaskSeconds: z.number(),
        mapSecondsPerMb: z.number(),
        reduceTaskSeconds: z.number(),
        reduceSecondsPerMb: z.number(),
        setupSeconds: z.number(),
        commitSeconds: z.number(),
        errors: z
          .int()
          .describe('runs judged on the profile whose error (actual / predicted duration) is known'),
        errorMedian: nullableNumber,
        errorQuantile: nullableNumber.describe('the error at `quantile`'),
        quantile: z.number(),
        factor: z.number().describe("what the profile's figures are multiplied by when a job is judged"),
        lastRun: z
          .looseObject({})
          .describe('its latest run: longest map and reduce with their data (MB), set-up, commit, error'),
      }),
    )
    .describe(
      'profiles of recurring jobs, most recently learned first: per stage a Theil-Sen fit of the longest task on its data over the kept runs, before the error factor (empty under estimateModel paper)',
    ),
  capacity: slowdown.optional(),
});

const classFigures = z.object({
  eta: z.number(),
  mapSecondsPerMb: z.number(),
  reduceSecondsPerMb: z.number(),
  mapTaskSeconds: z.number(),
  reduceTaskSeconds: z.number(),
  setupSeconds: z.number(),
  commitSeconds: z.number(),
  amContainers: z.int(),
});

const estimatesReset = z.object({
  workloadClass: z.string(),
  hadLearned: z.boolean(),
  before: classFigures,
  after: classFigures,
});

const cluster = z
  .looseObject({
    partitions: z
      .array(
        z.looseObject({
          label: z.string().describe("'' is the default partition (nodes without a label)"),
          nodes: z.int(),
          utilization: z.number(),
        }),
      )
      .optional(),
    outbox: z
      .looseObject({
        pending: z.int().describe('RM writes recorded and not yet confirmed'),
        oldestPendingSeconds: nullableNumber,
        writesRefused: z.boolean(),
      })
      .optional(),
    clock: z
      .object({
        now: isoTime.describe("the sidecar's time when it answered: the clock of every time in the answers"),
        kind: z
          .enum(['system', 'emulated'])
          .describe("emulated: the sidecar runs on the emulated RM's clock (the demo), not the system's"),
      })
      .optional(),
  })
  .nullable()
  .describe(
    'the cluster as last read from the RM (null before the first read); admission.estimates holds the worst-case figures per workload class: `default` (every class without its own) and `classes` (name to {eta, mapCostMax, reduceCostMax})',
  );

const stats = z.object({
  samples: z.array(
    z.looseObject({
      at: isoTime,
      accepted: z.int(),
      rejected: z.int(),
      met: z.int(),
      missed: z.int(),
      failed: z.int().optional().describe('admitted jobs whose app FAILED: counted apart, never as missed'),
      killed: z
        .int()
        .optional()
        .describe('admitted jobs whose app was KILLED: counted apart, never as missed'),
      acceptRatio: nullableNumber,
      successRatio: nullableNumber,
      utilizationByLabel: z.record(z.string(), z.number()),
      energyKWh: z.number(),
      energyKWhByLabel: z
        .record(z.string(), z.number())
        .optional()
        .describe("energyKWh per label partition ('' the default one)"),
      predictedToMiss: z
        .int()
        .optional()
        .describe(
          'running admitted jobs whose predicted finish is after their deadline (yss_jobs_predicted_to_miss); absent in older samples',
        ),
    }),
  ),
});

const readiness = z.looseObject({
  ready: z.boolean(),
  reason: z.string().optional(),
  details: z.string().optional(),
});

const jobList = z.object({ jobs: z.array(job), total: z.int() });
const replayList = z.object({ replays: z.array(replayViewSchema) });

/**
 * The answers' types as the schemas above describe them: what a client may rely on, and no
 * more (a loose object's other fields are `unknown`). The dashboard's modules
 * (src/dashboard/public) read the API through these types.
 */
export type ErrorAnswer = z.output<typeof errorBody>;
export type JobAnswer = z.output<typeof job>;
export type JobDetailAnswer = z.output<typeof jobDetail>;
export type JobListAnswer = z.output<typeof jobList>;
export type ClusterAnswer = z.output<typeof cluster>;
export type StatsAnswer = z.output<typeof stats>;
export type EstimatesAnswer = z.output<typeof estimates>;
export type ReplayAnswer = z.output<typeof replayViewSchema>;
export type ReplayListAnswer = z.output<typeof replayList>;

const submission = submissionSchema.describe(
  `A deadline job. inputBytes is required unless inputPaths are given (then read from the files' lengths); splitBytes, one per map, add up to it. maps is required unless inputPaths are given (then one per split of the files, from their lengths and block sizes, splitMinBytes and splitMaxBytes, as Hadoop's FileInputFormat splits them). Tags: YARN allows 10 per app and the sidecar writes 6 (7 with workloadClass), so at most 4 (3) of your own; the sidecar's own keys (${RESERVED_TAG_KEYS.map((k) => `${k}:`).join(', ')}, in any case) are refused with a 400 naming the tag. yarnSubmission is the RM's submission context with the RM's field names (am-container-spec with a non-empty command, resource, max-app-attempts, ...); without it an admitted job gets a ticket (the queue, priority, label and tags to submit the app with yourself) and nothing is submitted; with it the sidecar sets application-id, application-name, queue, priority, application-tags, app-node-label-expression and reservation-id itself. Deadlines: an ISO-8601 time with a zone or seconds from now, at most ${L.deadlineHorizonSeconds} s (366 days) ahead; required unless the queue has a default (admission.queueDefaults).`,
);

/** The schemas by component name: requests read as input, answers as output. */
function componentSchemas<I extends string, O extends string>(
  input: Record<I, z.ZodType>,
  output: Record<O, z.ZodType>,
): Record<I | O, JsonSchemaObject> {
  const emit = (schemas: Record<string, z.ZodType>, io: 'input' | 'output') => {
    const registry = z.registry<{ id: string }>();
    for (const [id, schema] of Object.entries(schemas)) registry.add(schema, { id });
    const out = z.toJSONSchema(registry, {
      io,
      target: 'draft-2020-12',
      uri: (id) => `#/components/schemas/${id}`,
    }).schemas;
    for (const s of Object.values(out)) {
      delete s.$schema;
      delete s.$id;
    }
    return out;
  };
  return { ...emit(input, 'input'), ...emit(output, 'output') } as unknown as Record<I | O, JsonSchemaObject>;
}

type JsonSchemaObject = { properties: Record<string, unknown> } & Record<string, unknown>;

const schemas = componentSchemas(
  { Submission: submission, ClientReport: clientReportSchema, ReplayRequest: replayRequestSchema },
  {
    Error: errorBody,
    Answer: answer,
    Triple: triple,
    RejectionReason: rejectionReason,
    Job: job,
    JobDetail: jobDetail,
    JobList: jobList,
    CostDistribution: costDistribution,
    StageCosts: stageCosts,
    Estimates: estimates,
    EstimatesReset: estimatesReset,
    Cluster: cluster,
    Stats: stats,
    Readiness: readiness,
    Health: z.object({ status: z.literal('ok') }),
    Leader: leaderView,
    Ticket: ticket,
    Replay: replayViewSchema,
    ReplayList: replayList,
  },
);

const ref = (name: keyof typeof schemas) => ({ $ref: `#/components/schemas/${name}` });
const json = (name: keyof typeof schemas, description: string) => ({
  description,
  content: { 'application/json': { schema: ref(name) } },
});
const failure = (description: string) => json('Error', description);
const text = (type: string, description: string) => ({
  description,
  content: { [type]: { schema: { type: 'string' } } },
});

/** Reads: open by default, a bearer token when auth.protectReads is on (docs/security.md). */
const readSecurity = [{}, { bearer: [] }];
/** Probes, metrics and this document: always open. */
const open: never[] = [];

const readErrors = {
  '401': failure('UNAUTHORIZED: with auth.protectReads, no or wrong bearer token'),
  '500': failure('INTERNAL: a bug, logged with its component; the answer says nothing more'),
};
/** A follower's refusal (HA): Retry-After, and the leader in `leader` and Location when known. */
const notLeaderHeaders = {
  'Retry-After': { description: 'seconds to wait before retrying', schema: { type: 'integer' } },
  Location: {
    description: "the same request at the leader's URL (absent when no leader is known)",
    schema: { type: 'string' },
  },
};
const notLeader = (also = '') => ({
  ...failure(
    `NOT_LEADER: with HA, this instance follows; \`leader\` names the leader's URL (null when none is known)${also}`,
  ),
  headers: notLeaderHeaders,
});

const pathParameter = (name: string, description: string) => ({
  name,
  in: 'path',
  required: true,
  description,
  schema: { type: 'string', maxLength: 200 },
});

const paths = {
  '/api/v1/jobs': {
    post: {
      operationId: 'submitJob',
      summary: 'Submit a deadline job',
      description:
        'The answer comes at once: admitted with the estimated finish, or rejected with the reason and the earliest deadline that would be admitted now.',
      parameters: [
        {
          name: 'Idempotency-Key',
          in: 'header',
          required: false,
          schema: { type: 'string', maxLength: 200 },
          description: 'a retried request with the same key returns the first answer and submits nothing new',
        },
      ],
      requestBody: { required: true, content: { 'application/json': { schema: ref('Submission') } } },
      responses: {
        '201': json('Answer', 'admitted (a dry run too)'),
        '200': json('Answer', 'rejected (a dry run too)'),
        '400': failure(
          'VALIDATION_FAILED (invalid fields or a value past its bound; `issues` names each field and the limit), INVALID_JSON, JSON_TOO_DEEP (arrays and objects nested more than 32 levels) or MALFORMED_REQUEST',
        ),
        '401': failure(
          'UNAUTHORIZED: no or wrong bearer token, or no token configured (the write API is closed)',
        ),
        '413': failure('PAYLOAD_TOO_LARGE: body larger than server.maxBodyBytes'),
        '415': failure(
          'UNSUPPORTED_MEDIA_TYPE: not application/json, a charset other than UTF-8, or any Content-Encoding',
        ),
        '422': failure('IDEMPOTENCY_KEY_REUSED: the Idempotency-Key was sent before with a different body'),
        '500': failure('INTERNAL: a bug, logged with its component; the answer says nothing more'),
        '503': notLeader(
          '; NOT_READY: the sidecar has not read the cluster from the RM yet; LEDGER_UNAVAILABLE: the shared ledger did not commit in time (Retry-After)',
        ),
      },
    },
    get: {
      operationId: 'listJobs',
      summary: 'List jobs, newest first',
      security: readSecurity,
      parameters: [
        ...(
          [
            ['decision', { type: 'string', enum: ['admitted', 'rejected'] }],
            ['state', { type: 'string', enum: JOB_STATES }],
            ['queue', { type: 'string' }],
            ['user', { type: 'string' }],
          ] as const
        ).map(([name, schema]) => ({
          name,
          in: 'query',
          required: false,
          description: `only jobs with this ${name}`,
          schema,
        })),
        // The bounds parseJobQuery (app.ts) holds.
        {
          name: 'limit',
          in: 'query',
          required: false,
          description: 'at most this many jobs (default 100)',
          schema: { type: 'integer', minimum: 1, maximum: 1000 },
        },
        {
          name: 'offset',
          in: 'query',
          required: false,
          description: 'skip this many jobs first',
          schema: { type: 'integer', minimum: 0, maximum: 10_000_000 },
        },
        {
          name: 'archived',
          in: 'query',
          required: false,
          description:
            "true: page through the ledger's archive instead (closed jobs moved out of the live list after ledger.retention.archiveAfterDays; newest first, then by id), with the same filters; false (the default): the live jobs",
          schema: { type: 'boolean', default: false },
        },
      ],
      responses: {
        '200': json('JobList', 'the jobs of this page and the total matching the filter'),
        '400': failure('VALIDATION_FAILED: a bad filter, limit, offset or archived'),
        ...readErrors,
        '503': failure(
          'LEDGER_UNAVAILABLE: with archived=true on the shared ledger, its PostgreSQL did not answer (the archive is read there)',
        ),
      },
    },
  },
  '/api/v1/jobs/{id}': {
    get: {
      operationId: 'getJob',
      summary: 'One job: decision, reason, estimates and the timeline of RM actions',
      description:
        "A live job, else one of the ledger's archive (`archived: true`), with its decisions and actions as they were recorded.",
      security: readSecurity,
      parameters: [pathParameter('id', 'the job id the submission was answered with')],
      responses: {
        '200': json('JobDetail', 'the job'),
        '400': failure('MALFORMED_REQUEST: a malformed %-escape in the id'),
        '404': failure('NOT_FOUND: no such job, live or archived'),
        ...readErrors,
        '503': failure(
          "LEDGER_UNAVAILABLE: no live job has the id, and the shared ledger's PostgreSQL did not answer for its archive",
        ),
      },
    },
    delete: {
      operationId: 'cancelTicket',
      summary:
        'Cancel a waiting ticket: its capacity is released and an app with its tag is no longer bound to it',
      parameters: [pathParameter('id', 'the job id the ticket was answered with')],
      responses: {
        '200': json('Job', 'the job, its ticket cancelled'),
        '400': failure('MALFORMED_REQUEST: a malformed %-escape in the id'),
        '401': failure('UNAUTHORIZED: no or wrong bearer token'),
        '404': failure('NOT_FOUND: no such job'),
        '409': failure(
          'TICKET_NOT_WAITING: the job is no ticket, or its ticket is bound, expired or cancelled',
        ),
        '500': failure('INTERNAL: a bug, logged with its component; the answer says nothing more'),
        '503': notLeader('; LEDGER_UNAVAILABLE: the shared ledger did not commit in time (Retry-After)'),
      },
    },
  },
  '/api/v1/jobs/{id}/client': {
    put: {
      operationId: 'reportClient',
      summary: "What a ticket's client reports of itself: running, or exited with its code",
      description:
        "`run` reports itself running when it starts its command and at least once per tickets.ttlSeconds after, with `appId` once the command's output names an app it submitted (read from the RM at once and bound to the ticket if it carries the ticket's tag; an app the RM does not know, or without the tag, is a 400 and nothing is recorded), then exited with the command's exit code. While it runs, every app carrying the ticket's tag is an app of the job; a job whose apps have all ended is judged only once its client has exited (on its last app), or once the client has not reported for tickets.ttlSeconds. A report after the exit changes nothing.",
      parameters: [pathParameter('id', 'the job id the ticket was answered with')],
      requestBody: { required: true, content: { 'application/json': { schema: ref('ClientReport') } } },
      responses: {
        '200': json('JobDetail', 'the job as it is now'),
        '400': failure(
          'VALIDATION_FAILED (a reported appId the RM does not know, or one without the ticket’s tag), INVALID_JSON or MALFORMED_REQUEST',
        ),
        '401': failure('UNAUTHORIZED: no or wrong bearer token'),
        '404': failure('NOT_FOUND: no such job'),
        '409': failure('TICKET_NOT_WAITING: the job is no ticket, or its ticket expired or was cancelled'),
        '413': failure('PAYLOAD_TOO_LARGE: body larger than 1 KiB'),
        '415': failure('UNSUPPORTED_MEDIA_TYPE: not application/json'),
        '500': failure('INTERNAL: a bug, logged with its component; the answer says nothing more'),
        '503': notLeader('; LEDGER_UNAVAILABLE: the shared ledger did not commit in time (Retry-After)'),
      },
    },
  },
  '/api/v1/cluster': {
    get: {
      operationId: 'getCluster',
      summary: 'The cluster as last read from the RM, per label partition',
      security: readSecurity,
      responses: {
        '200': json('Cluster', 'the snapshot, or null before the first read'),
        ...readErrors,
        '503': notLeader(": the cluster as the loop sees it is the leader's"),
      },
    },
  },
  '/api/v1/estimates': {
    get: {
      operationId: 'getEstimates',
      summary:
        'The learned worst-case task costs per workload class, each beside the observed distribution of its own finished tasks',
      security: readSecurity,
      responses: {
        '200': json('Estimates', 'estimates'),
        ...readErrors,
        '503': notLeader(": the estimates the loop judges with are the leader's"),
      },
    },
  },
  '/api/v1/estimates/{workloadClass}/reset': {
    post: {
      operationId: 'resetEstimates',
      summary:
        'Forget what one workload class learned: its jobs are judged with its configured figures again (docs/estimates.md)',
      description:
        "Drops the class's learned figures and samples from the ledger, rebuilds the admission lanes with the configured figures and records who reset it. Resetting a class that learned nothing changes nothing (hadLearned false). No body.",
      parameters: [
        {
          ...pathParameter('workloadClass', 'the workload class, as its jobs are judged with'),
          schema: { type: 'string', pattern: WORKLOAD_CLASS_PATTERN.source },
        },
      ],
      responses: {
        '200': json('EstimatesReset', 'the class and its figures before and after'),
        '400': failure(
          'VALIDATION_FAILED: not a workload class name; MALFORMED_REQUEST: a malformed %-escape',
        ),
        '401': failure('UNAUTHORIZED: no or wrong bearer token'),
        '404': failure('NOT_FOUND: this sidecar learns no estimates'),
        '500': failure('INTERNAL: a bug, logged with its component; the answer says nothing more'),
        '503': notLeader('; LEDGER_UNAVAILABLE: the shared ledger did not commit in time (Retry-After)'),
      },
    },
  },
  '/api/v1/replays': {
    post: {
      operationId: 'startReplay',
      summary: "Replay the cluster's own history under every admission policy (docs/replay.md)",
      description:
        'Starts a replay beside the sidecar, in a process of its own: the window of finished jobs read from the JobHistory server and the RM, each judged with what the sidecar knew at its arrival, run under FIFO as it ran and under every admission policy. Answers 202 at once; GET /api/v1/replays/{id} says how far it is and, once done, holds the report.',
      requestBody: { required: true, content: { 'application/json': { schema: ref('ReplayRequest') } } },
      responses: {
        '202': json('Replay', 'started: its id, running'),
        '400': failure(
          'VALIDATION_FAILED: a bad window, slack, deadline or policy name (`issues` names each); INVALID_JSON or MALFORMED_REQUEST',
        ),
        '401': failure('UNAUTHORIZED: no or wrong bearer token'),
        '404': failure('NOT_FOUND: this service runs no replays'),
        '413': failure('PAYLOAD_TOO_LARGE: the body is larger than the limit for a replay request'),
        '415': failure('UNSUPPORTED_MEDIA_TYPE: the body is not application/json'),
        '500': failure('INTERNAL: a bug, logged with its component; the answer says nothing more'),
      },
    },
    get: {
      operationId: 'listReplays',
      summary: 'The replays kept (the newest first)',
      security: readSecurity,
      responses: {
        '200': json('ReplayList', 'the replays'),
        '404': failure('NOT_FOUND: this service runs no replays'),
        ...readErrors,
      },
    },
  },
  '/api/v1/replays/{id}': {
    get: {
      operationId: 'getReplay',
      summary: 'One replay: how far it is, and its report once done',
      security: readSecurity,
      parameters: [pathParameter('id', 'the id POST /api/v1/replays answered with')],
      responses: {
        '200': json('Replay', 'the replay'),
        '400': failure('MALFORMED_REQUEST: a malformed %-escape in the id'),
        '404': failure('NOT_FOUND: no such replay, or this service runs none'),
        ...readErrors,
      },
    },
  },
  '/api/v1/leader': {
    get: {
      operationId: 'getLeader',
      summary: 'Which instance leads (HA): this one, or the URL of the one to send writes to',
      security: readSecurity,
      responses: { '200': json('Leader', "this instance's role and the leader"), ...readErrors },
    },
  },
  '/api/v1/stats': {
    get: {
      operationId: 'getStats',
      summary:
        'Samples over time: accept ratio, deadline success ratio, utilisation per label partition, energy',
      security: readSecurity,
      responses: { '200': json('Stats', 'the samples, oldest first'), ...readErrors },
    },
  },
  '/api/v1/openapi.json': {
    get: {
      operationId: 'getOpenApi',
      summary: 'This document',
      security: open,
      responses: {
        '200': {
          description: 'OpenAPI 3.1',
          content: { 'application/json': { schema: { type: 'object' } } },
        },
        '404': failure('NOT_FOUND: a path or method not served'),
      },
    },
  },
  '/api/v1/docs': {
    get: {
      operationId: 'getApiDocs',
      summary: 'This document as an HTML reference',
      description:
        'Operations with their security, parameters, request body and answers, then the schemas; rendered on the server from this document, with no script.',
      security: open,
      responses: {
        '200': text('text/html', 'HTML'),
        '404': failure('NOT_FOUND: a path or method not served'),
      },
    },
  },
  '/healthz': {
    get: {
      operationId: 'getHealth',
      summary: 'The process is up',
      security: open,
      responses: { '200': json('Health', 'ok'), '404': failure('NOT_FOUND: a path or method not served') },
    },
  },
  '/readyz': {
    get: {
      operationId: 'getReadiness',
      summary: 'Ready only while the RM answers (and, with HA, only on the leader)',
      description:
        'Open to probes. With auth.protectReads, a caller without a token gets the status and the kind of failure only (no error text, no address); with a token, the details. With HA a follower answers 503 with role follower and the leader: a load balancer sends traffic to the one ready instance.',
      security: readSecurity,
      responses: {
        '200': json('Readiness', 'ready'),
        '404': failure('NOT_FOUND: a path or method not served'),
        '503': json('Readiness', 'not ready, with the reason'),
      },
    },
  },
  '/metrics': {
    get: {
      operationId: 'getMetrics',
      summary: 'Prometheus metrics',
      security: open,
      responses: {
        '200': text('text/plain', 'the Prometheus text format'),
        '404': failure('NOT_FOUND: a path or method not served'),
        '500': failure('INTERNAL: the metrics could not be collected'),
      },
    },
  },
  '/': {
    get: {
      operationId: 'getJobsPage',
      summary: 'The jobs page',
      security: readSecurity,
      responses: { '200': text('text/html', 'HTML'), ...readErrors },
    },
  },
};

export const openApiDocument = {
  openapi: '3.1.0',
  info: {
    title: 'yarn-sched-sidecar',
    version: '1',
    description:
      'Deadline admission control for Hadoop YARN. Submit a deadline job and get an immediate answer: admitted with an estimated finish, or rejected with the reason and the earliest deadline that would be admitted now.',
    license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
  },
  servers: [{ url: '/', description: 'the sidecar that serves this document' }],
  security: [{ bearer: [] }],
  components: {
    securitySchemes: {
      bearer: {
        type: 'http',
        scheme: 'bearer',
        description:
          'a token of auth.tokens (or YSS_TOKENS); writes always need one, reads with auth.protectReads',
      },
    },
    schemas,
  },
  paths,
};
