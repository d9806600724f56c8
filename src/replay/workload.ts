import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { normaliseJobName } from '../core/profiles';
import { ValidationError, type ValidationIssue } from '../errors/validation';
import type { ClusterSpec, NodeClassSpec, TraceJob } from '../sim/model';
import type { JudgedAtArrival } from './estimates';
import { taskCount, type ClusterShape, type HistoryJob } from './history';
import { firstStart, lastFinish } from './read';

/**
 * A history as the simulator's workload (docs/replay.md, "The model"): each job arrives at its
 * submission, its tasks take their real times, its set-up (submission to first task) and commit
 * (last task to finish) as they really took, judged with what the sidecar knew at its arrival;
 * its deadline from its tag, the operator's file, or a slack on its real duration. The cluster
 * is the RM's nodes as containers of the smallest allocation.
 */

/** Where a job's deadline came from. */
export type DeadlineSource = 'tag' | 'file' | 'slack' | 'none';

/** `--deadline` rules, tried in this order after the job's own tag. */
export interface DeadlineRules {
  /** Job name (exact, or with ids and numbers taken out as profiles do) -> relative deadline, s. */
  readonly byName?: ReadonlyMap<string, number>;
  /** Deadline = this times the job's real duration from its submission. */
  readonly slack?: number;
}

const UNITS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86400 };

/** `90`, `90s`, `15m`, `2h`, `1d` as seconds (> 0), or undefined. */
export function durationSeconds(v: unknown): number | undefined {
  if (typeof v === 'number') return Number.isFinite(v) && v > 0 ? v : undefined;
  if (typeof v !== 'string') return undefined;
  const m = /^\s*(\d+(?:\.\d+)?)\s*([smhd]?)\s*$/.exec(v);
  if (!m) return undefined;
  const s = Number(m[1]) * (UNITS[m[2] || 's'] as number);
  return s > 0 ? s : undefined;
}

/**
 * Parses `--deadline` values: `slack=1.5x` (or `slack=1.5`) and `file=PATH` (YAML or JSON: job
 * name -> deadline, seconds or `15m`-style). A ValidationError names each bad one.
 */
export function parseDeadlineRules(
  values: readonly string[],
  read: (path: string) => string = (p) => readFileSync(p, 'utf8'),
): DeadlineRules {
  const issues: ValidationIssue[] = [];
  let slack: number | undefined;
  let byName: Map<string, number> | undefined;
  for (const v of values) {
    const [key, ...rest] = v.split('=');
    const value = rest.join('=');
    if (key === 'slack') {
      const n = Number(value.replace(/x$/i, ''));
      if (!(Number.isFinite(n) && n > 0))
        issues.push({
          path: '--deadline',
          message: `slack must be a factor > 0 such as 1.5x, got "${value}"`,
        });
      else slack = n;
    } else if (key === 'file') {
      if (value === '') {
        issues.push({ path: '--deadline', message: 'file= needs a path' });
        continue;
      }
      let parsed: unknown;
      try {
        parsed = parseYaml(read(value));
      } catch (err) {
        issues.push({
          path: '--deadline',
          message: `file ${value}: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`,
        });
        continue;
      }
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
        issues.push({ path: '--deadline', message: `file ${value}: must map job names to deadlines` });
        continue;
      }
      byName = new Map();
      for (const [name, d] of Object.entries(parsed as Record<string, unknown>)) {
        const s = durationSeconds(d);
        if (s === undefined)
          issues.push({
            path: `${value}: ${name}`,
            message: `a deadline must be seconds > 0 or a duration such as 15m, got ${JSON.stringify(d)}`,
          });
        else byName.set(name, s);
      }
    } else
      issues.push({
        path: '--deadline',
        message: `must be slack=FACTORx or file=PATH, got "${v}"`,
      });
  }
  if (issues.length > 0) throw new ValidationError(issues);
  return { ...(byName ? { byName } : {}), ...(slack !== undefined ? { slack } : {}) };
}

/** A job's relative deadline (seconds from its submission) and where it came from. */
export function deadlineOf(
  j: HistoryJob,
  rules: DeadlineRules,
): { seconds: number | null; source: DeadlineSource } {
  if (j.taggedDeadlineMs !== undefined && j.taggedDeadlineMs > j.submitMs)
    return { seconds: (j.taggedDeadlineMs - j.submitMs) / 1000, source: 'tag' };
  const named = rules.byName?.get(j.name) ?? rules.byName?.get(normaliseJobName(j.name));
  if (named !== undefined) return { seconds: named, source: 'file' };
  if (rules.slack !== undefined) {
    const real = (j.finishMs - j.submitMs) / 1000;
    if (real > 0) return { seconds: rules.slack * real, source: 'slack' };
  }
  return { seconds: null, source: 'none' };
}

/**
 * A reduce's replayed time: from its start, or from its job's last map when it started before
 * (MapReduce starts reduces early, `slowstart`, to fetch map outputs as they come; the
 * simulator starts them once every map is done, so the wait for the maps is not replayed twice).
 */
export function reduceSecondsAfterMaps(j: Pick<HistoryJob, 'maps' | 'reduces'>): number[] {
  let mapsEnd = -Infinity;
  for (let i = 1; i < j.maps.length; i += 2) mapsEnd = Math.max(mapsEnd, j.maps[i] as number);
  const out: number[] = [];
  for (let i = 0; i < j.reduces.length; i += 2) {
    const start = Math.max(j.reduces[i] as number, mapsEnd);
    out.push(Math.max(0, (j.reduces[i + 1] as number) - start) / 1000);
  }
  return out;
}

