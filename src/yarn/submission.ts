import { z } from 'zod';
import { ValidationError, zodIssues } from '../errors/validation';

/**
 * The YARN application submission context: the typed model, the reading of a user's
 * `yarnSubmission` (written with the RM's own field names, as in ResourceManagerRest's "Submit
 * Application" and ApplicationSubmissionContextInfo), and the body sent to `POST /apps`.
 *
 * Everything the RM accepts is kept and sent as given: the AM's launch context (command, local
 * resources, environment, service data, credentials, ACLs), max attempts and their validity
 * interval, log aggregation, keep-containers, unmanaged AM, the AM's resource and label
 * expression, the application type. The fields the sidecar decides (queue, priority, tags, the
 * app's label expression, the reservation, the id and the name) are refused in `yarnSubmission`
 * with a pointer to the top-level field, so a request never says two things.
 */

export type LocalResourceType = 'FILE' | 'ARCHIVE' | 'PATTERN';
export type LocalResourceVisibility = 'PUBLIC' | 'PRIVATE' | 'APPLICATION';

/** One file the NodeManager localises for the AM (LocalResourceInfo). */
export interface LocalResource {
  /** A URL the NodeManager can read, e.g. `hdfs://nn:8020/user/alice/app.jar`. */
  resource: string;
  type: LocalResourceType;
  visibility: LocalResourceVisibility;
  /** Bytes, as the file system reports them: the NodeManager checks it. */
  size: number;
  /** Modification time (epoch ms), as the file system reports it: the NodeManager checks it. */
  timestamp: number;
  pattern?: string;
}

/** The AM container's launch context (ContainerLaunchContextInfo). */
export interface AmLaunchContext {
  /** The AM's command line, run by the NodeManager's shell. Never empty. */
  command: string;
  localResources: Readonly<Record<string, LocalResource>>;
  environment: Readonly<Record<string, string>>;
  /** Base64 data for auxiliary services, by service name. */
  serviceData: Readonly<Record<string, string>>;
  /** Base64 tokens and secrets. Secret: never logged or shown. */
  credentials?: { tokens: Readonly<Record<string, string>>; secrets: Readonly<Record<string, string>> };
  /** `VIEW_APP` / `MODIFY_APP` to an ACL string such as `alice,bob admins`. */
  applicationAcls: Readonly<Record<string, string>>;
}

/** Which container logs the NodeManagers aggregate (LogAggregationContextInfo). */
export interface LogAggregationContext {
  logIncludePattern?: string;
  logExcludePattern?: string;
  rolledLogIncludePattern?: string;
  rolledLogExcludePattern?: string;
  policyClassName?: string;
  policyParameters?: string;
}

/** What a submitter may give of the submission context: everything but what the sidecar decides. */
export interface SubmissionRequest {
  am: AmLaunchContext;
  /** The AM container's resource; the RM's default (1024 MB, 1 vcore) when absent. */
  amResource?: { memoryMB: number; vcores: number };
  amNodeLabelExpression?: string;
  applicationType?: string;
  maxAppAttempts?: number;
  attemptFailuresValidityIntervalMs?: number;
  keepContainersAcrossApplicationAttempts?: boolean;
  unmanagedAM?: boolean;
  cancelTokensWhenComplete?: boolean;
  logAggregation?: LogAggregationContext;
}

/** The whole submission context the sidecar sends. */
export interface AppSubmission extends Omit<SubmissionRequest, 'am'> {
  applicationId: string;
  name: string;
  queue?: string;
  priority?: number;
  tags?: string[];
  /** Default label expression for every container of the app. */
  appNodeLabelExpression?: string;
  reservationId?: string;
  am: AmLaunchContext;
}

// --- reading a submitter's `yarnSubmission` -------------------------------------------------

const MAX_ENTRIES = 1000;
const MAX_TEXT = 65_536;
const text = (max = MAX_TEXT) => z.string().max(max, `may be at most ${max} characters`);

/**
 * A JAXB map, `{"entry":[{"key":…,"value":…}]}` as the RM's documentation writes it; one entry
 * may be an object instead of a one-element list. Keys are unique.
 */
