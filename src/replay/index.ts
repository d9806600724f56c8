import type { SidecarConfig } from '../config/schema';
import type { ClusterSpec } from '../sim/model';
import type { HttpResourceManagerClient } from '../yarn/client';
import type { JobHistoryClient } from '../yarn/jobhistory';
import type { PolicyCellStore } from './cells';
import type { ClusterShape } from './history';
import type { HistoryCache } from './history-cache';
import { readClusterShape, readHistory, type HistoryRead } from './read';
import { replay, type ReplayResult } from './replay';
import { clusterOf, type DeadlineRules } from './workload';

/**
 * `replay` end to end (docs/replay.md): the cluster's shape from the RM (or a cluster file),
 * the window's history from the JobHistory server and the RM, then the replay. The CLI
 * (src/cli/replay.ts) and the API (POST /api/v1/replays) both run this.
 */

export interface ReplayFromCluster {
  readonly jhs: JobHistoryClient;
  /** The RM (its nodes, queues, finished apps); without it, `cluster` must be given. */
  readonly rm?: HttpResourceManagerClient;
  /** A cluster in place of the RM's nodes. */
  readonly cluster?: ClusterSpec;
  readonly containerMb?: number;
  readonly heartbeatSeconds?: number;
  readonly config: SidecarConfig;
  readonly rules: DeadlineRules;
  readonly policies?: readonly string[];
  readonly fromMs: number;
  readonly toMs: number;
  readonly taskCounters?: boolean;
  readonly concurrency?: number;
  readonly pageJobs?: number;
  readonly maxJobs?: number;
  /** Where the jobs' details read are kept and found again (default: none). */
  readonly cache?: HistoryCache;
  /** Where each policy's per-job cells go (default: memory). */
  readonly cells?: PolicyCellStore;
  readonly onProgress?: (phase: string, done: number, total: number) => void;
}

export interface ReplayRun {
  readonly result: ReplayResult;
  readonly history: HistoryRead;
}

export async function replayFromCluster(r: ReplayFromCluster): Promise<ReplayRun> {
  let shape: ClusterShape | undefined;
  let cluster: ClusterSpec;
  let containerMb: number;
  let leftOutNodes: string[] = [];
  if (r.cluster) {
    cluster = r.cluster;
    containerMb = r.containerMb ?? 0;
  } else {
    if (!r.rm) throw new RangeError('the RM or a cluster is needed');
    shape = await readClusterShape(r.rm);
    ({ cluster, containerMb, leftOutNodes } = clusterOf(shape, {
      ...(r.containerMb !== undefined ? { containerMb: r.containerMb } : {}),
      ...(r.heartbeatSeconds !== undefined ? { heartbeatSeconds: r.heartbeatSeconds } : {}),
      gpuLabel: r.config.yarn.gpuLabel,
    }));
  }
  const history = await readHistory({
    jhs: r.jhs,
    ...(r.rm ? { rm: r.rm } : {}),
    fromMs: r.fromMs,
    toMs: r.toMs,
    ...(r.taskCounters !== undefined ? { taskCounters: r.taskCounters } : {}),
    ...(r.concurrency !== undefined ? { concurrency: r.concurrency } : {}),
    ...(r.pageJobs !== undefined ? { pageJobs: r.pageJobs } : {}),
    ...(r.maxJobs !== undefined ? { maxJobs: r.maxJobs } : {}),
    ...(r.cache ? { cache: r.cache } : {}),
    onProgress: (done, listed) => r.onProgress?.('reading', done, listed),
  });
  const result = replay({
    history,
    cluster,
    ...(shape ? { shape } : {}),
    containerMb,
    leftOutNodes,
    config: r.config,
    rules: r.rules,
    ...(r.policies ? { policies: r.policies } : {}),
    window: { fromMs: r.fromMs, toMs: r.toMs },
    ...(r.cells ? { cells: r.cells } : {}),
    ...(r.onProgress ? { onProgress: r.onProgress } : {}),
  });
  return { result, history };
}
