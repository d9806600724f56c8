import { Command, InvalidArgumentError } from 'commander';
import { SidecarError } from '../errors/base';
import { createLogger, type Logger } from '../log';
import { exitCodeOf } from './exit-codes';
import { lendingView, type LendingView } from '../loop/lending';
import { HttpResourceManagerClient } from '../yarn/client';
import { flattenQueues } from '../yarn/mapping';
import {
  GPU_RESOURCE,
  type AppReport,
  type ClusterInfo,
  type ClusterMetrics,
  type NodeReport,
  type SchedulerInfo,
} from '../yarn/model';

/** The RM's own name for the partition of unlabelled nodes (INDEX.md section 4). */
export const DEFAULT_PARTITION = '<DEFAULT_PARTITION>';

/**
 * What the probe shows, in text and in JSON alike, for a field the RM did not send (a field
 * newer than the RM): never a default that would pass for a reported value.
 */
export const UNKNOWN = 'unknown';
export type OrUnknown<T> = T | typeof UNKNOWN;

const known = <T>(value: T | undefined): OrUnknown<T> => (value === undefined ? UNKNOWN : value);

interface UsedTotal {
  total: number;
  used: number;
}

export interface ProbeSummary {
  /** How the sidecar's writes would fare: the user they carry, the RM's priority cap (null: unknown). */
  writes: { user: string | null; priorityCap: number | null };
  /**
   * The real-time queue's guarantee per partition, what other queues may borrow of it, and
   * whether the RM's preemption takes it back (from the scheduler and the RM's /conf).
   */
  lending: LendingView;
  rm: {
    url: string;
    version: string;
    hadoopVersion: string;
    /** `unknown` from an RM that does not report it (before 2.4). */
    haState: OrUnknown<string>;
    clusterId: number;
  };
  scheduler: SchedulerInfo['type'];
  nodes: { total: number; byState: Record<string, number>; byLabel: Record<string, number> };
  /** The node counts of the RM's metrics; decommissioning and shutdown are `unknown` before 2.8. */
  nodeMetrics: {
    active: number;
    lost: number;
    unhealthy: number;
    decommissioning: OrUnknown<number>;
    decommissioned: number;
    rebooted: number;
    shutdown: OrUnknown<number>;
  };
  /** Per node label (partition): memory MB, vcores and GPUs, total and used. */
  resources: Record<string, { memoryMB: UsedTotal; vcores: UsedTotal; gpus: UsedTotal }>;
  queues: Array<{
    name: string;
    kind: 'parent' | 'leaf';
    capacity: number;
    absoluteCapacity: number;
    maxCapacity: number;
    usedCapacity: number;
    labels: string[];
    defaultLabel: string | null;
    /** Capacity scheduler `mode` (percentage, absolute, weight, mixed), `unknown` before 3.4. */
    mode: OrUnknown<string>;
  }>;
  /** Apps by state, and by priority (`unknown` for apps of an RM before 2.8, which has none). */
  apps: { total: number; byState: Record<string, number>; byPriority: Record<string, number> };
}

function count<T>(items: readonly T[], key: (t: T) => string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const item of items) for (const k of key(item)) out[k] = (out[k] ?? 0) + 1;
  return out;
}

const labelsOf = (n: NodeReport): string[] => (n.nodeLabels.length ? n.nodeLabels : [DEFAULT_PARTITION]);

/**
 * What the sidecar sees, from five reads. Resources count RUNNING nodes only: a LOST or
 * DECOMMISSIONED node's capacity cannot be scheduled. A field the RM does not send is
 * `unknown`.
 */
export function summarise(
  url: string,
  info: ClusterInfo,
  metrics: ClusterMetrics,
  nodes: readonly NodeReport[],
  scheduler: SchedulerInfo,
  apps: readonly AppReport[],
): Omit<ProbeSummary, 'writes' | 'lending'> {
  const resources: ProbeSummary['resources'] = {};
  for (const n of nodes) {
    for (const label of labelsOf(n)) {
      const r = (resources[label] ??= {
        memoryMB: { total: 0, used: 0 },
        vcores: { total: 0, used: 0 },
        gpus: { total: 0, used: 0 },
      });
      if (n.state !== 'RUNNING') continue;
      r.memoryMB.total += n.total.memoryMB;
      r.memoryMB.used += n.used.memoryMB;
      r.vcores.total += n.total.vcores;
      r.vcores.used += n.used.vcores;
      r.gpus.total += n.total.extra[GPU_RESOURCE] ?? 0;
      r.gpus.used += n.used.extra[GPU_RESOURCE] ?? 0;
    }
  }
  return {
    rm: {
      url,
      version: info.resourceManagerVersion,
      hadoopVersion: info.hadoopVersion,
      haState: known(info.haState),
      clusterId: info.id,
    },
    scheduler: scheduler.type,
    nodes: { total: nodes.length, byState: count(nodes, (n) => [n.state]), byLabel: count(nodes, labelsOf) },
    nodeMetrics: {
      active: metrics.activeNodes,
      lost: metrics.lostNodes,
      unhealthy: metrics.unhealthyNodes,
      decommissioning: known(metrics.decommissioningNodes),
      decommissioned: metrics.decommissionedNodes,
      rebooted: metrics.rebootedNodes,
      shutdown: known(metrics.shutdownNodes),
    },
    resources,
    queues: flattenQueues(scheduler.root).map((q) => ({
      name: q.path,
      kind: q.kind,
      capacity: q.capacity,
      absoluteCapacity: q.absoluteCapacity,
      maxCapacity: q.maxCapacity,
      usedCapacity: q.usedCapacity,
      labels: q.accessibleNodeLabels,
      defaultLabel: q.defaultNodeLabelExpression ?? null,
      mode: known(q.capacityMode),
    })),
    apps: {
      total: apps.length,
      byState: count(apps, (a) => [a.state]),
      byPriority: count(apps, (a) => [String(known(a.priority))]),
    },
  };
}

