import express, { type Request, type Response } from 'express';
import { nodePartition } from './ports';
import type { EmulatedRm } from './rm-state';

/**
 * WebHDFS for the emulated cluster's HDFS: the three reads the sidecar uses for data locality,
 * `GETFILESTATUS`, `LISTSTATUS` and `GETFILEBLOCKLOCATIONS` (INDEX.md section 12, W1, W2, W4),
 * over a fixed set of files whose blocks sit on the emulated nodes. Served on the RM's port
 * (`/webhdfs/v1/...` does not clash with the RM's paths), so the sidecar's
 * `rm.webHdfsAddress` is the emulator's address. Bodies have the shapes of Hadoop's samples;
 * errors are WebHDFS RemoteExceptions (404 FileNotFoundException, 400 IllegalArgumentException).
 */

export interface HdfsBlock {
  readonly bytes: number;
  /** Host names of the replicas (DataNodes on the emulated nodes). */
  readonly hosts: readonly string[];
}

export interface HdfsFile {
  /** Absolute path, e.g. `/data/events/part-00000`. */
  readonly path: string;
  readonly blocks: readonly HdfsBlock[];
}

/** A file to lay out on the emulated nodes: its size, and the partition its replicas go to. */
export interface HdfsFileOption {
  readonly path: string;
  readonly bytes: number;
  /** Only nodes of this label partition ('' = the default one) hold its replicas; any node when unset. */
  readonly label?: string;
}

/** The DataNode transfer port in `names` and `topologyPaths` (dfs.datanode.address). */
const DATANODE_PORT = 9866;

/**
 * Lays a file out in blocks of `blockBytes` with `replication` replicas each, spread round-robin
 * over `hosts` (never two replicas of a block on one host), as the simulator spreads its
 * cluster blocks (He, dissertation, 4.4.1). Deterministic: the same inputs give the same layout.
 */
export function layOutFile(
  path: string,
  bytes: number,
  hosts: readonly string[],
  opts: { blockBytes: number; replication: number },
): HdfsFile {
  if (!path.startsWith('/')) throw new RangeError(`HDFS path must be absolute: ${JSON.stringify(path)}`);
  if (!(bytes >= 0)) throw new RangeError(`file ${path}: bytes must be >= 0`);
  if (bytes > 0 && hosts.length === 0) throw new RangeError(`file ${path}: no node to place its blocks on`);
  const r = Math.min(Math.max(1, opts.replication), hosts.length);
  const blocks: HdfsBlock[] = [];
  for (let offset = 0, b = 0; offset < bytes; offset += opts.blockBytes, b++) {
    const replicas = Array.from({ length: r }, (_, k) => hosts[(b * r + k) % hosts.length]!);
    blocks.push({ bytes: Math.min(opts.blockBytes, bytes - offset), hosts: [...new Set(replicas)] });
  }
  return { path, blocks };
}

function normalise(path: string): string {
  const p = `/${path.split('/').filter(Boolean).join('/')}`;
  return p;
}

function parentOf(path: string): string {
  const i = path.lastIndexOf('/');
  return i <= 0 ? '/' : path.slice(0, i);
}