function entryMap<V extends z.ZodType>(value: V) {
  const entry = z.object({ key: text(1024).min(1, 'must not be empty'), value }).strict();
  return z
    .object({
      entry: z.union([
        z.array(entry).max(MAX_ENTRIES, `may hold at most ${MAX_ENTRIES} entries`),
        entry.transform((e) => [e]),
      ]),
    })
    .strict()
    .superRefine((m, ctx) => {
      const seen = new Set<string>();
      m.entry.forEach((e, i) => {
        if (seen.has(e.key))
          ctx.addIssue({ code: 'custom', path: ['entry', i, 'key'], message: `'${e.key}' is given twice` });
        seen.add(e.key);
      });
    })
    .transform(
      (m) =>
        Object.fromEntries(m.entry.map((e) => [e.key, (e as { value: z.output<V> }).value])) as Record<
          string,
          z.output<V>
        >,
    );
}

const wholeNumber = (min: number, max: number) => z.number().int('must be a whole number').min(min).max(max);

const localResource = z
  .object({
    resource: text(4096).min(1, 'must not be empty'),
    type: z.enum(['FILE', 'ARCHIVE', 'PATTERN']),
    visibility: z.enum(['PUBLIC', 'PRIVATE', 'APPLICATION']),
    size: wholeNumber(-1, Number.MAX_SAFE_INTEGER),
    timestamp: wholeNumber(0, Number.MAX_SAFE_INTEGER),
    pattern: text(4096).optional(),
  })
  .strict();

const amContainerSpec = z
  .object({
    commands: z
      .object({
        command: text().refine((c) => c.trim().length > 0, {
          message:
            'must not be empty: the NodeManager runs it as the application master, and an app without one fails at once',
        }),
      })
      .strict(),
    'local-resources': entryMap(localResource).optional(),
    environment: entryMap(text()).optional(),
    'service-data': entryMap(text()).optional(),
    credentials: z
      .object({ tokens: entryMap(text()).optional(), secrets: entryMap(text()).optional() })
      .strict()
      .optional(),
    'application-acls': entryMap(text(4096)).optional(),
  })
  .strict();

const logAggregationContext = z
  .object({
    'log-include-pattern': text(4096).optional(),
    'log-exclude-pattern': text(4096).optional(),
    'rolled-log-include-pattern': text(4096).optional(),
    'rolled-log-exclude-pattern': text(4096).optional(),
    'log-aggregation-policy-class-name': text(1024).optional(),
    'log-aggregation-policy-parameters': text(4096).optional(),
  })
  .strict();

/** Fields the sidecar sets itself, with where the request says them instead. */
const DECIDED_BY_SIDECAR: Readonly<Record<string, string>> = {
  'application-id': 'the sidecar asks the RM for a new application id',
  'application-name': 'use the top-level field name',
  queue: 'use the top-level field queue',
  priority: 'the sidecar sets it from the EDF order',
  'application-tags': 'use the top-level field tags',
  'app-node-label-expression': 'the sidecar sets it from the partition admission chose',
  'reservation-id': 'the sidecar makes the reservation (enforcement.reservations)',
  'am-black-listing-requests': 'the RM no longer reads it (removed in YARN-4837)',
};

const submissionRequestSchema = z
  .object({
    'am-container-spec': amContainerSpec,
    resource: z
      .object({ memory: wholeNumber(1, 1 << 30), vCores: wholeNumber(1, 1 << 20) })
      .strict()
      .optional(),
    'am-container-node-label-expression': text(1024).optional(),
    'application-type': text(256).min(1, 'must not be empty').optional(),
    'max-app-attempts': wholeNumber(1, 1000).optional(),
    'attempt-failures-validity-interval': wholeNumber(-1, Number.MAX_SAFE_INTEGER).optional(),
    'keep-containers-across-application-attempts': z.boolean().optional(),
    'unmanaged-AM': z.boolean().optional(),
    'cancel-tokens-when-complete': z.boolean().optional(),
    'log-aggregation-context': logAggregationContext.optional(),
  })
  .strict();

/**
 * A submitter's `yarnSubmission` (RM field names) as the typed request. Every problem is a
 * ValidationError issue whose path starts with `yarnSubmission`.
 */
