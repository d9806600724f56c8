import { z } from 'zod';
import { ValidationError, type ValidationIssue } from '../../errors/validation';
import type { ClusterSpec, TaskCostSpec } from '../model';
import { parseLocated, pathText } from './source-lines';

/**
 * The cluster file, version 1 (docs/simulator.md has the full reference). YAML or JSON;
 * unknown keys are errors; every problem is reported with its file and line before
 * anything is simulated.
 */

const nonNeg = z.number().finite().nonnegative();
const positive = z.number().finite().positive();
const perRun = (t: z.ZodNumber, dflt: number) =>
  z.strictObject({ cpu: t.default(dflt), gpu: t.default(dflt), gpuOnCpu: t.optional() });

const nodeClassSchema = z.strictObject({
  name: z.string().min(1),
  count: z.number().int().nonnegative(),
  mapSlots: z.number().int().nonnegative().default(0),
  reduceSlots: z.number().int().nonnegative().default(0),
  containers: z.number().int().nonnegative().default(0),
  gpuContainers: z.number().int().nonnegative().default(0),
  labels: z.array(z.string().min(1)).default([]),
  speed: perRun(positive, 1).default({ cpu: 1, gpu: 1 }),
  idleWatts: nonNeg.default(0),
  taskEnergyKWh: perRun(nonNeg, 0).default({ cpu: 0, gpu: 0 }),
});

const costSchema = z.strictObject({
  mapFixedSeconds: nonNeg.default(0),
  mapSecondsPerMB: nonNeg.default(0.15),
  reduceFixedSeconds: nonNeg.default(0),
  reduceSecondsPerMB: nonNeg.default(0.3),
  shuffleRatio: nonNeg.default(0.1),
  jitter: z.tuple([positive, positive]).default([1, 1]),
});

const defaultCost: TaskCostSpec = {
  mapFixedSeconds: 0,
  mapSecondsPerMB: 0.15,
  reduceFixedSeconds: 0,
  reduceSecondsPerMB: 0.3,
  shuffleRatio: 0.1,
  jitter: [1, 1],
};

export const clusterFileSchema = z.strictObject({
  version: z.literal(1),
  slotModel: z.enum(['mr1', 'unified']).default('mr1'),
  heartbeatSeconds: positive.default(3),
  remoteReadPenalty: nonNeg.default(0.5),
  gpuLabel: z.string().min(1).default('gpu'),
  nodeClasses: z.array(nodeClassSchema),
  costs: z
    .strictObject({ cpu: costSchema.default(defaultCost), gpu: costSchema.default(defaultCost) })
    .default({ cpu: defaultCost, gpu: defaultCost }),
  hdfs: z
    .strictObject({
      blockMB: positive.default(128),
      replication: z.number().int().positive().default(3),
      blocks: z.number().int().nonnegative().default(0),
    })
    .default({ blockMB: 128, replication: 3, blocks: 0 }),
  failures: z
    .strictObject({ meanTimeBetweenSeconds: positive, repairSeconds: positive })
    .nullable()
    .default(null),
  energyWindowSeconds: positive.nullable().default(null),
});

/** Validate an already-parsed value; `lineOf` maps a path to a line (1 when unknown). */
export function validateCluster(
  value: unknown,
  file: string,
  lineOf: (path: readonly PropertyKey[]) => number = () => 1,
): ClusterSpec {
  const parsed = clusterFileSchema.safeParse(value);
  if (!parsed.success) {
    throw new ValidationError(
      parsed.error.issues.map((i) => ({
        path: pathText(i.path),
        message: i.message,
        file,
        line: lineOf(i.path),
      })),
    );
  }
  const spec = withDefaults(parsed.data);
  const issue: IssueAt = (path, message, at) => ({ path, message, file, line: lineOf(at) });
  const total = spec.nodeClasses.reduce((n, c) => n + c.count, 0);
  const issues: ValidationIssue[] = [
    ...(total === 0 ? [issue('nodeClasses', 'the cluster has zero nodes', ['nodeClasses'])] : []),
    ...classIssues(spec, issue),
    ...clusterIssues(spec, total, issue),
  ];
  if (issues.length) throw new ValidationError(issues);
  return spec;
}

