import { DEFAULT_RECENT_CLASSES } from '../core/cost-distribution';
import { RESERVED_TAG_KEYS } from '../yarn/tags';
import { SUBMISSION_LIMITS as L } from './submission';

/**
 * OpenAPI 3.1 description of the sidecar's HTTP API, served at /api/v1/openapi.json.
 * test/api/api.test.ts checks that every route the app serves is described here.
 */
const error = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message'],
      properties: {
        code: { type: 'string', examples: ['VALIDATION_FAILED', 'UNAUTHORIZED'] },
        message: { type: 'string' },
        issues: {
          type: 'array',
          items: {
            type: 'object',
            properties: { path: { type: 'string' }, message: { type: 'string' } },
          },
        },
      },
    },
  },
} as const;

const errorResponse = (description: string) => ({
  description,
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
});

export const openApiDocument = {
  openapi: '3.1.0',
  info: {
    title: 'yarn-sched-sidecar',
    version: '1',
    description:
      'Deadline admission control for Hadoop YARN. Submit a deadline job and get an immediate answer: admitted with an estimated finish, or rejected with the reason and the earliest deadline that would be admitted now.',
  },
  components: {
    securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
    schemas: {
      Error: error,
      Submission: {
        type: 'object',
        required: ['name', 'user', 'maps', 'reduces'],
        additionalProperties: false,
        properties: {
          name: { type: 'string', minLength: 1, maxLength: L.maxNameLength },
          user: { type: 'string', maxLength: L.maxUserLength, pattern: '^[A-Za-z0-9._@-]+$' },
          deadline: {
            oneOf: [
              {
                type: 'string',
                format: 'date-time',
                description: `absolute deadline with a zone, a real calendar date, at most ${L.deadlineHorizonSeconds} s (366 days) from now`,
              },
              {
                type: 'number',
                exclusiveMinimum: 0,
                maximum: L.deadlineHorizonSeconds,
                description: 'seconds from now',
              },
            ],
            description:
              "required unless the job's queue has a default deadline (admission.queueDefaults); without one a missing deadline is a 400 naming this field",
          },
          maps: { type: 'integer', minimum: 1, maximum: L.maxMaps },
          reduces: { type: 'integer', minimum: 1, maximum: L.maxReduces },
          inputBytes: {
            type: 'number',
            minimum: 0,
            maximum: L.maxInputBytes,
            description:
              "required unless inputPaths are given: then it may be left out and is read from the files' lengths (WebHDFS)",
          },
          splitBytes: {
            type: 'array',
            maxItems: L.maxMaps,
            items: { type: 'number', minimum: 0, maximum: L.maxInputBytes },
            description: 'one per map',
          },
          jobType: { enum: ['cpu', 'gpu', 'adaptive'], default: 'cpu' },
          workloadClass: {
            type: 'string',
            pattern: '^[a-z0-9][a-z0-9._-]{0,63}$',
            description:
              'the workload class whose worst-case estimates judge the job (default: its jobType); for recurring jobs whose cost per MB differs from the rest of their type. Sent to the RM as the tag class:NAME',
          },
          queue: {
            type: 'string',
            maxLength: L.maxQueueLength,
            description: 'defaults to the real-time queue',
          },
          inputPaths: {
            type: 'array',
            maxItems: L.maxInputPaths,
            items: { type: 'string', maxLength: L.maxInputPathLength },
            description:
              'absolute HDFS paths (files, or directories read one level down); with WebHDFS configured, their block locations give the data locality (dop) of each partition; a path that does not exist is a 400',
          },
          tags: {
            type: 'array',
            description: `Application tags of your own. YARN allows 10 per app and the sidecar writes 6 (7 with workloadClass), so at most 4 (3); each at most 100 printable ASCII characters, no comma. The sidecar's own keys (${RESERVED_TAG_KEYS.map((k) => `${k}:`).join(', ')}, in any case) are refused with a 400 naming the tag.`,
            maxItems: 4,
            items: { type: 'string', maxLength: 100 },
          },
          yarnSubmission: {
            type: 'object',
            description:
              "The RM's submission context with the RM's field names (ResourceManager REST API, Submit Application): am-container-spec (commands.command required and non-empty; local-resources, environment, service-data, credentials, application-acls), resource, am-container-node-label-expression, application-type, max-app-attempts, attempt-failures-validity-interval, keep-containers-across-application-attempts, unmanaged-AM, cancel-tokens-when-complete, log-aggregation-context. Required unless dryRun. The sidecar sets application-id, application-name, queue, priority, application-tags, app-node-label-expression and reservation-id itself and refuses them here. Credentials are kept for the RM and never shown.",
            required: ['am-container-spec'],
          },
          resubmitIfLost: {
            type: 'boolean',
            default: false,
            description:
              'when the RM loses the app (an RM restarted without recovery), decide the job again for the time left and submit it again if admitted; otherwise it is marked lost',
          },
          dryRun: { type: 'boolean', default: false, description: 'decide without recording or submitting' },
        },
      },
      Answer: {
        type: 'object',
        required: ['id', 'decision'],
        properties: {
          id: { type: 'string' },
          decision: { enum: ['admitted', 'rejected'] },
          deadline: { type: 'string', format: 'date-time' },
          estimatedFinish: { type: 'string', format: 'date-time' },
          slackSeconds: { type: 'number' },
          position: { type: 'integer', description: 'place in the EDF queue, 1 = first' },
          queue: { type: 'string' },
          priority: { type: 'integer' },
          label: { type: ['string', 'null'] },
          energyJoules: {
            type: ['number', 'null'],
            description:
              "estimated energy of the job's map tasks in the chosen partition, from the energy profile; null without a profile whose energies are in kWh",
          },
          reason: {
            type: 'object',
            description: 'why a job was rejected: which job would miss its deadline, and by how much',
            properties: {
              kind: { type: 'string' },
              message: { type: 'string' },
              jobId: { type: 'string' },
              lateBySeconds: { type: 'number' },
              partition: {
                type: ['string', 'null'],
                description:
                  'the label partition the rejection was judged in; null for the default partition (as `label`)',
              },
            },
          },
          earliestAdmissibleDeadline: { type: ['string', 'null'], format: 'date-time' },
          earliestAdmissibleDeadlineNote: {
            type: 'string',
            description:
              'with a null earliestAdmissibleDeadline after a search: no deadline within the horizon searched (366 days) would be admitted now',
          },
          placement: {
            type: 'object',
            description:
              'why the partition was chosen: `locality` (`known`, `uniform (...)` or `unavailable (<reason>)`), and per partition tried, best first, `label`, `dop` (share of the input with a replica there), `ef` (1 / energy of a map task; null without an energy profile) and `h` = ef * dop; `input` summarises what WebHDFS listed',
          },
          inputBytes: { type: 'number', description: "only when read from the input files' lengths" },
          inputBytesFrom: { enum: ['inputPaths'], description: 'present when inputBytes was derived' },
          deadlineSource: {
            enum: ['request', 'queue-default'],
            description: "whether the deadline came from the request or from the queue's default",
          },
          defaultDeadlineSeconds: {
            type: 'number',
            description:
              "the queue's default applied (seconds from arrival), with deadlineSource queue-default",
          },
          workloadClass: {
            type: 'string',
            description: 'the workload class the job was judged with: its workloadClass, else its jobType',
          },
          estimates: {
            $ref: '#/components/schemas/Triple',
            description: "that class's worst-case figures at the decision",
          },
          dryRun: { type: 'boolean' },
        },
      },
      Triple: {
        type: 'object',
        description: 'worst-case estimates of one workload class (seed 000 IV.A)',
        properties: {
          eta: { type: 'number', description: 'intermediate/input ratio' },
          mapCostMax: { type: 'number', description: 'c_m^max, seconds per MB of a map task' },
          reduceCostMax: { type: 'number', description: 'c_r^max, seconds per MB of a reduce task' },
        },
      },
      CostDistribution: {
        type: 'object',
        description:
          'Observed unit costs of one stage (seconds per MB), quantiles within quantileRelativeError of the exact nearest-rank ones',
        properties: {
          count: { type: 'integer' },
          min: { type: ['number', 'null'] },
          max: { type: ['number', 'null'] },
          mean: { type: ['number', 'null'] },
          p50: { type: ['number', 'null'] },
          p90: { type: ['number', 'null'] },
          p99: { type: ['number', 'null'] },
          zeros: { type: 'integer', description: 'tasks that took no measurable time' },
          histogram: {
            type: 'array',
            description: 'log-spaced bins, at most 24',
            items: {
              type: 'object',
              properties: {
                from: { type: 'number', description: 'exclusive' },
                to: { type: 'number', description: 'inclusive' },
                count: { type: 'integer' },
              },
            },
          },
        },
      },
      StageCosts: {
        type: 'object',
        properties: {
          learnedWorstCase: { type: 'number', description: 'c^max, what admission plans each task with' },
          observed: { $ref: '#/components/schemas/CostDistribution' },
          worstCaseOverP50: {
            type: ['number', 'null'],
            description: 'how far the worst case sits above the median task',
          },
          observedMaxOverP50: {
            type: ['number', 'null'],
            description: 'the slowest task over the median one',
          },
        },
      },
      Estimates: {
        type: 'object',
        properties: {
          scope: { const: 'class', description: 'figures and distributions are per workload class' },
          unit: { const: 'seconds per MB' },
          quantileRelativeError: { type: 'number' },
          jobs: {
            type: 'integer',
            description: 'finished jobs observed in all, including those of classes no longer kept',
          },
          mostObserved: {
            type: ['string', 'null'],
            description:
              'the class with the most observed jobs (the dashboard shows it first); null before any',
          },
          classes: {
            type: 'array',
            description: `per workload class, the default (\`*\`, every class without figures of its own) first, then by name: the figures admission plans with and the distribution of its own finished tasks against them. A distribution is kept for \`*\`, the job types (cpu, gpu, adaptive), the configured classes (admission.classEstimates) and the ${DEFAULT_RECENT_CLASSES} most recently seen others; a class dropped for a newer one keeps its figures and starts a new distribution when it runs again`,
            items: {
              type: 'object',
              properties: {
                workloadClass: { type: 'string' },
                ownFigures: {
                  type: 'boolean',
                  description: "false when the class is judged with the default's figures",
                },
                eta: { type: 'number' },
                mapSecondsPerMb: { type: 'number' },
                reduceSecondsPerMb: { type: 'number' },
                jobs: { type: 'integer', description: 'finished jobs of this class in its distribution' },
                map: {
                  $ref: '#/components/schemas/StageCosts',
                  description: "the class's distribution beside its own worst case",
                },
                reduce: { $ref: '#/components/schemas/StageCosts' },
              },
            },
          },
        },
      },
    },
  },
  paths: {
    '/api/v1/jobs': {
      post: {
        summary: 'Submit a deadline job',
        security: [{ bearer: [] }],
        parameters: [
          {
            name: 'Idempotency-Key',
            in: 'header',
            required: false,
            schema: { type: 'string', maxLength: 200 },
            description:
              'a retried request with the same key returns the first answer and submits nothing new',
          },
        ],
        requestBody: {
          required: true,
          content: { 'application/json': { schema: { $ref: '#/components/schemas/Submission' } } },
        },
        responses: {
          '201': {
            description: 'admitted (a dry run too)',
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Answer' } } },
          },
          '200': {
            description: 'rejected (a dry run too)',
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Answer' } } },
          },
          '400': errorResponse(
            'VALIDATION_FAILED (invalid fields or a value past its bound; `issues` names each field and the limit), INVALID_JSON, JSON_TOO_DEEP (arrays and objects nested more than 32 levels) or MALFORMED_REQUEST',
          ),
          '401': errorResponse('no or wrong bearer token'),
          '413': errorResponse('body too large (server.maxBodyBytes)'),
          '415': errorResponse('not application/json, a charset other than UTF-8, or any Content-Encoding'),
          '422': errorResponse('Idempotency-Key reused with a different body'),
          '500': errorResponse('INTERNAL: a bug, logged with its component; the answer says nothing more'),
        },
      },
      get: {
        summary: 'List jobs, newest first',
        parameters: ['decision', 'state', 'queue', 'user', 'limit', 'offset'].map((name) => ({
          name,
          in: 'query',
          required: false,
          schema: { type: name === 'limit' || name === 'offset' ? 'integer' : 'string' },
        })),
        responses: { '200': { description: '{jobs, total}' }, '400': errorResponse('bad filter') },
      },
    },
    '/api/v1/jobs/{id}': {
      get: {
        summary: 'One job: decision, reason, estimates and the timeline of RM actions',
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
        responses: {
          '200': { description: 'the job' },
          '400': errorResponse('MALFORMED_REQUEST: a malformed %-escape in the id'),
          '404': errorResponse('no such job'),
        },
      },
    },
    '/api/v1/cluster': {
      get: {
        summary: 'The cluster as last read from the RM, per label partition',
        responses: {
          '200': {
            description:
              'snapshot; admission.estimates holds the worst-case figures per workload class: `default` (every class without its own) and `classes` (name to {eta, mapCostMax, reduceCostMax})',
          },
        },
      },
    },
    '/api/v1/estimates': {
      get: {
        summary:
          'The learned worst-case task costs per workload class, each beside the observed distribution of its own finished tasks',
        responses: {
          '200': {
            description: 'estimates',
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Estimates' } } },
          },
        },
      },
    },
    '/api/v1/estimates/{workloadClass}/reset': {
      post: {
        summary:
          'Forget what one workload class learned: its jobs are judged with its configured figures again (docs/estimates.md)',
        description:
          "Drops the class's learned figures and samples from the ledger, rebuilds the admission lanes with the configured figures and records who reset it. Resetting a class that learned nothing changes nothing (hadLearned false). No body.",
        security: [{ bearer: [] }],
        parameters: [{ name: 'workloadClass', in: 'path', required: true, schema: { type: 'string' } }],
        responses: {
          '200': {
            description:
              '{workloadClass, hadLearned, before, after}; before and after are {eta, mapSecondsPerMb, reduceSecondsPerMb, mapTaskSeconds, reduceTaskSeconds}',
          },
          '400': errorResponse(
            'VALIDATION_FAILED: not a workload class name; MALFORMED_REQUEST: a malformed %-escape',
          ),
          '401': errorResponse('no or wrong bearer token'),
        },
      },
    },
    '/api/v1/stats': {
      get: {
        summary:
          'Samples over time: accept ratio, deadline success ratio, utilisation per label partition, energy',
        responses: { '200': { description: '{samples: StatsSample[]}' } },
      },
    },
    '/api/v1/openapi.json': {
      get: { summary: 'This document', responses: { '200': { description: 'OpenAPI' } } },
    },
    '/healthz': { get: { summary: 'The process is up', responses: { '200': { description: 'ok' } } } },
    '/readyz': {
      get: {
        summary: 'Ready only while the RM answers',
        description:
          'Open to probes. With auth.protectReads, a caller without a token gets the status and the kind of failure only (no error text, no address); with a token, the details.',
        responses: { '200': { description: 'ready' }, '503': { description: 'not ready, with the reason' } },
      },
    },
    '/metrics': {
      get: { summary: 'Prometheus metrics', responses: { '200': { description: 'text format' } } },
    },
    '/': { get: { summary: 'The jobs page', responses: { '200': { description: 'HTML' } } } },
  },
} as const;