export function parseSubmissionRequest(raw: unknown, path = 'yarnSubmission'): SubmissionRequest {
  const issues: Array<{ path: string; message: string }> = [];
  if (raw !== null && typeof raw === 'object' && !Array.isArray(raw)) {
    for (const [key, why] of Object.entries(DECIDED_BY_SIDECAR)) {
      if (Object.hasOwn(raw, key))
        issues.push({ path: `${path}.${key}`, message: `is not accepted: ${why}` });
    }
  }
  const withoutDecided =
    raw !== null && typeof raw === 'object' && !Array.isArray(raw)
      ? Object.fromEntries(Object.entries(raw).filter(([k]) => !Object.hasOwn(DECIDED_BY_SIDECAR, k)))
      : raw;
  const parsed = submissionRequestSchema.safeParse(withoutDecided);
  if (!parsed.success) {
    issues.push(...zodIssues(parsed.error, { noun: 'field', prefix: path }));
  }
  if (issues.length > 0 || !parsed.success) throw new ValidationError(issues);
  const r = parsed.data;
  const spec = r['am-container-spec'];
  const out: SubmissionRequest = {
    am: {
      command: spec.commands.command,
      localResources: spec['local-resources'] ?? {},
      environment: spec.environment ?? {},
      serviceData: spec['service-data'] ?? {},
      applicationAcls: spec['application-acls'] ?? {},
      ...(spec.credentials
        ? { credentials: { tokens: spec.credentials.tokens ?? {}, secrets: spec.credentials.secrets ?? {} } }
        : {}),
    },
  };
  if (r.resource) out.amResource = { memoryMB: r.resource.memory, vcores: r.resource.vCores };
  if (r['am-container-node-label-expression'] !== undefined)
    out.amNodeLabelExpression = r['am-container-node-label-expression'];
  if (r['application-type'] !== undefined) out.applicationType = r['application-type'];
  if (r['max-app-attempts'] !== undefined) out.maxAppAttempts = r['max-app-attempts'];
  if (r['attempt-failures-validity-interval'] !== undefined)
    out.attemptFailuresValidityIntervalMs = r['attempt-failures-validity-interval'];
  if (r['keep-containers-across-application-attempts'] !== undefined)
    out.keepContainersAcrossApplicationAttempts = r['keep-containers-across-application-attempts'];
  if (r['unmanaged-AM'] !== undefined) out.unmanagedAM = r['unmanaged-AM'];
  if (r['cancel-tokens-when-complete'] !== undefined)
    out.cancelTokensWhenComplete = r['cancel-tokens-when-complete'];
  const la = r['log-aggregation-context'];
  if (la) {
    out.logAggregation = {
      ...(la['log-include-pattern'] !== undefined ? { logIncludePattern: la['log-include-pattern'] } : {}),
      ...(la['log-exclude-pattern'] !== undefined ? { logExcludePattern: la['log-exclude-pattern'] } : {}),
      ...(la['rolled-log-include-pattern'] !== undefined
        ? { rolledLogIncludePattern: la['rolled-log-include-pattern'] }
        : {}),
      ...(la['rolled-log-exclude-pattern'] !== undefined
        ? { rolledLogExcludePattern: la['rolled-log-exclude-pattern'] }
        : {}),
      ...(la['log-aggregation-policy-class-name'] !== undefined
        ? { policyClassName: la['log-aggregation-policy-class-name'] }
        : {}),
      ...(la['log-aggregation-policy-parameters'] !== undefined
        ? { policyParameters: la['log-aggregation-policy-parameters'] }
        : {}),
    };
  }
  return out;
}

/** The request with its secrets replaced, for answers, logs and the dashboard. */
export function redactSubmissionRequest(r: SubmissionRequest): SubmissionRequest {
  if (!r.am.credentials) return r;
  const hide = (m: Readonly<Record<string, string>>) =>
    Object.fromEntries(Object.keys(m).map((k) => [k, '[redacted]']));
  return {
    ...r,
    am: {
      ...r.am,
      credentials: { tokens: hide(r.am.credentials.tokens), secrets: hide(r.am.credentials.secrets) },
    },
  };
}

// --- the body sent to the RM ----------------------------------------------------------------

function entries<V>(map: Readonly<Record<string, V>>): { entry: Array<{ key: string; value: V }> } {
  return { entry: Object.entries(map).map(([key, value]) => ({ key, value })) };
}