function nameOf(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

/** The emulated namespace: the files given and every directory above them. */
export class EmulatedHdfs {
  private readonly files = new Map<string, HdfsFile>();
  private readonly dirs = new Map<string, Set<string>>([['/', new Set()]]);

  constructor(
    files: readonly HdfsFile[],
    private readonly modificationTime = 0,
    private readonly blockSize = 128 * 1024 * 1024,
  ) {
    for (const f of files) {
      const path = normalise(f.path);
      if (this.dirs.has(path)) throw new RangeError(`${path} is both a file and a directory`);
      this.files.set(path, { ...f, path });
      let child = path;
      for (let dir = parentOf(path); ; child = dir, dir = parentOf(dir)) {
        if (this.files.has(dir)) throw new RangeError(`${dir} is both a file and a directory`);
        const entries = this.dirs.get(dir) ?? new Set<string>();
        entries.add(nameOf(child));
        this.dirs.set(dir, entries);
        if (dir === '/') break;
      }
    }
  }

  private fileEntry(f: HdfsFile, pathSuffix: string): Record<string, unknown> {
    return {
      accessTime: this.modificationTime,
      blockSize: this.blockSize,
      childrenNum: 0,
      fileId: 16386 + [...this.files.keys()].indexOf(f.path),
      group: 'supergroup',
      length: f.blocks.reduce((a, b) => a + b.bytes, 0),
      modificationTime: this.modificationTime,
      owner: 'hdfs',
      pathSuffix,
      permission: '644',
      replication: Math.max(0, ...f.blocks.map((b) => b.hosts.length)),
      storagePolicy: 0,
      type: 'FILE',
    };
  }

  private dirEntry(path: string, pathSuffix: string): Record<string, unknown> {
    return {
      accessTime: 0,
      blockSize: 0,
      childrenNum: this.dirs.get(path)!.size,
      fileId: 16385,
      group: 'supergroup',
      length: 0,
      modificationTime: this.modificationTime,
      owner: 'hdfs',
      pathSuffix,
      permission: '755',
      replication: 0,
      storagePolicy: 0,
      type: 'DIRECTORY',
    };
  }

  /** GETFILESTATUS's `FileStatus`, or undefined when the path does not exist. */
  status(path: string): Record<string, unknown> | undefined {
    const p = normalise(path);
    const f = this.files.get(p);
    if (f) return this.fileEntry(f, '');
    return this.dirs.has(p) ? this.dirEntry(p, '') : undefined;
  }

  /** LISTSTATUS's entries: a directory's children, one level; a file, itself with an empty suffix. */
  list(path: string): Record<string, unknown>[] | undefined {
    const p = normalise(path);
    const f = this.files.get(p);
    if (f) return [this.fileEntry(f, '')];
    const children = this.dirs.get(p);
    if (!children) return undefined;
    return [...children].sort().map((name) => {
      const child = p === '/' ? `/${name}` : `${p}/${name}`;
      const cf = this.files.get(child);
      return cf ? this.fileEntry(cf, name) : this.dirEntry(child, name);
    });
  }

  /** GETFILEBLOCKLOCATIONS's blocks overlapping [offset, offset + length); undefined for no such file. */
  blockLocations(path: string, offset = 0, length?: number): Record<string, unknown>[] | undefined {
    const f = this.files.get(normalise(path));
    if (!f) return undefined;
    const end = length === undefined ? Number.POSITIVE_INFINITY : offset + length;
    const out: Record<string, unknown>[] = [];
    let at = 0;
    for (const b of f.blocks) {
      if (at + b.bytes > offset && at < end) {
        out.push({
          cachedHosts: [],
          corrupt: false,
          hosts: [...b.hosts],
          length: b.bytes,
          names: b.hosts.map((h) => `${h}:${DATANODE_PORT}`),
          offset: at,
          storageTypes: b.hosts.map(() => 'DISK'),
          topologyPaths: b.hosts.map((h) => `/default-rack/${h}:${DATANODE_PORT}`),
        });
      }
      at += b.bytes;
    }
    return out;
  }

  isDirectory(path: string): boolean {
    return this.dirs.has(normalise(path));
  }
}

function remote(res: Response, status: number, exception: string, javaClassName: string, message: string) {
  res
    .status(status)
    .type('application/json')
    .send(JSON.stringify({ RemoteException: { exception, javaClassName, message } }));
}

function notFound(res: Response, path: string): void {
  remote(res, 404, 'FileNotFoundException', 'java.io.FileNotFoundException', `File does not exist: ${path}`);
}

function badParam(res: Response, name: string, value: string): void {
  remote(
    res,
    400,
    'IllegalArgumentException',
    'java.lang.IllegalArgumentException',
    `Invalid value for webhdfs parameter "${name}": ${value}`,
  );
}

function nonNegative(v: unknown): number | undefined | null {
  if (v === undefined) return undefined;
  const n = Number(v);
  return typeof v === 'string' && /^\d+$/.test(v) && Number.isSafeInteger(n) ? n : null;
}

/** The `/webhdfs/v1/*` routes over an emulated namespace (read only: other ops answer 400). */
export function buildWebHdfsApp(hdfs: EmulatedHdfs): express.Router {
  const r = express.Router();
  r.get('/webhdfs/v1{/*hdfsPath}', (req: Request, res: Response) => {
    const parts = ([] as string[]).concat((req.params.hdfsPath as string | string[] | undefined) ?? []);
    const path = normalise(parts.join('/'));
    const op = String(req.query.op ?? '').toUpperCase();
    switch (op) {
      case 'GETFILESTATUS': {
        const s = hdfs.status(path);
        return s ? res.json({ FileStatus: s }) : notFound(res, path);
      }
      case 'LISTSTATUS': {
        const l = hdfs.list(path);
        return l ? res.json({ FileStatuses: { FileStatus: l } }) : notFound(res, path);
      }
      case 'GETFILEBLOCKLOCATIONS': {
        const offset = nonNegative(req.query.offset);
        const length = nonNegative(req.query.length);
        if (offset === null) return badParam(res, 'offset', String(req.query.offset));
        if (length === null) return badParam(res, 'length', String(req.query.length));
        if (hdfs.isDirectory(path))
          return remote(
            res,
            404,
            'FileNotFoundException',
            'java.io.FileNotFoundException',
            `Path is not a file: ${path}`,
          );
        const b = hdfs.blockLocations(path, offset ?? 0, length);
        return b ? res.json({ BlockLocations: { BlockLocation: b } }) : notFound(res, path);
      }
      default:
        return badParam(res, 'op', op === '' ? '(none)' : `No enum constant ${op}`);
    }
  });
  return r;
}

/**
 * The namespace of an emulated cluster, and its blocks placed in the simulation: each file is
 * laid out on the nodes of its partition (all nodes when it names none), in blocks of the
 * cluster's `hdfs.blockMB` with its replication (layOutFile), and every block is placed in the
 * engine on those nodes (EmulatedRm.placeInputFile), so a job that reads the file runs its maps
 * against the same replicas. The hosts WebHDFS answers with are read back from the engine's
 * placement (`replicasOf`): the two cannot disagree. Call once per emulated RM.
 */
export function emulatedHdfsOf(rm: EmulatedRm, files: readonly HdfsFileOption[]): EmulatedHdfs {
  const { blockMB, replication } = rm.config.cluster.hdfs;
  const blockBytes = blockMB * 1024 * 1024;
  const nodes = rm.nodeUsage();
  const indexOf = new Map<string, number>();
  for (let i = 0; i < rm.engine.nodeCount; i++) indexOf.set(rm.engine.nodeId(i), i);
  return new EmulatedHdfs(
    files.map((f) => {
      const laid = layOutFile(
        normalise(f.path),
        f.bytes,
        nodes.filter((n) => f.label === undefined || nodePartition(n.labels) === f.label).map((n) => n.host),
        { blockBytes, replication },
      );
      const placed = rm.placeInputFile(
        laid.path,
        laid.blocks.map((b) => ({ bytes: b.bytes, nodes: b.hosts.map((h) => indexOf.get(h)!) })),
      );
      return {
        path: laid.path,
        blocks: placed.blocks.map((b) => ({
          bytes: b.bytes,
          hosts: rm.engine.replicasOf(b.id).map((i) => rm.engine.nodeId(i)),
        })),
      };
    }),
    rm.clusterTimestamp,
    blockBytes,
  );
}
