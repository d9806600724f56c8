import { z } from 'zod';
import { WORKLOAD_CLASS_PATTERN } from '../core/estimates';
import { DEFAULT_FIRST_BYTE_TIMEOUT_MS, DEFAULT_RESPONSE_LIMITS, type Endpoint } from '../yarn/limits';
import { DEFAULT_CALL_BUDGET_MS, DEFAULT_MAX_RESPONSE_BYTES } from '../yarn/transport';

/**
 * The sidecar's configuration: what an operator writes (YAML), checked strictly (unknown
 * keys are errors), with defaults filled in, then validated across fields and frozen.
 * Durations carry their unit in the key (`...Ms`, `...Seconds`). docs/configuration.md
 * documents every key; test/config/config.test.ts checks the two agree.
 */

const url = z.string().regex(/^https?:\/\/[^\s/]+(:\d+)?(\/.*)?$/, 'must be an http:// or https:// URL');

/** At most 256 MiB: Node cannot hold a string much past 512 MiB, and parsing one takes minutes. */
const answerBytes = z
  .number()
  .int()
  .min(1024)
  .max(256 * 1024 * 1024);

/**
 * One endpoint's limits (src/yarn/limits.ts, where each default is sized): bytes, and for a list
 * items too.
 */
function endpointLimit(endpoint: Endpoint) {
  const d = DEFAULT_RESPONSE_LIMITS[endpoint];
  const maxBytes = answerBytes.default(d.maxBytes);
  const schema =
    d.maxItems === undefined
      ? z.object({ maxBytes }).strict()
      : z
          .object({ maxBytes, maxItems: z.number().int().min(1).max(10_000_000).default(d.maxItems) })
          .strict();
  return schema.default(schema.parse({}));
}

/** rm.responseLimits: per endpoint of the RM and the JobHistory server (docs/security.md). */
const responseLimits = z
  .object({
    info: endpointLimit('info'),
    metrics: endpointLimit('metrics'),
    conf: endpointLimit('conf'),
    nodeLabels: endpointLimit('nodeLabels'),
    scheduler: endpointLimit('scheduler'),
    nodes: endpointLimit('nodes'),
    apps: endpointLimit('apps'),
    app: endpointLimit('app'),
    jobs: endpointLimit('jobs'),
    tasks: endpointLimit('tasks'),
  })
  .strict();

const rm = z
  .object({
    /** One RM, or the RMs of an HA pair; the active one is found at start and after each failure. */
    addresses: z.array(url).min(1, 'needs at least one address').default(['http://127.0.0.1:8088']),
    /** The MapReduce JobHistory server, for finished jobs' task times. */
    jobHistoryAddress: url.default('http://127.0.0.1:19888'),
    /** WebHDFS (the NameNode's HTTP address), for block locations of input paths; optional. */
    webHdfsAddress: url.optional(),
    format: z.enum(['json', 'xml']).default('json'),
    /**
     * One attempt, on the wall clock: connect, headers and the whole body; past it, only while
     * the answer keeps arriving (64 KiB a second).
     */
    timeoutMs: z.number().int().min(100).max(600_000).default(10_000),
    /** One attempt's time to the first byte of its answer (connect included). */
    firstByteTimeoutMs: z.number().int().min(100).max(600_000).default(DEFAULT_FIRST_BYTE_TIMEOUT_MS),
    retries: z.number().int().min(0).max(10).default(3),
    /** One call, on the wall clock: every attempt, the pauses between them and HA detection. */
    callBudgetMs: z.number().int().min(100).max(3_600_000).default(DEFAULT_CALL_BUDGET_MS),
    /**
     * Largest answer read from the RM, the JobHistory server or WebHDFS (bytes, decompressed):
     * the limit of an endpoint without one of its own in responseLimits, and the ceiling of those.
     */
    maxResponseBytes: answerBytes.min(65_536).default(DEFAULT_MAX_RESPONSE_BYTES),
    /** Per endpoint: bytes of an answer, and items of a list (src/yarn/limits.ts). */
    responseLimits: responseLimits.default(responseLimits.parse({})),
    /** Simple auth: sent as user.name; empty when the RM has no authentication filter. */
    user: z.string().default(''),
    /** A PEM file of CA certificates for an RM served over HTTPS. */
    caFile: z.string().optional(),
  })
  .strict();

