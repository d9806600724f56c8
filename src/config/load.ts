import { readFileSync } from 'node:fs';
import cron from 'node-cron';
import YAML from 'yaml';
import { defaultRegistry } from '../core/registry';
import { ValidationError, zodIssues, type ValidationIssue } from '../errors/validation';
import { splitList } from '../yarn/coerce';
import { configSchema, type SidecarConfig } from './schema';

/**
 * Environment variables that override one value each; docs/configuration.md lists them.
 * Values are strings; `parse` turns each into the type its key expects.
 */
export const ENV_OVERRIDES: ReadonlyArray<{
  env: string;
  path: readonly string[];
  parse: (raw: string) => unknown;
}> = [
  { env: 'YSS_RM_ADDRESSES', path: ['rm', 'addresses'], parse: (v) => splitList(v) },
  { env: 'YSS_JOB_HISTORY_ADDRESS', path: ['rm', 'jobHistoryAddress'], parse: (v) => v },
  { env: 'YSS_RM_USER', path: ['rm', 'user'], parse: (v) => v },
  { env: 'YSS_RM_FORMAT', path: ['rm', 'format'], parse: (v) => v },
  { env: 'YSS_RM_CA_FILE', path: ['rm', 'caFile'], parse: (v) => v },
  { env: 'YSS_SHADOW', path: ['enforcement', 'shadow'], parse: parseBool },
  { env: 'YSS_PORT', path: ['server', 'port'], parse: parseNumber },
  { env: 'YSS_HOST', path: ['server', 'host'], parse: (v) => v },
  { env: 'YSS_LEDGER_PATH', path: ['ledger', 'path'], parse: (v) => v },
  { env: 'YSS_LEDGER_URL', path: ['ledger', 'url'], parse: (v) => v },
  { env: 'YSS_LEDGER_POOL_SIZE', path: ['ledger', 'poolSize'], parse: parseNumber },
  { env: 'YSS_LEDGER_FLUSH_TIMEOUT_MS', path: ['ledger', 'flushTimeoutMs'], parse: parseNumber },
  { env: 'YSS_LOG_LEVEL', path: ['log', 'level'], parse: (v) => v },
  { env: 'YSS_LOG_FORMAT', path: ['log', 'format'], parse: (v) => v },
  { env: 'YSS_POLL_CRON', path: ['loop', 'pollCron'], parse: (v) => v },
  { env: 'YSS_ADMISSION_POLICY', path: ['admission', 'policy'], parse: (v) => v },
  { env: 'YSS_TOKENS', path: ['auth', 'tokens'], parse: parseTokens },
  { env: 'YSS_HA_ENABLED', path: ['ha', 'enabled'], parse: parseBool },
  { env: 'YSS_HA_ZOOKEEPER', path: ['ha', 'zookeeper'], parse: (v) => v },
  { env: 'YSS_HA_PATH', path: ['ha', 'path'], parse: (v) => v },
  { env: 'YSS_HA_SESSION_TIMEOUT_MS', path: ['ha', 'sessionTimeoutMs'], parse: parseNumber },
  { env: 'YSS_HA_ADVERTISE_URL', path: ['ha', 'advertiseUrl'], parse: (v) => v },
  { env: 'YSS_HA_ID', path: ['ha', 'id'], parse: (v) => v },
  {
    env: 'YSS_QUEUE_DEFAULT_DEADLINES',
    path: ['admission', 'queueDefaults'],
    parse: parseQueueDeadlines,
  },
];

function parseBool(v: string): unknown {
  if (/^(1|true|yes|on)$/i.test(v)) return true;
  if (/^(0|false|no|off)$/i.test(v)) return false;
  return v; // left as a string so validation names the key
}

function parseNumber(v: string): unknown {
  const n = Number(v);
  return v.trim() !== '' && Number.isFinite(n) ? n : v;
}

/** `name:token,name2:token2` */
function parseTokens(v: string): unknown {
  return splitList(v).map((pair) => {
    const at = pair.indexOf(':');
    return at < 0 ? { name: pair, token: '' } : { name: pair.slice(0, at), token: pair.slice(at + 1) };
  });
}

/**
 * `queue:seconds,queue2:seconds` (`*` for any other queue) -> admission.queueDefaults; the
 * whole map is replaced, as YSS_TOKENS replaces the token list. A pair without `:` keeps an
 * empty value, so validation names the queue.
 */
function parseQueueDeadlines(v: string): unknown {
  const out: Record<string, { deadlineSeconds: unknown }> = {};
  for (const pair of splitList(v)) {
    const at = pair.lastIndexOf(':');
    const queue = at < 0 ? pair : pair.slice(0, at).trim();
    out[queue] = { deadlineSeconds: at < 0 ? '' : parseNumber(pair.slice(at + 1).trim()) };
  }
  return out;
}

export interface LoadOptions {
  /** Environment to read overrides from (defaults to none, so tests are hermetic). */
  env?: Record<string, string | undefined>;
  /** Policy names the registry knows, to reject an unknown one at start. */
  knownAdmissionPolicies?: readonly string[];
  knownPlacementPolicies?: readonly string[];
}

/** Read a YAML file and build the configuration from it; see `buildConfig`. */
export function loadConfigFile(file: string, options: LoadOptions = {}): SidecarConfig {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new ValidationError([{ path: '(file)', file, message: `cannot read: ${(err as Error).message}` }], {
      cause: err,
    });
  }
  let raw: unknown;
  try {
    raw = YAML.parse(text) ?? {};
  } catch (err) {
    const linePos = (err as { linePos?: Array<{ line: number }> }).linePos;
    throw new ValidationError(
      [
        {
          path: '(yaml)',
          file,
          line: linePos?.[0]?.line,
          message: (err as Error).message.split('\n')[0] ?? '',
        },
      ],
      { cause: err },
    );
  }
  return buildConfig(raw, { ...options, file });
}

