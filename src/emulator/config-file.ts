import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';
import { z } from 'zod';
import { ValidationError, type ValidationIssue } from '../errors/validation';
import { parseClusterFile, validateCluster } from '../sim/formats/cluster-file';
import { parseLocated } from '../sim/formats/source-lines';
import type { ClusterSpec } from '../sim/model';
import { placementPort } from '../sim/policies';
import {
  clusterLabels,
  defaultEmulatorCluster,
  defaultEmulatorConfig,
  defaultQueues,
  emulatorConfigIssues,
  issuePath,
  type EmulatorConfig,
  DESELECT_TYPES,
} from './config';
import type { HdfsFileOption } from './webhdfs-app';
import { AUTH_MODES, type AuthMode } from './auth';

/**
 * The emulator's configuration file, version 1 (docs/emulator.md, "Configuration file"): YAML
 * or JSON with a `format`/`version` header, holding any field of EmulatorConfig plus the
 * WebHDFS files. Parsed in one pipeline, as the cluster and trace files are: strict parse
 * (unknown keys are errors) -> defaults (those of `defaultEmulatorConfig`) -> command-line
 * overrides -> every cross-field rule, each problem with file, line and field path -> frozen.
 * Nothing is started unless the whole file is good.
 */

export const EMULATOR_CONFIG_FORMAT = 'yarn-sched-sidecar-emulator';

/** What a configuration file yields: the RM's configuration and the files of its HDFS. */
export interface EmulatorFileSettings {
  config: EmulatorConfig;
  hdfsFiles: HdfsFileOption[];
}

/** Values from the command line; each replaces the file's before the cross-field checks. */
export interface EmulatorConfigOverrides {
  /** A cluster read from `--cluster FILE`, in place of the file's `cluster`. */
  cluster?: ClusterSpec;
  maxApplicationPriority?: number;
  placementPolicy?: string;
  auth?: AuthMode;
}

const DEFAULTS = defaultEmulatorConfig();
const percent = z.number().finite().min(0).max(100);
const label = z.string().min(1);

const queueSchema = z.strictObject({
  name: z.string().min(1),
  capacity: percent,
  maxCapacity: percent.default(100),
  accessibleNodeLabels: z.array(label).default([]),
  labelCapacity: z.record(label, percent).default({}),
  defaultNodeLabelExpression: z.string().default(''),
  reservable: z.boolean().default(false),
  submitAcl: z.string().default('*'),
});

const hdfsFileSchema = z.strictObject({
  path: z.string().regex(/^\/.*[^/]$/, 'an absolute file path, e.g. /data/events/part-00000'),
  bytes: z.number().int().nonnegative(),
  label: z.string().optional(),
});

const fileSchema = z.strictObject({
  format: z.literal(EMULATOR_CONFIG_FORMAT),
  version: z.literal(1),
  // A path (relative to this file) or an inline cluster; checked by the cluster file's own rules.
  cluster: z.unknown().optional(),
  queues: z.array(queueSchema).optional(),
  maxApplicationPriority: z.number().int().nonnegative().default(DEFAULTS.maxApplicationPriority),
  amMaxAttempts: z.number().int().positive().default(DEFAULTS.amMaxAttempts),
  auth: z.enum(AUTH_MODES as [AuthMode, ...AuthMode[]]).default(DEFAULTS.auth),
  aclEnabled: z.boolean().default(DEFAULTS.aclEnabled),
  adminAcl: z.string().default(DEFAULTS.adminAcl),
  defaultJob: z
    .strictObject({
      maps: z.number().int().positive().default(DEFAULTS.defaultJob.maps),
      reduces: z.number().int().nonnegative().default(DEFAULTS.defaultJob.reduces),
      inputBytes: z.number().int().nonnegative().default(DEFAULTS.defaultJob.inputBytes),
    })
    .default(DEFAULTS.defaultJob),
  containerMemoryMB: z.number().int().positive().default(DEFAULTS.containerMemoryMB),
  containerVcores: z.number().int().positive().default(DEFAULTS.containerVcores),
  defaultUser: z.string().min(1).default(DEFAULTS.defaultUser),
  placementPolicy: z.string().min(1).default(DEFAULTS.placementPolicy),
  placementArgs: z.record(z.string(), z.unknown()).default({}),
  hadoopVersion: z.string().min(1).default(DEFAULTS.hadoopVersion),
  deSelectTypes: z.array(z.enum(DESELECT_TYPES)).default([...DESELECT_TYPES]),
  hdfsFiles: z.array(hdfsFileSchema).default([]),
});