const yarn = z
  .object({
    realtimeQueue: z.string().min(1).max(256).default('realtime'),
    besteffortQueue: z.string().min(1).max(256).default('besteffort'),
    defaultQueue: z.string().min(1).max(256).default('default'),
    gpuLabel: z.string().min(1).max(256).default('gpu'),
    /**
     * yarn.cluster.max-application-priority of the cluster: EDF ranks map onto 1..this. Unset:
     * read from the RM's /conf, and in any case lowered to what the RM answers to a capped write.
     */
    maxApplicationPriority: z.number().int().min(0).max(1_000_000).optional(),
    /** The application type given to apps the sidecar submits. */
    applicationType: z.string().min(1).max(20).default('MAPREDUCE'),
  })
  .strict();

const queueDefault = z
  .object({
    deadlineSeconds: z
      .number({ error: 'must be a number of seconds (e.g. 7200 for two hours)' })
      .positive('must be more than 0 seconds')
      .finite()
      .max(366 * 24 * 3600, 'must be at most a year (31622400 seconds)'),
  })
  .strict();

/** Seconds per MB: at most 100000 (a 64 MB map task of 74 days), so every estimate stays finite. */
const secondsPerMb = z.number().positive().max(100_000, 'must be at most 100000 seconds per MB');

/** A per-task floor (start-up seconds): at most a day. */
const taskSeconds = z.number().min(0).max(86_400, 'must be at most 86400 seconds (a day)');

/**
 * A class's starting estimates. The task floors are optional: under `estimateModel: floored`
 * an absent one is DEFAULT_TASK_SECONDS; under `paper` there is none, and giving one is an error.
 */
const estimatesTriple = z
  .object({
    eta: z.number().min(0).max(1000, 'must be at most 1000 (intermediate bytes per input byte)').default(1),
    mapSecondsPerMb: secondsPerMb.default(0.5),
    reduceSecondsPerMb: secondsPerMb.default(0.5),
    mapTaskSeconds: taskSeconds.optional(),
    reduceTaskSeconds: taskSeconds.optional(),
    /**
     * Seconds from a job's start until its first task can start (the AM container's launch, the
     * AM's start-up, the job's set-up) and from its last task to its end (commit). Under
     * `floored` an absent one is DEFAULT_SETUP_SECONDS / DEFAULT_COMMIT_SECONDS; under `paper`
     * there is none.
     */
    setupSeconds: taskSeconds.optional(),
    commitSeconds: taskSeconds.optional(),
  })
  .strict();

/** The per-task floor of a class that names none, under `estimateModel: floored` (seconds). */
export const DEFAULT_TASK_SECONDS = 5;
/**
 * A job's set-up and commit when its class names none (`floored`): a MapReduce job spent 10 to
 * 15 s outside its tasks on a real Hadoop 3.4.3 (docs/estimates.md); learned from then on.
 */
export const DEFAULT_SETUP_SECONDS = 10;
export const DEFAULT_COMMIT_SECONDS = 5;

/** How the learned estimates move (src/core/learning.ts, docs/estimates.md). */
const learning = z
  .object({
    /** Tasks with less data than this teach the per-task floor, never the cost per MB. */
    tinyTaskMb: z.number().min(0).max(1_048_576).default(16),
    /** One finished job raises a figure to at most this many times its value before it. */
    maxGrowthPerJob: z.number().min(1).max(1000).default(2),
    /** The figures are the largest of the class's last this many jobs' samples; 0: never down. */
    windowJobs: z.number().int().min(0).max(10_000).default(100),
  })
  .strict();

/**
 * Profiles of recurring jobs under `floored` (src/core/profiles.ts, docs/estimates.md): the
 * quantile of past errors a profiled job is judged at, and the margin on a job judged on its
 * class's figures (no history). Ignored under `paper`.
 */