/**
 * raw -> environment overrides -> strict parse with defaults -> cross-field checks -> frozen.
 * Every problem is collected and thrown together as one ValidationError naming each key.
 */
export function buildConfig(raw: unknown, options: LoadOptions & { file?: string } = {}): SidecarConfig {
  const env = options.env ?? {};
  const withEnv = applyEnv(raw, env);
  // A problem in a value an environment variable set is that variable's, not the file's.
  const source = sourceOf(env, options.file);
  const parsed = configSchema.safeParse(withEnv);
  if (!parsed.success) {
    throw new ValidationError(zodIssues(parsed.error, { noun: 'key' }).map(source));
  }
  const config = parsed.data;
  const issues = crossCheck(config, options);
  if (issues.length) throw new ValidationError(issues.map(source));
  return deepFreeze(config);
}

/** The overrides the environment sets. */
function setOverrides(env: Record<string, string | undefined>): typeof ENV_OVERRIDES {
  return ENV_OVERRIDES.filter((o) => env[o.env] !== undefined);
}

/**
 * Names an issue's source: the variable that set the key at fault (or a key under it), else
 * the configuration file.
 */
function sourceOf(
  env: Record<string, string | undefined>,
  file: string | undefined,
): (issue: ValidationIssue) => ValidationIssue {
  const overrides = setOverrides(env);
  return (issue) => {
    const o = overrides.find((x) => {
      const key = x.path.join('.');
      return issue.path === key || issue.path.startsWith(`${key}.`);
    });
    if (o) return { ...issue, env: o.env };
    return file === undefined ? issue : { ...issue, file };
  };
}

function applyEnv(raw: unknown, env: Record<string, string | undefined>): unknown {
  // A document that is not a mapping is left as it is, for the schema to name it.
  if (raw !== null && raw !== undefined && (typeof raw !== 'object' || Array.isArray(raw))) return raw;
  const base: Record<string, unknown> = raw ? structuredClone(raw as Record<string, unknown>) : {};
  for (const o of setOverrides(env)) {
    const value = env[o.env]!;
    let node = base;
    for (const key of o.path.slice(0, -1)) {
      if (node[key] === undefined || node[key] === null) node[key] = {};
      node = node[key] as Record<string, unknown>;
    }
    node[o.path[o.path.length - 1]!] = o.parse(value);
  }
  return base;
}

function crossCheck(config: SidecarConfig, options: LoadOptions): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const { realtimeQueue, besteffortQueue } = config.yarn;
  if (realtimeQueue === besteffortQueue) {
    issues.push({ path: 'yarn.besteffortQueue', message: 'must differ from yarn.realtimeQueue' });
  }
  if (!cron.validate(config.loop.pollCron)) {
    issues.push({ path: 'loop.pollCron', message: `not a valid cron expression: '${config.loop.pollCron}'` });
  }
  const names = new Set<string>();
  const secrets = new Set<string>();
  config.auth.tokens.forEach((t, i) => {
    if (names.has(t.name))
      issues.push({ path: `auth.tokens.${i}.name`, message: `duplicate name '${t.name}'` });
    if (secrets.has(t.token)) issues.push({ path: `auth.tokens.${i}.token`, message: 'duplicate token' });
    names.add(t.name);
    secrets.add(t.token);
  });
  if (config.auth.protectReads && config.auth.tokens.length === 0) {
    issues.push({ path: 'auth.protectReads', message: 'needs at least one token in auth.tokens' });
  }
  const { knownAdmissionPolicies: admission, knownPlacementPolicies: placement } = options;
  if (admission && !admission.includes(config.admission.policy)) {
    issues.push({
      path: 'admission.policy',
      message: `unknown policy '${config.admission.policy}'; known: ${admission.join(', ')}`,
    });
  }
  // YARN reservations are shaped by the admission policy's estimates: only one that offers them.
  const policy = config.admission.policy;
  const registry = defaultRegistry();
  if (
    config.enforcement.reservations &&
    Object.hasOwn(registry.admission, policy) &&
    !registry.admissionCapabilities(policy).reservations
  ) {
    issues.push({
      path: 'enforcement.reservations',
      message: `admission policy '${policy}' does not offer reservations; set it to false or choose one that does`,
    });
  }
  if (placement && !placement.includes(config.placement.policy)) {
    issues.push({
      path: 'placement.policy',
      message: `unknown policy '${config.placement.policy}'; known: ${placement.join(', ')}`,
    });
  }
  issues.push(...haIssues(config));
  if (config.rm.caFile !== undefined && !config.rm.addresses.every((a) => a.startsWith('https://'))) {
    issues.push({ path: 'rm.caFile', message: 'is set, but not every rm.addresses entry is https://' });
  }
  return issues;
}

/** HA needs the shared ledger: each instance's own SQLite file would be a ledger of its own. */
function haIssues(config: SidecarConfig): ValidationIssue[] {
  if (!config.ha.enabled) return [];
  const ledgerUrl = (config.ledger as { url?: string }).url;
  if (ledgerUrl === undefined || ledgerUrl === '') {
    return [
      {
        path: 'ha.enabled',
        message:
          'needs the shared ledger: set ledger.url (YSS_LEDGER_URL) to a postgres:// URL; every instance must use the same one',
      },
    ];
  }
  return [];
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value as object)) deepFreeze(v);
  }
  return value;
}