type Path = Array<string | number>;

/** The value at `path` of a parsed document, undefined when absent. */
function valueAt(root: unknown, path: Path): unknown {
  let v = root;
  for (const p of path)
    v = v !== null && typeof v === 'object' ? (v as Record<string | number, unknown>)[p] : undefined;
  return v;
}

/** Zod's issues, one per unknown key (so each is reported at its own line). */
function zodIssues(error: z.ZodError, root: unknown): Array<{ path: Path; message: string }> {
  return error.issues.flatMap((i) => {
    const path = i.path.map((p) => (typeof p === 'number' ? p : String(p)));
    if (i.code === 'unrecognized_keys')
      return i.keys.map((k) => ({ path: [...path, k], message: 'unknown key' }));
    if ((i.code === 'invalid_type' || i.code === 'invalid_value') && valueAt(root, path) === undefined)
      return [{ path, message: 'required field is missing' }];
    return [{ path, message: i.message }];
  });
}

/** `placement.args.maxDelayMs` (a policy's own ValidationError path) as a path of this file. */
function placementPath(path: string): Path {
  if (path === 'placement.policy') return ['placementPolicy'];
  const rest = path.replace(/^placement\.args\.?/, '');
  return ['placementArgs', ...(rest ? rest.split('.') : [])];
}

type FileFields = z.output<typeof fileSchema>;
type Located = ReturnType<typeof parseLocated>;

/** The problems found so far, each with the file and the line of its path. */
class Issues {
  readonly list: ValidationIssue[] = [];

  constructor(
    private readonly doc: Located,
    private readonly file: string,
  ) {}

  add(path: Path, message: string): void {
    this.list.push({ path: issuePath(path), message, file: this.file, line: this.doc.lineOf(path) });
  }

  /** Stops here with what was found. */
  fail(): never {
    throw new ValidationError(this.list);
  }
}

/**
 * The file's `cluster`: a path (relative to the file) read with `readText` and checked by the
 * cluster file's own rules, or an inline cluster, whose problems are named under `cluster.`.
 */