const profiles = z
  .object({
    /** False: every job is judged on its class's figures as they are (no profile, no margin). */
    enabled: z.boolean().default(true),
    /** The quantile of a profile's past errors its jobs are judged at. */
    quantile: z.number().min(0.5).max(1).default(0.95),
    /** Runs kept per profile (its figures are fitted on these, so they follow it down too). */
    windowRuns: z.number().int().min(1).max(1000).default(20),
    /** Factor on a job with no profile yet, and the least one while a profile has few errors. */
    margin: z.number().min(1).max(10).default(1.25),
    /** A profile's errors known before its quantile alone sets its factor. */
    minErrorSamples: z.number().int().min(0).max(1000).default(10),
    /** Bounds of a profile's error factor. */
    minFactor: z.number().gt(0).max(1).default(0.5),
    maxFactor: z.number().min(1).max(100).default(4),
    /** Profiles kept; the one learned longest ago is dropped first. */
    maxProfiles: z.number().int().min(1).max(100_000).default(1000),
  })
  .strict()
  .refine((p) => p.maxFactor >= p.margin, { message: 'maxFactor must be >= margin', path: ['maxFactor'] });

/** How admission counts a queue's guarantee on a cluster other queues use too (docs/admission.md). */
const sharing = z
  .object({
    /**
     * Count the guaranteed containers other queues hold now, and when each comes back (true);
     * false: the guarantee is the admitted jobs' own (a cluster with no other tenants).
     */
    otherQueues: z.boolean().default(true),
    /**
     * Whether the RM's preemption takes a lent guarantee back: `rm` as the RM's /conf says
     * (not known when it hides /conf, and then counted as off); `on` or `off` as set here.
     */
    preemption: z.enum(['rm', 'on', 'off']).default('rm'),
    /** With `preemption: on`: the waits the RM runs with (Hadoop's defaults). */
    maxWaitBeforeKillMs: z.number().int().min(0).max(86_400_000).default(15_000),
    monitoringIntervalMs: z.number().int().min(1).max(86_400_000).default(3_000),
    naturalTerminationFactor: z.number().gt(0).max(1).default(0.2),
    totalPreemptionPerRound: z.number().gt(0).max(1).default(0.1),
    /** A lane is rebuilt when a held container's return moves by more than this (seconds). */
    returnQuantumSeconds: z.number().min(1).max(3600).default(15),
  })
  .strict();

