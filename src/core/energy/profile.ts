import { z } from 'zod';
import { ValidationError, type ValidationIssue } from '../../errors/validation';
import { JOB_TYPES, type ContainerKind, type JobType } from '../kinds';

/**
 * The energy profile: what one map task of each workload costs on each node class and
 * container kind, idle energy excluded (E_ij_map of He, dissertation, eq. 6.4), and each class's idle
 * power. EFH's fitness uses ef_ij = 1 / E_ij_map (eq. 6.3); the simulator adds up energy.
 *
 * A workload is given either as measured energies (`mapTaskKwh`) or, where the dissertation only
 * published normalised energy-efficiency factors (Table 6.10, loadgen), as `efficiencyFactor`;
 * its energies are then relative (the factor-1 class uses 1 unit per map task) and
 * `unit` says so. Rankings by fitness are unaffected, since they compare one workload's values.
 */
export interface NodeClassProfile {
  readonly idleWatts: number;
  readonly labels: readonly string[];
}

export type MapTaskEnergy = Readonly<Partial<Record<ContainerKind, number>>>;

export interface WorkloadProfile {
  readonly unit: 'kWh' | 'relative';
  /** Energy of one map task by node class and container kind (idle energy excluded). */
  readonly mapTask: Readonly<Record<string, MapTaskEnergy>>;
}

export interface EnergyProfile {
  readonly gpuLabel: string;
  readonly nodeClasses: Readonly<Record<string, NodeClassProfile>>;
  readonly workloads: Readonly<Record<string, WorkloadProfile>>;
  /** The workload a job of each kind behaves like when it names none. */
  readonly defaultWorkload: Readonly<Record<JobType, string>>;
}

/** One node class of the cluster the profile is checked against. */
export interface ClusterNodeClass {
  readonly nodeClass: string;
  readonly nodes: number;
  readonly labels: readonly string[];
}

const positive = z.number({ error: 'must be a number' }).refine((v) => Number.isFinite(v) && v > 0, {
  error: 'must be a positive number',
});
const energyEntry = z.strictObject({ cpu: positive, gpu: positive.optional() });
const rawSchema = z.strictObject({
  gpuLabel: z.string().min(1).default('gpu'),
  nodeClasses: z.record(
    z.string().min(1),
    z.strictObject({
      idleWatts: z.number().refine((v) => Number.isFinite(v) && v >= 0, { error: 'must be a number >= 0' }),
      labels: z.array(z.string().min(1)).default([]),
    }),
  ),
  workloads: z.record(
    z.string().min(1),
    z.union([
      z.strictObject({ mapTaskKwh: z.record(z.string(), energyEntry) }),
      z.strictObject({ efficiencyFactor: z.record(z.string(), energyEntry) }),
    ]),
  ),
  defaultWorkload: z.strictObject({ cpu: z.string(), gpu: z.string(), adaptive: z.string() }),
});

type RawProfile = z.output<typeof rawSchema>;

const nodesOf = (c: ClusterNodeClass) =>
  `the cluster has ${c.nodes} node${c.nodes === 1 ? '' : 's'} of this class`;

/** Every class of the cluster has a profile, with labels the cluster knows and gives that class. */
function checkNodeClasses(
  p: RawProfile,
  cluster: readonly ClusterNodeClass[],
  issues: ValidationIssue[],
): void {
  const knownLabels = new Set(cluster.flatMap((c) => c.labels));
  const clusterByClass = new Map(cluster.map((c) => [c.nodeClass, c]));
  for (const c of cluster) {
    if (!(c.nodeClass in p.nodeClasses)) {
      issues.push({ path: `profile.nodeClasses.${c.nodeClass}`, message: `missing, ${nodesOf(c)}` });
    }
  }
  for (const [name, nc] of Object.entries(p.nodeClasses)) {
    nc.labels.forEach((label, i) => {
      if (!knownLabels.has(label)) {
        issues.push({
          path: `profile.nodeClasses.${name}.labels.${i}`,
          message: `unknown label "${label}"; the cluster's labels are: ${[...knownLabels].sort().join(', ') || '(none)'}`,
        });
      }
    });
    const inCluster = clusterByClass.get(name);
    if (
      inCluster &&
      sameSet(inCluster.labels, nc.labels) === false &&
      nc.labels.every((l) => knownLabels.has(l))
    ) {
      issues.push({
        path: `profile.nodeClasses.${name}.labels`,
        message: `[${nc.labels.join(', ')}] differ from the cluster's labels for this class [${inCluster.labels.join(', ')}]`,
      });
    }
  }
}

