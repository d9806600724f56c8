/**
 * Data locality at the level of label partitions, for the live sidecar's partition choice.
 *
 * EFH's fitness of container i for job j is h_ij = ef_ij * dop_ij (He, dissertation, eq. 6.1), where
 * dop_ij is the share of j's input stored on i's node (eq. 6.2). The sidecar does not pick
 * containers, only the node label partition a job's containers come from, so it lifts both
 * factors to a partition p: dop_jp is the share of j's input bytes that has at least one
 * replica on a node of p (a map task reading such a block can run node-local somewhere in p),
 * and ef_jp = 1 / E_jp, the energy of one map task of j in p's containers.
 *
 * Worked example (the tests' "three blocks" case): blocks of 128, 128 and 64 MB with replicas
 * {gpu-1, cpu-1}, {gpu-1, gpu-2} and {cpu-2}: 320 MB in all; the default partition holds a
 * replica of blocks 1 and 3 (192 MB), `gpu` of blocks 1 and 2 (256 MB): dop = 0.6 and 0.8.
 * A block with replicas in both partitions counts in both, so the dops of disjoint partitions
 * add up to at least the located share of the input (here 1.4 >= 1).
 *
 * Pure: no I/O, no clock. The WebHDFS reads that feed it are in src/loop/locality.ts.
 */

/** One block of an input file: its length and the hosts (and `host:port` names) of its replicas. */
export interface LocatedBlock {
  readonly length: number;
  readonly hosts: readonly string[];
  /** DataNode transfer addresses, `host:port` or `ip:port`; matched on their host part. */
  readonly names?: readonly string[];
}

/** Host name to the label partition of the node on it ('' = the default partition). */
export type HostPartitions = ReadonlyMap<string, string>;

export interface PartitionLocality {
  /** False when no byte of the input has a replica on a known node: dop is then uniform, 1 everywhere. */
  readonly known: boolean;
  readonly totalBytes: number;
  /** Bytes with at least one replica on a node the RM reported. */
  readonly locatedBytes: number;
  /** dop per partition, in [0, 1]. */
  readonly dop: Readonly<Record<string, number>>;
}

/**
 * The host of a `host:port` name (`dn1.example.com:9866` -> `dn1.example.com`, `[::1]:9866` ->
 * `::1`), lower-cased: host names are case-insensitive, and the RM and the NameNode may spell
 * them differently.
 */
export function hostOf(name: string): string {
  const n = name.trim().toLowerCase();
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(n);
  if (bracketed) return bracketed[1]!;
  // A bare IPv6 address has several colons and no port.
  if ((n.match(/:/g) ?? []).length > 1) return n;
  const colon = n.indexOf(':');
  return colon < 0 ? n : n.slice(0, colon);
}

/** The partitions a block has a replica in, by its hosts and names. */
function partitionsOfBlock(block: LocatedBlock, hostPartition: HostPartitions): Set<string> {
  const out = new Set<string>();
  for (const h of [...block.hosts, ...(block.names ?? [])]) {
    const p = hostPartition.get(hostOf(h));
    if (p !== undefined) out.add(p);
  }
  return out;
}

/** A host map from node reports: each node's host (lower-cased) to its first label, '' when none. */
export function hostPartitionsOf(
  nodes: readonly { readonly host: string; readonly nodeLabels: readonly string[] }[],
): Map<string, string> {
  return new Map(nodes.map((n) => [hostOf(n.host), n.nodeLabels[0] ?? '']));
}

/**
 * dop per partition (eq. 6.2 lifted to partitions): the share of the input's bytes with at
 * least one replica on a node of the partition. Without any located byte (no blocks, empty
 * files, or no replica on a node the RM knows), dop is uniform, 1 in every partition, as
 * `dataOverlap` does per node: the fitness then reduces to the energy efficiency.
 */
export function partitionDop(
  blocks: readonly LocatedBlock[],
  hostPartition: HostPartitions,
  partitions: readonly string[],
): PartitionLocality {
  const bytesIn = new Map<string, number>(partitions.map((p) => [p, 0]));
  let total = 0;
  let located = 0;
  for (const b of blocks) {
    const len = Math.max(0, b.length);
    total += len;
    const ps = partitionsOfBlock(b, hostPartition);
    if (ps.size > 0) located += len;
    for (const p of ps) if (bytesIn.has(p)) bytesIn.set(p, bytesIn.get(p)! + len);
  }
  if (located === 0) return uniformLocality(partitions, total);
  const dop: Record<string, number> = {};
  for (const p of partitions) dop[p] = bytesIn.get(p)! / total;
  return { known: true, totalBytes: total, locatedBytes: located, dop };
}

