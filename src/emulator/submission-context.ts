import type { Node } from '../yarn/coerce';

/**
 * The application submission context as the emulated RM received it (`POST /ws/v1/cluster/apps`,
 * ApplicationSubmissionContextInfo): every field the RM reads, kept as given, so a test can
 * assert what a client sent (`GET /_emulator/apps/{appid}/submission`, or
 * `EmulatedRm.submissionOf`). The app report echoes part of it the way the RM does (rm-app.ts).
 *
 * Read the way the RM's JAXB binding reads it: JSON with or without the root member, XML with
 * it; a map is `{"entry":[{"key":…,"value":…}]}` (one entry may come as an object); tags count
 * only as `{"tag":[…]}` (a JSON string there is ignored, as Jersey ignores it: measured on 3.4.3).
 */

/** One file the NodeManager would localise for the AM (LocalResourceInfo). */
export interface LocalResourceSpec {
  resource?: string;
  type?: string;
  visibility?: string;
  size?: number;
  timestamp?: number;
  pattern?: string;
}

/** The AM container's launch context (ContainerLaunchContextInfo). */
export interface AmContainerSpec {
  /** `commands.command`; undefined when the body has none. */
  command: string | undefined;
  localResources: Record<string, LocalResourceSpec>;
  environment: Record<string, string>;
  serviceData: Record<string, string>;
  credentials: { tokens: Record<string, string>; secrets: Record<string, string> } | undefined;
  applicationAcls: Record<string, string>;
}

export interface SubmissionContext {
  applicationId: string | undefined;
  applicationName: string | undefined;
  queue: string | undefined;
  priority: number | undefined;
  amContainerSpec: AmContainerSpec;
  unmanagedAM: boolean;
  maxAppAttempts: number | undefined;
  /** The AM's resource; undefined when the body gives none. */
  resource: { memoryMB: number; vcores: number } | undefined;
  applicationType: string | undefined;
  keepContainersAcrossApplicationAttempts: boolean;
  /** As given (case kept); the RM stores them lower-cased (AppRecord.tags). */
  applicationTags: string[];
  appNodeLabelExpression: string | undefined;
  amContainerNodeLabelExpression: string | undefined;
  /** `log-aggregation-context`, by its field names; undefined when absent. */
  logAggregationContext: Record<string, string> | undefined;
  attemptFailuresValidityInterval: number | undefined;
  reservationId: string | undefined;
  cancelTokensWhenComplete: boolean | undefined;
}

/** Overrides of a context: any field, and any part of the AM's launch context. */
export type SubmissionContextOverrides = Partial<Omit<SubmissionContext, 'amContainerSpec'>> & {
  amContainerSpec?: Partial<AmContainerSpec>;
};

/** A context with every field at the value the RM gets when a body leaves it out. */
export function submissionContext(over: SubmissionContextOverrides = {}): SubmissionContext {
  const { amContainerSpec, ...rest } = over;
  return {
    applicationId: undefined,
    applicationName: undefined,
    queue: undefined,
    priority: undefined,
    unmanagedAM: false,
    maxAppAttempts: undefined,
    resource: undefined,
    applicationType: undefined,
    keepContainersAcrossApplicationAttempts: false,
    applicationTags: [],
    appNodeLabelExpression: undefined,
    amContainerNodeLabelExpression: undefined,
    logAggregationContext: undefined,
    attemptFailuresValidityInterval: undefined,
    reservationId: undefined,
    cancelTokensWhenComplete: undefined,
    ...rest,
    amContainerSpec: {
      command: undefined,
      localResources: {},
      environment: {},
      serviceData: {},
      credentials: undefined,
      applicationAcls: {},
      ...amContainerSpec,
    },
  };
}

/** A JAXB map's entries: `{entry: [...]}` or `{entry: {...}}`, each `{key, value}`. */
function entries<V>(n: Node, value: (v: Node) => V): Record<string, V> {
  const out: Record<string, V> = {};
  for (const e of n.get('entry').list()) {
    const key = e.get('key').optStr();
    if (key !== undefined) out[key] = value(e.get('value'));
  }
  return out;
}

const text = (n: Node): string => (n.present ? String(n.value as string | number | boolean) : '');

function localResource(n: Node): LocalResourceSpec {
  const out: LocalResourceSpec = {};
  const s = (k: 'resource' | 'type' | 'visibility' | 'pattern') => {
    const v = n.get(k).optStr();
    if (v !== undefined) out[k] = v;
  };
  s('resource');
  s('type');
  s('visibility');
  s('pattern');
  const size = n.get('size').optNum();
  if (size !== undefined) out.size = size;
  const timestamp = n.get('timestamp').optNum();
  if (timestamp !== undefined) out.timestamp = timestamp;
  return out;
}

const LOG_AGGREGATION_FIELDS = [
  'log-include-pattern',
  'log-exclude-pattern',
  'rolled-log-include-pattern',
  'rolled-log-exclude-pattern',
  'log-aggregation-policy-class-name',
  'log-aggregation-policy-parameters',
];

/** The context from a body's root (`application-submission-context`, unwrapped). */
export function readSubmissionContext(n: Node): SubmissionContext {
  const spec = n.get('am-container-spec');
  const commands = spec.get('commands');
  const creds = spec.get('credentials');
  const resource = n.get('resource');
  const tags = n.get('application-tags');
  const la = n.get('log-aggregation-context');
  const optInt = (k: string) => (n.get(k).present && n.get(k).value !== '' ? n.get(k).int() : undefined);
  const optBool = (k: string) => (n.get(k).present && n.get(k).value !== '' ? n.get(k).bool() : undefined);
  return submissionContext({
    applicationId: n.get('application-id').optStr(),
    applicationName: n.get('application-name').optStr(),
    queue: n.get('queue').optStr(),
    priority: optInt('priority'),
    amContainerSpec: {
      command: commands.present ? commands.get('command').optStr() : undefined,
      localResources: entries(spec.get('local-resources'), localResource),
      environment: entries(spec.get('environment'), text),
      serviceData: entries(spec.get('service-data'), text),
      credentials: creds.present
        ? { tokens: entries(creds.get('tokens'), text), secrets: entries(creds.get('secrets'), text) }
        : undefined,
      applicationAcls: entries(spec.get('application-acls'), text),
    },
    unmanagedAM: optBool('unmanaged-AM') ?? false,
    maxAppAttempts: optInt('max-app-attempts'),
    resource: resource.present
      ? { memoryMB: resource.get('memory').numOr(0), vcores: resource.get('vCores').numOr(0) }
      : undefined,
    applicationType: n.get('application-type').optStr(),
    keepContainersAcrossApplicationAttempts: optBool('keep-containers-across-application-attempts') ?? false,
    // `{"tag":[…]}` (or one tag as a string); a bare string or list is not bound by JAXB.
    applicationTags:
      tags.value !== null && typeof tags.value === 'object' && !Array.isArray(tags.value)
        ? tags.get('tag').strings()
        : [],
    appNodeLabelExpression: n.get('app-node-label-expression').optStr(),
    amContainerNodeLabelExpression: n.get('am-container-node-label-expression').optStr(),
    logAggregationContext: la.present
      ? Object.fromEntries(
          LOG_AGGREGATION_FIELDS.filter((k) => la.get(k).present).map((k) => [k, text(la.get(k))]),
        )
      : undefined,
    attemptFailuresValidityInterval: optInt('attempt-failures-validity-interval'),
    reservationId: n.get('reservation-id').optStr(),
    cancelTokensWhenComplete: optBool('cancel-tokens-when-complete'),
  });
}