const admission = z
  .object({
    policy: z.string().min(1).max(64).default('rtmr'),
    /** `unified`: one pool of containers (YARN); `mr1`: separate map and reduce slots (the papers). */
    slotModel: z.enum(['unified', 'mr1']).default('unified'),
    /** The container one task uses, to count slots on each node in the unified model. */
    containerMemoryMb: z.number().int().min(1).max(1_048_576).default(2048),
    containerVcores: z.number().int().min(1).max(1024).default(1),
    /**
     * CPU cores of a node: its vcores count as the smaller of what it advertises and this, so a
     * node that overcommits CPU (16 vcores on 2 cores) counts only the containers its cores run
     * at full speed. Unset: the advertised vcores count (docs/estimates.md).
     */
    nodeCores: z.number().int().min(1).max(1024).optional(),
    /** `nodeCores` for the nodes of one label partition, over `nodeCores`. */
    nodeCoresByLabel: z
      .record(z.string().max(256), z.number().int().min(1).max(1024))
      .refine((m) => Object.keys(m).length <= 1000, 'may name at most 1000 labels')
      .default({}),
    /** Feedback threshold DeltaT (Alg. 5.5): rebuild a job's vectors when off by more than this. */
    feedbackThresholdSeconds: z.number().min(0).max(86_400).default(30),
    /**
     * `floored` (a per-task floor plus a cost per MB, learning that resists outliers and decays)
     * or `paper` (He et al., RTMR, IV.A as printed: cost per MB only, learned upward for ever).
     */
    estimateModel: z.enum(['floored', 'paper']).default('floored'),
    /** How learning moves the estimates under `floored` (ignored under `paper`). */
    learning: learning.default(learning.parse({})),
    /** Profiles of recurring jobs: how their past errors judge them (ignored under `paper`). */
    profiles: profiles.default(profiles.parse({})),
    /**
     * Containers a job's AM holds for the job's whole life, in the `unified` slot model: 1 for
     * MapReduce (and Spark in cluster mode), 0 to leave it out. The papers' model has no AM:
     * under `estimateModel: paper` it must be 0.
     */
    amContainers: z.union([z.literal(0), z.literal(1)]).optional(),
    /**
     * Starting worst-case estimates, before any job has finished (learned from then on):
     * those of every workload class without an entry in `classEstimates`.
     */
    initialEstimates: estimatesTriple.default({ eta: 1, mapSecondsPerMb: 0.5, reduceSecondsPerMb: 0.5 }),
    /**
     * Starting estimates per workload class (a submission's `workloadClass`, else its job type
     * `cpu`, `gpu`, `adaptive`), each learned from that class's finished jobs only.
     */
    classEstimates: z
      .record(
        z
          .string()
          .max(64)
          .regex(
            WORKLOAD_CLASS_PATTERN,
            'must be 1-64 characters of a-z, 0-9, ".", "_" or "-", starting with a letter or digit',
          ),
        estimatesTriple,
      )
      .refine((m) => Object.keys(m).length <= 1000, 'may name at most 1000 classes')
      .default({}),
    /**
     * Per-queue defaults for submissions, by queue name or path (`*`: any queue without its
     * own entry). A submission without `deadline` to a queue with `deadlineSeconds` gets
     * that many seconds from its arrival; without one it is refused.
     */
    queueDefaults: z
      .record(z.string().min(1).max(256), queueDefault)
      .refine((m) => Object.keys(m).length <= 1000, 'may name at most 1000 queues')
      .default({}),
    sharing: sharing.default(sharing.parse({})),
  })
  .strict()
  .superRefine((a, ctx) => {
    // Cores below a container's vcores would count no container on any such node.
    const cores: Array<[Array<string | number>, number | undefined]> = [
      [['nodeCores'], a.nodeCores],
      ...Object.entries(a.nodeCoresByLabel).map(([label, n]): [Array<string | number>, number] => [
        ['nodeCoresByLabel', label],
        n,
      ]),
    ];
    if (Object.hasOwn(a.nodeCoresByLabel, ''))
      ctx.addIssue({
        code: 'custom',
        path: ['nodeCoresByLabel'],
        message: "names the empty label: the default partition's nodes take admission.nodeCores",
      });
    for (const [path, n] of cores)
      if (n !== undefined && n >= 1 && n < a.containerVcores)
        ctx.addIssue({
          code: 'custom',
          path,
          message: `${n} is below admission.containerVcores (${a.containerVcores}): no container would count on such a node`,
        });
    if (a.estimateModel !== 'paper') return;
    // The papers' model has no per-task floor: one given would silently be ignored.
    const entries: Array<[Array<string | number>, z.infer<typeof estimatesTriple>]> = [
      [['initialEstimates'], a.initialEstimates],
      ...Object.entries(a.classEstimates).map(
        ([c, e]): [Array<string | number>, z.infer<typeof estimatesTriple>] => [['classEstimates', c], e],
      ),
    ];
    for (const [path, e] of entries)
      for (const k of ['mapTaskSeconds', 'reduceTaskSeconds', 'setupSeconds', 'commitSeconds'] as const)
        if (e[k] !== undefined)
          ctx.addIssue({
            code: 'custom',
            path: [...path, k],
            message: k.endsWith('TaskSeconds')
              ? "is a per-task floor, which estimateModel 'paper' does not have"
              : "is a job's time outside its tasks, which estimateModel 'paper' does not count",
          });
    if (a.amContainers === 1)
      ctx.addIssue({
        code: 'custom',
        path: ['amContainers'],
        message: "counts the job's AM, which estimateModel 'paper' does not have: leave it out or 0",
      });
  });

const placement = z
  .object({
    policy: z.string().min(1).max(64).default('efh'),
    /** A YAML energy profile (energy per map task by job type and node class, idle power). */
    energyProfile: z.string().max(4096).default('config/energy-profile.yaml'),
    /** Node label to node class, for the energy profile; nodes with no label use `defaultNodeClass`. */
    nodeClassByLabel: z
      .record(z.string().max(256), z.string().max(256))
      .refine((m) => Object.keys(m).length <= 1000, 'may map at most 1000 labels')
      .default({ gpu: 'gpu' }),
    defaultNodeClass: z.string().max(256).default('cpu'),
    /** EFH's long-waiting threshold T. */
    longWaitThresholdSeconds: z.number().positive().max(604_800).default(300),
    /**
     * WebHDFS reads of a submission's input paths (rm.webHdfsAddress): one time budget for the
     * whole read, and at most this many files and blocks; past any of them dop is uniform.
     */
    localityTimeoutMs: z.number().int().min(50).max(60_000).default(2_000),
    localityMaxFiles: z.number().int().min(1).max(100_000).default(100),
    localityMaxBlocks: z.number().int().min(1).max(10_000_000).default(10_000),
  })
  .strict();