/** The seconds of each task of a start/finish list. */
function seconds(times: readonly number[]): number[] {
  const out: number[] = [];
  for (let i = 0; i < times.length; i += 2)
    out.push(((times[i + 1] as number) - (times[i] as number)) / 1000);
  return out;
}

export interface ReplayWorkload {
  /** The simulator's jobs, arrival 0 at the first submission. */
  readonly jobs: TraceJob[];
  /** The epoch ms of arrival 0. */
  readonly originMs: number;
  readonly deadlineSources: DeadlineSource[];
}

/** The history as the simulator's workload (see the module's comment). */
export function workloadOf(
  history: readonly HistoryJob[],
  judged: readonly JudgedAtArrival[],
  rules: DeadlineRules,
): ReplayWorkload {
  const originMs = history[0]?.submitMs ?? 0;
  const deadlineSources: DeadlineSource[] = [];
  const jobs = history.map((j, i): TraceJob => {
    const d = deadlineOf(j, rules);
    deadlineSources.push(d.source);
    const maps = taskCount(j.maps);
    const splits =
      j.mapBytes !== null && j.mapBytes.length === maps && j.mapBytes.some((b) => b > 0)
        ? [...j.mapBytes]
        : null;
    const first = firstStart(j);
    const last = lastFinish(j);
    return {
      id: j.id,
      arrival: (j.submitMs - originMs) / 1000,
      deadline: d.seconds,
      maps,
      reduces: taskCount(j.reduces),
      inputBytes: splits ? splits.reduce((a, b) => a + b, 0) : j.inputBytes,
      splits,
      type: j.jobType,
      ...(j.workloadClass !== undefined ? { workloadClass: j.workloadClass } : {}),
      user: j.user,
      queue: j.queue,
      blocks: null,
      replay: { mapSeconds: seconds(j.maps), reduceSeconds: reduceSecondsAfterMaps(j) },
      overheads: {
        setupSeconds: Math.max(0, first - j.submitMs) / 1000,
        commitSeconds: Math.max(0, j.finishMs - last) / 1000,
      },
      estimates: judged[i]?.estimates,
    };
  });
  return { jobs, originMs, deadlineSources };
}

export interface ClusterOptions {
  /** One container's memory, MB (default: the RM's minimum allocation, else 1024). */
  readonly containerMb?: number;
  /** Default 1 s, Hadoop 3's NodeManager heartbeat. */
  readonly heartbeatSeconds?: number;
  /** The label of the GPU partition (default `gpu`). */
  readonly gpuLabel?: string;
}

/**
 * The simulator's cluster of the RM's running nodes: each node's memory in containers of
 * `containerMb`; a node of the GPU label holds GPU containers only (an exclusive partition);
 * nodes of another label are left out (no job of the default partition runs there), and said.
 * Task times are replayed, so the cost model is not used, nor a remote-read penalty.
 */
export function clusterOf(
  shape: ClusterShape,
  o: ClusterOptions = {},
): { cluster: ClusterSpec; containerMb: number; leftOutNodes: string[] } {
  const containerMb = o.containerMb ?? shape.minimumAllocationMb ?? 1024;
  const gpuLabel = o.gpuLabel ?? 'gpu';
  const classes = new Map<string, NodeClassSpec>();
  const leftOutNodes: string[] = [];
  for (const n of shape.nodes) {
    const label = n.labels[0];
    if (label !== undefined && label !== gpuLabel) {
      leftOutNodes.push(n.id);
      continue;
    }
    const containers = Math.floor(n.memoryMB / containerMb);
    if (containers <= 0) {
      leftOutNodes.push(n.id);
      continue;
    }
    const key = `${label ?? 'default'}-${containers}`;
    const c = classes.get(key);
    if (c) c.count++;
    else
      classes.set(key, {
        name: key,
        count: 1,
        mapSlots: 0,
        reduceSlots: 0,
        containers,
        labels: label ? [label] : [],
        gpuContainers: label ? containers : 0,
        speed: { cpu: 1, gpu: 1, gpuOnCpu: 1 },
        idleWatts: 0,
        taskEnergyKWh: { cpu: 0, gpu: 0, gpuOnCpu: 0 },
      });
  }
  if (classes.size === 0)
    throw new ValidationError([
      {
        path: 'cluster',
        message: `no running node of the default or ${gpuLabel} partition holds a container of ${containerMb} MB`,
      },
    ]);
  const cost = {
    mapFixedSeconds: 0,
    mapSecondsPerMB: 0,
    reduceFixedSeconds: 0,
    reduceSecondsPerMB: 0,
    shuffleRatio: 1,
    jitter: [1, 1] as [number, number],
  };
  return {
    cluster: {
      version: 1,
      slotModel: 'unified',
      heartbeatSeconds: o.heartbeatSeconds ?? 1,
      remoteReadPenalty: 0,
      gpuLabel,
      nodeClasses: [...classes.values()],
      costs: { cpu: cost, gpu: { ...cost } },
      hdfs: { blockMB: 128, replication: 3, blocks: 0 },
      failures: null,
      energyWindowSeconds: null,
    },
    containerMb,
    leftOutNodes,
  };
}

/** The CPU containers of a cluster (what a CPU job is estimated alone on). */
export function cpuContainers(cluster: ClusterSpec): number {
  return cluster.nodeClasses.reduce((n, c) => n + c.count * (c.containers - c.gpuContainers), 0);
}