function fileCluster(
  value: unknown,
  file: string,
  doc: Located,
  issues: Issues,
  readText: (path: string) => string,
): ClusterSpec {
  try {
    if (typeof value === 'string') {
      const path = isAbsolute(value) ? value : join(dirname(file), value);
      let clusterText: string;
      try {
        clusterText = readText(path);
      } catch (e) {
        issues.add(
          ['cluster'],
          `cannot read the cluster file ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
        );
        return issues.fail();
      }
      return parseClusterFile(clusterText, path);
    }
    if (value !== null && typeof value === 'object' && !Array.isArray(value))
      return validateCluster(value, file, (p) => doc.lineOf(['cluster', ...p]));
    issues.add(['cluster'], 'a cluster file path or an inline cluster (docs/simulator.md)');
    return issues.fail();
  } catch (e) {
    if (!(e instanceof ValidationError)) throw e;
    // An inline cluster's paths are under `cluster.`; a cluster file's are its own.
    const inline = typeof value !== 'string';
    throw new ValidationError(
      e.issues.map((i) =>
        inline && i.file === file && !i.path.startsWith('cluster')
          ? { ...i, path: i.path === '(root)' ? 'cluster' : `cluster.${i.path}` }
          : i,
      ),
    );
  }
}

/** The RM's configuration: the file's fields with their defaults, the command line's over them. */
function configOf(f: FileFields, cluster: ClusterSpec, overrides: EmulatorConfigOverrides): EmulatorConfig {
  return {
    cluster,
    queues: f.queues ?? defaultQueues(cluster.gpuLabel),
    maxApplicationPriority: overrides.maxApplicationPriority ?? f.maxApplicationPriority,
    amMaxAttempts: f.amMaxAttempts,
    auth: overrides.auth ?? f.auth,
    aclEnabled: f.aclEnabled,
    adminAcl: f.adminAcl,
    defaultJob: { ...f.defaultJob },
    containerMemoryMB: f.containerMemoryMB,
    containerVcores: f.containerVcores,
    defaultUser: f.defaultUser,
    placementPolicy: overrides.placementPolicy ?? f.placementPolicy,
    placementArgs: { ...f.placementArgs },
    hadoopVersion: f.hadoopVersion,
    deSelectTypes: [...f.deSelectTypes],
  };
}

/** The configuration's cross-field rules, and its placement policy built as the RM will. */
function checkConfig(config: EmulatorConfig, builtInQueues: boolean, issues: Issues): void {
  for (const i of emulatorConfigIssues(config)) {
    // Without a `queues` list, the problem is the built-in queues meeting this cluster.
    const message =
      builtInQueues && i.path[0] === 'queues'
        ? `${i.message} (the built-in queues; give queues for this cluster)`
        : i.message;
    issues.add(i.path, message);
  }
  try {
    placementPort(config.placementPolicy, config.placementArgs as Record<string, unknown>, config.cluster, {
      nodeId: String,
      orderKeyMs: () => 0,
    });
  } catch (e) {
    if (e instanceof ValidationError) for (const i of e.issues) issues.add(placementPath(i.path), i.message);
    else issues.add(['placementPolicy'], (e as Error).message);
  }
}

/** The WebHDFS files: labels the cluster has, no path twice, no file that is also a directory. */
function checkHdfsFiles(files: FileFields['hdfsFiles'], cluster: ClusterSpec, issues: Issues): void {
  const labels = clusterLabels(cluster);
  const paths = new Map<string, number>();
  files.forEach((h, i) => {
    if (h.label !== undefined && h.label !== '' && !labels.has(h.label))
      issues.add(['hdfsFiles', i, 'label'], `no node has label ${h.label}`);
    if (h.label === '' && !cluster.nodeClasses.some((c) => c.count > 0 && c.labels.length === 0))
      issues.add(['hdfsFiles', i, 'label'], 'the default partition has no node');
    const first = paths.get(h.path);
    if (first !== undefined)
      issues.add(['hdfsFiles', i, 'path'], `duplicate path ${h.path} (also hdfsFiles[${first}])`);
    paths.set(h.path, i);
  });
  // A file cannot also be a directory above another file (EmulatedHdfs refuses it).
  files.forEach((h, i) => {
    const under = files.find((o) => o.path.startsWith(`${h.path}/`));
    if (under)
      issues.add(['hdfsFiles', i, 'path'], `${h.path} is a file and also the directory of ${under.path}`);
  });
}

/**
 * Parse and validate the text of an emulator configuration file. `readText` reads a cluster
 * file the configuration names (a path relative to the configuration file).
 */
export function parseEmulatorConfigFile(
  text: string,
  file: string,
  overrides: EmulatorConfigOverrides = {},
  readText: (path: string) => string = (p) => readFileSync(p, 'utf8'),
): EmulatorFileSettings {
  const doc = parseLocated(text, file);
  if (doc.syntaxIssues.length) throw new ValidationError(doc.syntaxIssues);
  const issues = new Issues(doc, file);
  const parsed = fileSchema.safeParse(doc.value);
  if (!parsed.success) {
    for (const i of zodIssues(parsed.error, doc.value)) issues.add(i.path, i.message);
    return issues.fail();
  }
  const f = parsed.data;

  // The cluster: the command line's, else the file's (inline or a path), else the built-in one.
  const cluster =
    overrides.cluster ??
    (f.cluster !== undefined
      ? fileCluster(f.cluster, file, doc, issues, readText)
      : defaultEmulatorCluster());
  const config = configOf(f, cluster, overrides);
  checkConfig(config, f.queues === undefined, issues);
  checkHdfsFiles(f.hdfsFiles, cluster, issues);

  // In file order, as the reader goes through the file.
  if (issues.list.length)
    throw new ValidationError([...issues.list].sort((a, b) => (a.line ?? 0) - (b.line ?? 0)));
  return deepFreeze({
    config,
    hdfsFiles: f.hdfsFiles.map((h) => (h.label === undefined ? { path: h.path, bytes: h.bytes } : { ...h })),
  });
}

/** Read, parse and validate an emulator configuration file. */
export function loadEmulatorConfigFile(
  file: string,
  overrides: EmulatorConfigOverrides = {},
): EmulatorFileSettings {
  return parseEmulatorConfigFile(readFileSync(file, 'utf8'), file, overrides);
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}