const enforcement = z
  .object({
    /** Compute, record and show everything, but write nothing to the RM. */
    shadow: z.boolean().default(false),
    priorities: z.boolean().default(true),
    lifetimeTimeouts: z.boolean().default(false),
    reservations: z.boolean().default(false),
    /** Upper bound on RM writes in one cycle, so a bug cannot flood the RM. */
    maxWritesPerCycle: z.number().int().min(1).max(10_000).default(200),
    /** How long one drain of the outbox may take before it leaves the rest for the next (ms). */
    drainBudgetMs: z.number().int().min(100).max(600_000).default(4_000),
    /** Jobs whose writes are carried out at once (each job's own writes stay in order). */
    writeConcurrency: z.number().int().min(1).max(64).default(8),
  })
  .strict();

const tickets = z
  .object({
    /**
     * How long an admitted ticket (a job admitted before its app exists) holds its capacity
     * waiting for an app carrying its tag, in seconds; then it expires and the capacity is freed.
     */
    ttlSeconds: z.number().int().min(10).max(86_400).default(600),
  })
  .strict();

const token = z
  .object({
    name: z.string().min(1).max(128),
    token: z
      .string()
      .min(16, 'must be at least 16 characters')
      .max(4096, 'must be at most 4096 characters')
      .regex(/^[\x21-\x7e]+$/, 'must be visible ASCII characters (it travels in an HTTP header)'),
  })
  .strict();

const auth = z
  .object({
    /** Bearer tokens that may submit; each has a name that the ledger records as the submitter. */
    tokens: z.array(token).max(1000, 'may list at most 1000 tokens').default([]),
    /** Whether GET /api/v1/* and the dashboard need a token too. */
    protectReads: z.boolean().default(false),
  })
  .strict();

const server = z
  .object({
    port: z.number().int().min(0).max(65535).default(8080),
    host: z.string().max(255).default('0.0.0.0'),
    /** Largest request body accepted by the API: 1 KiB to 64 MiB. */
    maxBodyBytes: z
      .number()
      .int()
      .min(1024)
      .max(64 * 1024 * 1024)
      .default(1_048_576),
  })
  .strict();

const loop = z
  .object({
    /** node-cron expression for the poll-decide-enforce cycle (six fields: seconds first). */
    pollCron: z.string().max(256).default('*/5 * * * * *'),
    /**
     * Every this many cycles the poll reads every app on the RM (the safety net of the filtered
     * reads, src/loop/app-reads.ts); 1 reads every app every cycle.
     */
    fullReadEvery: z.number().int().min(1).max(100_000).default(60),
    /**
     * Every this many cycles (and at each full read) the poll reads every followed app; the
     * cycles between read only what changed (the new apps and the apps ended since, when the
     * RM's counts moved; the followed apps waiting that run now: src/loop/app-reads.ts). The
     * default is fullReadEvery's: a live followed app is the RM's costliest report, and 500 of
     * them every minute were most of what the sidecar cost the RM. 1: every cycle.
     */
    followedReadEvery: z.number().int().min(1).max(100_000).default(60),
    /** The nodes and scheduler are read at least every this many cycles (more often when the cluster metrics' nodes change). */
    capacityReadEvery: z.number().int().min(1).max(100_000).default(12),
  })
  .strict();

/**
 * How long the ledger keeps closed jobs live (src/loop/retention.ts): past archiveAfterDays they
 * are moved to its archive, a batch at a time on the leader; past deleteAfterDays (unset: never)
 * they are deleted from it. Their totals are kept either way.
 */
const retention = z
  .object({
    /** Whether the leader archives at all. */
    enabled: z.boolean().default(true),
    /** A closed job last written this many days ago is moved to the archive. */
    archiveAfterDays: z.number().int().min(1).max(36_500).default(30),
    /** An archived job last written this many days ago is deleted; unset, none ever is. */
    deleteAfterDays: z.number().int().min(1).max(36_500).optional(),
    /** Jobs moved (or deleted) per transaction. */
    batchJobs: z.number().int().min(1).max(10_000).default(200),
    /**
     * Seconds between looks for jobs to archive once none is left; a full batch is followed by the
     * next after a pause as long as it took.
     */
    intervalSeconds: z.number().int().min(1).max(86_400).default(60),
  })
  .strict()
  .superRefine((r, ctx) => {
    if (r.deleteAfterDays !== undefined && r.deleteAfterDays <= r.archiveAfterDays)
      ctx.addIssue({
        code: 'custom',
        path: ['deleteAfterDays'],
        message: `${r.deleteAfterDays} is not more than archiveAfterDays (${r.archiveAfterDays}): a job is deleted from the archive, so it must have been archived first`,
      });
  });