/** dop = 1 in every partition: what the choice uses when locality is not known. */
export function uniformLocality(partitions: readonly string[], totalBytes = 0): PartitionLocality {
  return {
    known: false,
    totalBytes,
    locatedBytes: 0,
    dop: Object.fromEntries(partitions.map((p) => [p, 1])),
  };
}

export interface PartitionCandidate {
  readonly label: string;
  /** E_jp: energy of one map task of the job in the partition; undefined when the profile has none. */
  readonly mapEnergy: number | undefined;
}

export interface RankedPartition {
  readonly label: string;
  /** ef_jp = 1 / E_jp; null when no energy is known for any candidate (the choice is by dop alone). */
  readonly ef: number | null;
  readonly dop: number;
  /** h_jp = ef_jp * dop_jp (eq. 6.1); dop alone without energy figures. */
  readonly h: number;
}

/**
 * The candidate partitions best first by h = ef * dop. Without any energy figure ef is left
 * out (h = dop); a partition without a figure while others have one gets ef = 0 and ranks last,
 * as `energyEfficiency` does for a container. Ties go to the more efficient partition, then to
 * the order given (the default partition before the GPU one), so uniform dop gives the
 * energy-only order.
 */
export function rankPartitions(
  candidates: readonly PartitionCandidate[],
  locality: PartitionLocality,
  by: PartitionRanking = 'fitness',
): RankedPartition[] {
  const anyEnergy = candidates.some((c) => c.mapEnergy !== undefined && c.mapEnergy > 0);
  const ranked = candidates.map((c, index) => {
    const energy = c.mapEnergy !== undefined && c.mapEnergy > 0 ? c.mapEnergy : undefined;
    const ef = anyEnergy ? (energy !== undefined ? 1 / energy : 0) : null;
    const dop = locality.dop[c.label] ?? (locality.known ? 0 : 1);
    return { index, energy, label: c.label, ef, dop, h: (ef ?? 1) * dop };
  });
  const key = RANK_KEYS[by];
  // Ties go to the lower energy itself: two energies a few ulps apart can have equal
  // reciprocals, so comparing ef would lose which one is lower.
  const lessEnergy = (a: (typeof ranked)[number], b: (typeof ranked)[number]) =>
    (a.energy ?? Infinity) - (b.energy ?? Infinity) || 0;
  ranked.sort((a, b) => key(b) - key(a) || (by === 'given' ? 0 : lessEnergy(a, b)) || a.index - b.index);
  return ranked.map(({ index: _i, energy: _e, ...r }) => r);
}

/**
 * How a placement policy orders a job's candidate partitions in the live sidecar (its
 * capability `partitionRanking` in the registry): `fitness` by EFH's h = ef * dop, `energy` by
 * ef alone (dop ignored), `locality` by dop alone (energy only breaks ties), `given` in the
 * order given (the default partition first).
 */
export type PartitionRanking = 'fitness' | 'energy' | 'locality' | 'given';

const RANK_KEYS: Record<PartitionRanking, (r: RankedPartition) => number> = {
  fitness: (r) => r.h,
  energy: (r) => r.ef ?? 0,
  locality: (r) => r.dop,
  given: () => 0,
};

export interface InputListing {
  /** The path as submitted. */
  readonly path: string;
  /** Its LISTSTATUS answer. */
  readonly entries: readonly {
    readonly pathSuffix: string;
    readonly type: string;
    readonly length: number;
    readonly blockSize?: number;
  }[];
}

export interface InputFile {
  readonly path: string;
  readonly length: number;
  /** The file's block size as listed (0 when the listing gave none): its splits follow it. */
  readonly blockSize: number;
}

/**
 * The files a MapReduce job reads from its input paths, as FileInputFormat lists them without
 * recursion: a path that is a file is itself (LISTSTATUS of a file answers one entry with an
 * empty `pathSuffix`); a directory contributes its files one level down, without hidden ones
 * (names starting with `_` or `.`, FileInputFormat's hiddenFileFilter, e.g. `_SUCCESS`) and
 * without subdirectories. A file named twice counts once.
 */
export function inputFiles(listings: readonly InputListing[]): InputFile[] {
  const out = new Map<string, InputFile>();
  for (const { path, entries } of listings) {
    const isFile = entries.length === 1 && entries[0]!.pathSuffix === '' && entries[0]!.type === 'FILE';
    if (isFile) {
      out.set(path, { path, length: entries[0]!.length, blockSize: entries[0]!.blockSize ?? 0 });
      continue;
    }
    const dir = path.replace(/\/+$/, '');
    for (const e of entries) {
      if (e.type !== 'FILE' || e.pathSuffix === '' || /^[_.]/.test(e.pathSuffix)) continue;
      const p = `${dir}/${e.pathSuffix}`;
      out.set(p, { path: p, length: e.length, blockSize: e.blockSize ?? 0 });
    }
  }
  return [...out.values()];
}