/**
 * One workload's map-task energies per node class, from kWh or from Table 6.9/6.10's relative
 * efficiencies: every cluster class present, only known classes, a GPU figure only where the
 * class carries the GPU label.
 */
function workloadProfile(
  p: RawProfile,
  w: string,
  spec: RawProfile['workloads'][string],
  cluster: readonly ClusterNodeClass[],
  issues: ValidationIssue[],
): WorkloadProfile {
  const [field, table, unit] =
    'mapTaskKwh' in spec
      ? (['mapTaskKwh', spec.mapTaskKwh, 'kWh'] as const)
      : (['efficiencyFactor', spec.efficiencyFactor, 'relative'] as const);
  const base = `profile.workloads.${w}.${field}`;
  for (const c of cluster) {
    if (!(c.nodeClass in table))
      issues.push({ path: `${base}.${c.nodeClass}`, message: `missing, ${nodesOf(c)}` });
  }
  const mapTask: Record<string, MapTaskEnergy> = {};
  for (const [cls, entry] of Object.entries(table)) {
    const nc = p.nodeClasses[cls];
    if (!nc) {
      issues.push({
        path: `${base}.${cls}`,
        message: `unknown node class; profile.nodeClasses has: ${Object.keys(p.nodeClasses).join(', ')}`,
      });
      continue;
    }
    if (entry.gpu !== undefined && !nc.labels.includes(p.gpuLabel)) {
      issues.push({
        path: `${base}.${cls}.gpu`,
        message: `node class "${cls}" does not carry the GPU label "${p.gpuLabel}"`,
      });
    }
    // Table 6.9/6.10 factors are efficiencies (1 / relative energy); store energies throughout.
    mapTask[cls] =
      unit === 'kWh'
        ? Object.freeze({ ...entry })
        : Object.freeze({ cpu: 1 / entry.cpu, ...(entry.gpu !== undefined ? { gpu: 1 / entry.gpu } : {}) });
  }
  return Object.freeze({ unit, mapTask: Object.freeze(mapTask) });
}

/**
 * Validates a profile (as parsed from YAML, or any plain object) against the cluster's node
 * classes and returns it frozen. Every problem is reported at once, each under its path:
 * a class the cluster has but the profile lacks, a negative or zero energy, a label the
 * cluster does not know, a GPU energy on a class without the GPU label, an unknown workload.
 */
export function parseEnergyProfile(raw: unknown, cluster: readonly ClusterNodeClass[]): EnergyProfile {
  const parsed = rawSchema.safeParse(raw);
  if (!parsed.success) {
    throw new ValidationError(
      parsed.error.issues.map((issue) => ({
        path: ['profile', ...issue.path.map(String), ...((issue as { keys?: string[] }).keys ?? [])].join(
          '.',
        ),
        message: issue.message,
      })),
    );
  }
  const p = parsed.data;
  const issues: ValidationIssue[] = [];
  checkNodeClasses(p, cluster, issues);
  const workloads: Record<string, WorkloadProfile> = {};
  for (const [w, spec] of Object.entries(p.workloads))
    workloads[w] = workloadProfile(p, w, spec, cluster, issues);
  for (const kind of JOB_TYPES) {
    const w = p.defaultWorkload[kind];
    if (!(w in p.workloads)) {
      issues.push({
        path: `profile.defaultWorkload.${kind}`,
        message: `unknown workload "${w}"; known: ${Object.keys(p.workloads).join(', ')}`,
      });
    }
  }
  if (issues.length > 0) throw new ValidationError(issues);

  return Object.freeze({
    gpuLabel: p.gpuLabel,
    nodeClasses: Object.freeze(
      Object.fromEntries(
        Object.entries(p.nodeClasses).map(([k, v]) => [
          k,
          Object.freeze({ idleWatts: v.idleWatts, labels: Object.freeze([...v.labels]) }),
        ]),
      ),
    ),
    workloads: Object.freeze(workloads),
    defaultWorkload: Object.freeze({ ...p.defaultWorkload }),
  });
}

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  const sa = new Set(a);
  const sb = new Set(b);
  return sa.size === sb.size && [...sa].every((x) => sb.has(x));
}