function pairs(rec: Record<string, number>): string {
  const entries = Object.entries(rec);
  return entries.length ? entries.map(([k, v]) => `${k}=${v}`).join(', ') : 'none';
}

/** The operator's text view of a summary. */
export function formatSummary(s: ProbeSummary): string {
  const m = s.nodeMetrics;
  const lines = [
    `ResourceManager ${s.rm.url}: version ${s.rm.version}, HA state ${s.rm.haState}, cluster id ${s.rm.clusterId}`,
    `Scheduler: ${s.scheduler}`,
    `Nodes: ${s.nodes.total} (by state: ${pairs(s.nodes.byState)}; by label: ${pairs(s.nodes.byLabel)})`,
    `Node metrics: active ${m.active}, lost ${m.lost}, unhealthy ${m.unhealthy}, decommissioning ${m.decommissioning}, ` +
      `decommissioned ${m.decommissioned}, rebooted ${m.rebooted}, shutdown ${m.shutdown}`,
    'Resources of RUNNING nodes by label (used / total):',
  ];
  for (const [label, r] of Object.entries(s.resources)) {
    lines.push(
      `  ${label}: memory ${r.memoryMB.used} / ${r.memoryMB.total} MB, vcores ${r.vcores.used} / ${r.vcores.total}, GPUs ${r.gpus.used} / ${r.gpus.total}`,
    );
  }
  lines.push('Queues (capacity %, absolute %, max %, used %; labels they can reach; capacity mode):');
  for (const q of s.queues) {
    const labels = q.labels.length ? q.labels.join(',') : '-';
    const dflt = q.defaultLabel ? `, default label ${q.defaultLabel}` : '';
    lines.push(
      `  ${q.name} [${q.kind}]: ${q.capacity} / ${q.absoluteCapacity} / ${q.maxCapacity} / ${q.usedCapacity}; labels ${labels}${dflt}; mode ${q.mode}`,
    );
  }
  lines.push(`Apps: ${s.apps.total} (by state: ${pairs(s.apps.byState)})`);
  lines.push(`App priorities: ${pairs(s.apps.byPriority)}`);
  const cap = s.writes.priorityCap;
  lines.push(
    `Priority cap (yarn.cluster.max-application-priority): ${cap ?? 'unknown'}` +
      (cap === 0 ? ' - every app runs at 0: EDF order cannot be written as priorities' : ''),
  );
  lines.push(...formatLending(s.lending));
  lines.push(
    s.writes.user === null
      ? 'Writes: anonymous (no --user): an RM with simple authentication refuses them (401); a stock RM runs submitted apps as dr.who. Set rm.user to the user jobs should run as'
      : `Writes: as user.name=${s.writes.user}`,
  );
  return `${lines.join('\n')}\n`;
}

function formatLending(l: LendingView): string[] {
  const p = l.preemption;
  const lines = [
    p.source === 'unknown'
      ? 'Preemption: unknown (the RM hides /conf)'
      : `Preemption: ${p.enabled ? 'on' : 'off'} (yarn.resourcemanager.scheduler.monitor.enable)` +
        (p.enabled
          ? `; max_wait_before_kill ${p.maxWaitBeforeKillMs} ms, natural_termination_factor ${p.naturalTerminationFactor}, monitoring_interval ${p.monitoringIntervalMs} ms`
          : ''),
  ];
  if (!l.found) {
    lines.push(`Real-time queue ${l.queue}: not among the scheduler's leaf queues`);
    return lines;
  }
  lines.push(
    `Real-time queue ${l.queue}, per partition (guaranteed / max / used %; others may borrow / borrow now %):`,
  );
  for (const x of l.partitions) {
    const exempt = x.unpreemptable.length ? `; never preempted: ${x.unpreemptable.join(', ')}` : '';
    lines.push(
      `  ${x.partition === '' ? '(default)' : x.partition}: ${x.guaranteed} / ${x.maximum} / ${x.used}; ${x.othersMayBorrow} / ${x.othersBorrowNow}; guarantee ${x.verdict}${exempt}`,
    );
  }
  for (const w of l.warnings) lines.push(`WARNING: ${w}`);
  return lines;
}