function launchContextContent(am: AmLaunchContext): Record<string, unknown> {
  const spec: Record<string, unknown> = { commands: { command: am.command } };
  if (Object.keys(am.localResources).length > 0) {
    spec['local-resources'] = entries(
      Object.fromEntries(
        Object.entries(am.localResources).map(([k, r]) => [
          k,
          {
            resource: r.resource,
            type: r.type,
            visibility: r.visibility,
            size: r.size,
            timestamp: r.timestamp,
            ...(r.pattern === undefined ? {} : { pattern: r.pattern }),
          },
        ]),
      ),
    );
  }
  if (Object.keys(am.environment).length > 0) spec.environment = entries(am.environment);
  if (Object.keys(am.serviceData).length > 0) spec['service-data'] = entries(am.serviceData);
  if (am.credentials) {
    spec.credentials = { tokens: entries(am.credentials.tokens), secrets: entries(am.credentials.secrets) };
  }
  if (Object.keys(am.applicationAcls).length > 0) spec['application-acls'] = entries(am.applicationAcls);
  return spec;
}

/**
 * The submission context with the field names of ApplicationSubmissionContextInfo (INDEX.md
 * 9.4), in the order the RM's documentation lists them. Tags go as `{"tag":[…]}`, which the
 * real RM reads in JSON as in XML (test/hadoop).
 */
export function submissionContent(s: AppSubmission): Record<string, unknown> {
  const body: Record<string, unknown> = {
    'application-id': s.applicationId,
    'application-name': s.name,
  };
  if (s.queue !== undefined) body.queue = s.queue;
  if (s.priority !== undefined) body.priority = s.priority;
  body['am-container-spec'] = launchContextContent(s.am);
  if (s.unmanagedAM !== undefined) body['unmanaged-AM'] = s.unmanagedAM;
  if (s.cancelTokensWhenComplete !== undefined)
    body['cancel-tokens-when-complete'] = s.cancelTokensWhenComplete;
  if (s.maxAppAttempts !== undefined) body['max-app-attempts'] = s.maxAppAttempts;
  if (s.amResource) body.resource = { memory: s.amResource.memoryMB, vCores: s.amResource.vcores };
  body['application-type'] = s.applicationType ?? 'YARN';
  if (s.keepContainersAcrossApplicationAttempts !== undefined) {
    body['keep-containers-across-application-attempts'] = s.keepContainersAcrossApplicationAttempts;
  }
  if (s.tags && s.tags.length > 0) body['application-tags'] = { tag: s.tags };
  if (s.appNodeLabelExpression !== undefined) body['app-node-label-expression'] = s.appNodeLabelExpression;
  if (s.amNodeLabelExpression !== undefined)
    body['am-container-node-label-expression'] = s.amNodeLabelExpression;
  const la = s.logAggregation;
  if (la) {
    const ctx: Record<string, unknown> = {};
    if (la.logIncludePattern !== undefined) ctx['log-include-pattern'] = la.logIncludePattern;
    if (la.logExcludePattern !== undefined) ctx['log-exclude-pattern'] = la.logExcludePattern;
    if (la.rolledLogIncludePattern !== undefined)
      ctx['rolled-log-include-pattern'] = la.rolledLogIncludePattern;
    if (la.rolledLogExcludePattern !== undefined)
      ctx['rolled-log-exclude-pattern'] = la.rolledLogExcludePattern;
    if (la.policyClassName !== undefined) ctx['log-aggregation-policy-class-name'] = la.policyClassName;
    if (la.policyParameters !== undefined) ctx['log-aggregation-policy-parameters'] = la.policyParameters;
    body['log-aggregation-context'] = ctx;
  }
  if (s.attemptFailuresValidityIntervalMs !== undefined)
    body['attempt-failures-validity-interval'] = s.attemptFailuresValidityIntervalMs;
  if (s.reservationId !== undefined) body['reservation-id'] = s.reservationId;
  return body;
}

/** A launch context of a command alone (no files, environment or credentials). */
export function amCommand(command: string): AmLaunchContext {
  return { command, localResources: {}, environment: {}, serviceData: {}, applicationAcls: {} };
}