const ledger = z
  .object({
    /** The embedded SQLite file (the default store); `:memory:` for tests. Unused when `url` is set. */
    path: z.string().min(1).max(4096).default('./data/ledger.db'),
    /**
     * A PostgreSQL database shared by several sidecars (`postgres://user:password@host:port/db`):
     * set, it replaces the SQLite file. Never shown: its password is redacted wherever it appears.
     */
    url: z
      .string()
      .max(4096)
      .regex(/^postgres(ql)?:\/\/[^\s]+$/, {
        message: 'must be a postgres:// (or postgresql://) URL: postgres://user:password@host:port/database',
      })
      .optional(),
    /** Connections to PostgreSQL in the pool. */
    poolSize: z.number().int().min(1).max(100).default(4),
    /**
     * How long a write waits for PostgreSQL to commit it before the API answers 503 (with
     * Retry-After) and the enforcer leaves its RM write for the next cycle; the write is kept
     * and shipped once PostgreSQL answers.
     */
    flushTimeoutMs: z.number().int().min(100).max(600_000).default(5_000),
    /** Closed jobs moved to the archive, and deleted from it (see retention above). */
    retention: retention.default(retention.parse({})),
  })
  .strict();

/** host:port[,host:port...][/chroot], as ZooKeeper's clients take it. */
const zookeeperConnect = z
  .string()
  .max(4096)
  .regex(
    /^[A-Za-z0-9.-]+:\d{1,5}(,[A-Za-z0-9.-]+:\d{1,5})*(\/[^\s]*)?$/,
    'must be host:port[,host:port...] with an optional /chroot',
  );

/**
 * Two or more sidecars beside one cluster, one of them the leader, elected through ZooKeeper
 * (src/ha/election.ts; docs/deploy.md). Needs the shared ledger (ledger.url).
 */
const ha = z
  .object({
    enabled: z.boolean().default(false),
    /** The ZooKeeper ensemble (the one YARN's RMs use for theirs will do). */
    zookeeper: zookeeperConnect.default('127.0.0.1:2181'),
    /** The sidecars' root znode: candidates under `<path>/election`. */
    path: z
      .string()
      .max(1024)
      .regex(/^(\/[A-Za-z0-9._-]+)+$/, 'must be an absolute znode path such as /yarn-sched-sidecar')
      .default('/yarn-sched-sidecar'),
    /**
     * The ZooKeeper session: a dead leader's node goes when it expires, so a takeover lands
     * within about twice this.
     */
    sessionTimeoutMs: z.number().int().min(1_000).max(120_000).default(5_000),
    /** The URL other instances and clients reach this instance's API at (the one named as leader). */
    advertiseUrl: z
      .string()
      .max(4096)
      .regex(/^https?:\/\/[^\s/]+(:\d+)?(\/.*)?$/, 'must be an http:// or https:// URL')
      .optional(),
    /** This instance's name: in its node, the ledger's fence and the RM calls' X-Sidecar-Instance header. */
    id: z
      .string()
      .max(128)
      .regex(/^[A-Za-z0-9._-]+$/, 'must be letters, digits, ".", "_" or "-"')
      .optional(),
  })
  .strict();

const log = z
  .object({
    level: z.enum(['error', 'warn', 'info', 'debug']).default('info'),
    format: z.enum(['json', 'pretty']).default('json'),
  })
  .strict();

export const configSchema = z
  .object({
    rm: rm.default(rm.parse({})),
    yarn: yarn.default(yarn.parse({})),
    admission: admission.default(admission.parse({})),
    placement: placement.default(placement.parse({})),
    enforcement: enforcement.default(enforcement.parse({})),
    tickets: tickets.default(tickets.parse({})),
    auth: auth.default(auth.parse({})),
    server: server.default(server.parse({})),
    loop: loop.default(loop.parse({})),
    ledger: ledger.default(ledger.parse({})),
    ha: ha.default(ha.parse({})),
    log: log.default(log.parse({})),
  })
  .strict();

export type SidecarConfig = z.infer<typeof configSchema>;