export interface ProbeOptions {
  urls: string[];
  format: 'json' | 'xml';
  output: 'text' | 'json';
  user?: string;
  timeoutMs: number;
  caFile?: string;
  logger?: Logger;
  /** The queue admitted jobs run in (yarn.realtimeQueue), for the lending view. */
  realtimeQueue?: string;
}

export interface ProbeIo {
  out: (text: string) => void;
  err: (text: string) => void;
}

/** Run the probe; answers the process exit code. Failures are one line on `err`. */
export async function runProbe(opts: ProbeOptions, io: ProbeIo): Promise<number> {
  try {
    const client = new HttpResourceManagerClient({
      urls: opts.urls,
      format: opts.format,
      user: opts.user,
      timeoutMs: opts.timeoutMs,
      caFile: opts.caFile,
      maxAttempts: 2,
      logger: opts.logger,
    });
    const info = await client.clusterInfo();
    const [metrics, nodes, scheduler, apps] = await Promise.all([
      client.clusterMetrics(),
      client.nodes(),
      client.scheduler(),
      client.apps(),
    ]);
    // The cap from the RM's /conf; an RM that hides /conf leaves it unknown.
    const priorityCap = await client.maxApplicationPriority().catch(() => undefined);
    const preemption = await client.preemption();
    const labels = [...new Set(nodes.flatMap((n) => n.nodeLabels))];
    const summary: ProbeSummary = {
      ...summarise(client.transport.activeUrl, info, metrics, nodes, scheduler, apps),
      writes: { user: opts.user ?? null, priorityCap: priorityCap ?? null },
      lending: lendingView(scheduler, preemption, opts.realtimeQueue ?? 'realtime', labels),
    };
    io.out(opts.output === 'json' ? `${JSON.stringify(summary, null, 2)}\n` : formatSummary(summary));
    return 0;
  } catch (err) {
    const what = err instanceof SidecarError ? `${err.code}: ${err.message}` : (err as Error).message;
    io.err(`probe failed: ${what.replace(/\s+/g, ' ')}\n`);
    return exitCodeOf(err);
  }
}

export function parseUrls(value: string): string[] {
  const urls = value
    .split(',')
    .map((u) => u.trim())
    .filter(Boolean);
  for (const u of urls) {
    let parsed: URL;
    try {
      parsed = new URL(u);
    } catch {
      throw new InvalidArgumentError(`not a URL: ${u}`);
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
      throw new InvalidArgumentError(`not an http(s) URL: ${u}`);
    }
  }
  if (urls.length === 0) throw new InvalidArgumentError('at least one RM address is needed');
  return urls;
}

function parsePositiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new InvalidArgumentError(`not a positive integer: ${value}`);
  return n;
}

export function probeCommand(): Command {
  return new Command('probe')
    .description(
      'Show what the sidecar sees of a ResourceManager: version, HA state, nodes, labels, queues, apps; ' +
        '"unknown" for what the RM does not report',
    )
    .requiredOption('--rm <urls>', 'RM address(es), comma-separated for an HA pair', parseUrls)
    .option('--xml', 'talk to the RM in XML instead of JSON')
    .option('--json', 'print one JSON object instead of text')
    .option('--user <name>', 'simple authentication: user.name')
    .option('--timeout-ms <n>', 'timeout of each call, ms', parsePositiveInt, 10_000)
    .option('--ca-file <path>', 'PEM file of the CA of an HTTPS RM')
    .option(
      '--realtime-queue <name>',
      "the queue admitted jobs run in (the sidecar's yarn.realtimeQueue)",
      'realtime',
    )
    .option('--verbose', 'log every RM call (stderr)')
    .action(
      async (o: {
        rm: string[];
        xml?: boolean;
        json?: boolean;
        user?: string;
        timeoutMs: number;
        caFile?: string;
        realtimeQueue: string;
        verbose?: boolean;
      }) => {
        const logger = createLogger({ level: o.verbose ? 'debug' : 'info', format: 'pretty', stderr: true });
        process.exitCode = await runProbe(
          {
            urls: o.rm,
            format: o.xml ? 'xml' : 'json',
            output: o.json ? 'json' : 'text',
            user: o.user,
            timeoutMs: o.timeoutMs,
            caFile: o.caFile,
            logger,
            realtimeQueue: o.realtimeQueue,
          },
          { out: (t) => process.stdout.write(t), err: (t) => process.stderr.write(t) },
        );
      },
    );
}