/** An issue of the cluster file at a path (its text, and its parts to find its line). */
type IssueAt = (path: string, message: string, at: readonly PropertyKey[]) => ValidationIssue;

/** The cluster as the schema read it, with the defaults that depend on other fields. */
function withDefaults(data: z.infer<typeof clusterFileSchema>): ClusterSpec {
  return {
    ...data,
    nodeClasses: data.nodeClasses.map((c) => ({
      ...c,
      // A GPU application's CPU code runs like a CPU job unless the file says otherwise.
      speed: { cpu: c.speed.cpu, gpu: c.speed.gpu, gpuOnCpu: c.speed.gpuOnCpu ?? c.speed.cpu },
      taskEnergyKWh: {
        cpu: c.taskEnergyKWh.cpu,
        gpu: c.taskEnergyKWh.gpu,
        gpuOnCpu: c.taskEnergyKWh.gpuOnCpu ?? c.taskEnergyKWh.gpu,
      },
    })),
  } as ClusterSpec;
}

/** What is wrong with each node class: a name used twice, slots or containers that do not fit. */
function classIssues(spec: ClusterSpec, issue: IssueAt): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const names = new Set<string>();
  spec.nodeClasses.forEach((c, i) => {
    if (names.has(c.name))
      issues.push(
        issue(`nodeClasses[${i}].name`, `duplicate class name ${c.name}`, ['nodeClasses', i, 'name']),
      );
    names.add(c.name);
    if (spec.slotModel === 'mr1' && c.count > 0 && c.mapSlots + c.reduceSlots === 0) {
      issues.push(
        issue(`nodeClasses[${i}]`, 'slotModel mr1 needs mapSlots or reduceSlots on each class', [
          'nodeClasses',
          i,
        ]),
      );
    }
    const capacity = spec.slotModel === 'mr1' ? c.mapSlots : c.containers;
    if (c.gpuContainers > capacity) {
      issues.push(
        issue(
          `nodeClasses[${i}].gpuContainers`,
          `${c.gpuContainers} GPU containers exceed the class's ${capacity} ${spec.slotModel === 'mr1' ? 'map slots' : 'containers'}`,
          ['nodeClasses', i, 'gpuContainers'],
        ),
      );
    }
    if (c.gpuContainers > 0 && !c.labels.includes(spec.gpuLabel)) {
      issues.push(
        issue(
          `nodeClasses[${i}].gpuContainers`,
          `GPU containers on a class without the GPU label '${spec.gpuLabel}'`,
          ['nodeClasses', i, 'gpuContainers'],
        ),
      );
    }
    if (spec.slotModel === 'unified' && c.count > 0 && c.containers === 0) {
      issues.push(
        issue(`nodeClasses[${i}].containers`, 'slotModel unified needs containers > 0 on each class', [
          'nodeClasses',
          i,
        ]),
      );
    }
  });
  return issues;
}

/** What is wrong with the cluster as a whole: no slots of a kind, jitter ranges, replication. */
function clusterIssues(spec: ClusterSpec, total: number, issue: IssueAt): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  if (total > 0 && spec.slotModel === 'mr1') {
    for (const kind of ['map', 'reduce'] as const) {
      const slots = spec.nodeClasses.reduce((n, c) => n + c.count * c[`${kind}Slots`], 0);
      if (slots === 0) issues.push(issue('nodeClasses', `no ${kind} slots in the cluster`, ['nodeClasses']));
    }
  }
  for (const kind of ['cpu', 'gpu'] as const) {
    const [lo, hi] = spec.costs[kind].jitter;
    if (lo > hi)
      issues.push(issue(`costs.${kind}.jitter`, `min ${lo} exceeds max ${hi}`, ['costs', kind, 'jitter']));
  }
  if (spec.hdfs.replication > total && total > 0) {
    issues.push(
      issue('hdfs.replication', `replication ${spec.hdfs.replication} exceeds the ${total} nodes`, [
        'hdfs',
        'replication',
      ]),
    );
  }
  return issues;
}

/** Parse and validate the text of a cluster file (YAML or JSON). */
export function parseClusterFile(text: string, file: string): ClusterSpec {
  const doc = parseLocated(text, file);
  if (doc.syntaxIssues.length) throw new ValidationError(doc.syntaxIssues);
  return validateCluster(doc.value, file, doc.lineOf);
}
