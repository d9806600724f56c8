import type { ClusterSpec, TraceJob } from '../model';
import type { Rng } from '../rng';
import { NO_NODE, replicasAt, type JobRt } from './job-state';

/**
 * Where HDFS holds each block: the cluster's blocks (`blk_N`) and those a trace names, by
 * name; a job without block ids keeps its generated blocks' replicas (`${id}/blk_${i}`) in its
 * own array (JobRt.replicas) instead: millions of such keys were a large share of a big run's
 * memory and time. explicitJobPrefixes holds X for every named block "X/blk_N", so a job X's
 * generated block still finds a replica set a trace named before (and the reverse is found
 * through the submitted jobs), exactly as one shared table would.
 */
export class BlockMap {
  private readonly named = new Map<string, number[]>();
  private readonly explicitJobPrefixes = new Set<string>();
  /** Replicas per block: min(hdfs.replication, nodes), the same for every block. */
  readonly replication: number;

  constructor(
    cluster: ClusterSpec,
    private readonly nodeCount: number,
    private readonly rng: Rng,
    /** The submitted job with this id, if any. */
    private readonly jobNamed: (id: string) => JobRt | undefined,
  ) {
    this.replication = Math.min(cluster.hdfs.replication, nodeCount);
    this.placeClusterBlocks(cluster);
  }

  /** Replicas of a block, by node index. */
  replicasOf(blockId: string): readonly number[] {
    const named = this.named.get(blockId);
    if (named) return named;
    const g = this.generatedBlock(blockId);
    return g ? replicasAt(g.job, g.index, this.replication) : [];
  }

  /** Engine.placeBlock: a named block on the given nodes, refused when placed already or a node is bad. */
  placeBlock(blockId: string, nodes: readonly number[]): void {
    if (this.named.has(blockId) || this.generatedBlock(blockId))
      throw new RangeError(`block ${blockId} is already placed`);
    if (nodes.length === 0 || nodes.length > this.replication)
      throw new RangeError(
        `block ${blockId}: ${nodes.length} replicas; between 1 and ${this.replication} expected`,
      );
    const seen = new Set<number>();
    for (const n of nodes) {
      if (!Number.isInteger(n) || n < 0 || n >= this.nodeCount)
        throw new RangeError(`block ${blockId}: no node with index ${n}`);
      if (seen.has(n)) throw new RangeError(`block ${blockId}: node ${n} holds two replicas`);
      seen.add(n);
    }
    this.remember(blockId, [...nodes]);
  }

  /**
   * The replica rows of a job's blocks (replicas of map i at [i * replication, (i + 1) *
   * replication)), placed in map order, drawing from the block stream only for a block not
   * seen before.
   */
  replicasForJob(spec: TraceJob, splitBytes: readonly number[]): Int32Array {
    const blocks = spec.blocks ?? null;
    const k = this.replication;
    const nBlocks = blocks ? blocks.length : splitBytes.length;
    const replicas = new Int32Array(nBlocks * k);
    const checkNamed = !blocks && this.explicitJobPrefixes.has(spec.id);
    for (let i = 0; i < nBlocks; i++) {
      const named = blocks
        ? this.namedBlock(blocks[i] as string)
        : checkNamed
          ? this.named.get(`${spec.id}/blk_${i}`)
          : undefined;
      if (named)
        for (let r = 0; r < k; r++) replicas[i * k + r] = r < named.length ? (named[r] as number) : NO_NODE;
      else this.drawReplicas(replicas, i * k);
    }
    return replicas;
  }

  private placeClusterBlocks(cluster: ClusterSpec): void {
    const n = this.nodeCount;
    const { blocks, replication } = cluster.hdfs;
    if (blocks === 0 || n === 0) return;
    // He, dissertation, 4.4.1: replicas spread evenly over the nodes, never two on one node.
    const perm = this.rng.shuffle(Array.from({ length: n }, (_, i) => i));
    let cursor = 0;
    for (let b = 0; b < blocks; b++) {
      const replicas: number[] = [];
      for (let r = 0; r < Math.min(replication, n); r++) {
        replicas.push(perm[cursor % n] as number);
        cursor++;
      }
      this.named.set(`blk_${b}`, replicas);
    }
  }

  /**
   * A new block's replicas, written to out[at .. at + replication): distinct nodes drawn
   * uniformly, in the order drawn (a redrawn duplicate is skipped, as a set would).
   */
  private drawReplicas(out: Int32Array, at: number): void {
    const n = this.nodeCount;
    const k = this.replication;
    let chosen = 0;
    while (chosen < k) {
      const node = this.rng.int(0, n - 1);
      let seen = false;
      for (let r = 0; r < chosen; r++) if (out[at + r] === node) seen = true;
      if (!seen) out[at + chosen++] = node;
    }
  }

  /** Replicas of a block the trace names: the same set every time the name comes up. */
  private namedBlock(id: string): readonly number[] {
    const known = this.named.get(id);
    if (known) return known;
    const g = this.generatedBlock(id);
    if (g) return replicasAt(g.job, g.index, this.replication);
    const drawn = new Int32Array(this.replication);
    this.drawReplicas(drawn, 0);
    const replicas = Array.from(drawn);
    this.remember(id, replicas);
    return replicas;
  }

  private remember(id: string, replicas: number[]): void {
    this.named.set(id, replicas);
    const at = id.lastIndexOf('/blk_');
    if (at >= 0) this.explicitJobPrefixes.add(id.slice(0, at));
  }

  /** The submitted job and map whose generated block id (`${job}/blk_${i}`) this is, if any. */
  private generatedBlock(id: string): { job: JobRt; index: number } | null {
    const at = id.lastIndexOf('/blk_');
    if (at < 0) return null;
    const job = this.jobNamed(id.slice(0, at));
    if (job === undefined) return null;
    const digits = id.slice(at + 5);
    const index = Number(digits);
    if (job.blocks || !/^(0|[1-9][0-9]*)$/.test(digits) || index >= job.splitBytes.length) return null;
    return { job, index };
  }
}
