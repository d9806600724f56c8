/**
 * What reading the apps costs the ResourceManager: its JVM's CPU time and young collections over
 * a block of reads by each reader, block after block, the readers taking turns in each round (in
 * an order that turns too). The RM is never idle (NodeManager heartbeats, its scheduler, its
 * collections of a heap holding every app): right before each block its CPU is measured over a
 * window of no reads as long as that reader's last block (1 to 10 s), and that idle rate over
 * the block's wall time is taken out of the block's CPU.
 */
import { spawn } from 'node:child_process';
import { cpuMs, youngGcs } from './rm-process';

export interface Reader {
  /** As the tables name it. */
  name: string;
  /** Reads in one block (a block's CPU is divided by it). */
  perBlock: number;
  /** One read (one poll cycle, one request, one command), complete when it resolves. */
  once(): Promise<void>;
}

export interface Block {
  reader: string;
  apps: number;
  round: number;
  reads: number;
  wallMs: number;
  /** The RM's CPU time over the block (utime + stime, ms), idle not taken out. */
  rawCpuMs: number;
  /** The RM's idle CPU rate over the window of no reads right before the block (ms of CPU per s). */
  idleMsPerS: number;
  /** That window's length (ms). */
  idleWallMs: number;
  /** rawCpuMs less the idle rate over the block's wall time, per read. */
  cpuMsPerRead: number;
  youngGcs: number;
  youngGcMs: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The shortest and the longest window of no reads before a block (ms). */
export const IDLE_WINDOW_MS = { min: 1000, max: 10_000 };

/** The idle window before a reader's block: as long as its last block, within IDLE_WINDOW_MS. */
export function idleWindowMs(lastWallMs: number | undefined, firstMs: number): number {
  const ms = lastWallMs ?? firstMs;
  return Math.round(Math.min(IDLE_WINDOW_MS.max, Math.max(IDLE_WINDOW_MS.min, ms)));
}

/** A block's RM CPU per read: its CPU less the idle rate over its wall time, divided by its reads. */
export function perRead(rawCpuMs: number, wallMs: number, idleMsPerS: number, reads: number): number {
  if (!(reads > 0)) throw new Error(`a block of ${reads} reads`);
  return (rawCpuMs - (idleMsPerS * wallMs) / 1000) / reads;
}

/** The RM's CPU rate (ms per s) over `ms` of no reads. */
export async function idleRate(pid: number, ms: number): Promise<number> {
  const c0 = cpuMs(pid);
  const t0 = performance.now();
  await sleep(ms);
  return ((cpuMs(pid) - c0) * 1000) / (performance.now() - t0);
}

/** One block of a reader's reads after its idle window: the RM's CPU and young collections over it. */
async function block(
  rm: { url: string; pid: number },
  reader: Reader,
  idleWallMs: number,
  at: { apps: number; round: number },
): Promise<Block> {
  const idleMsPerS = await idleRate(rm.pid, idleWallMs);
  const g0 = await youngGcs(rm.url);
  const c0 = cpuMs(rm.pid);
  const t0 = performance.now();
  for (let i = 0; i < reader.perBlock; i++) await reader.once();
  const wallMs = performance.now() - t0;
  const rawCpuMs = cpuMs(rm.pid) - c0;
  const g1 = await youngGcs(rm.url);
  return {
    reader: reader.name,
    apps: at.apps,
    round: at.round,
    reads: reader.perBlock,
    wallMs,
    rawCpuMs,
    idleMsPerS,
    idleWallMs,
    cpuMsPerRead: perRead(rawCpuMs, wallMs, idleMsPerS, reader.perBlock),
    youngGcs: g1.young - g0.young,
    youngGcMs: g1.youngMs - g0.youngMs,
  };
}

/**
 * `rounds` rounds of one block of every reader, each after its idle window (the first as long as
 * `idleMs`), the first reader of round r being reader r mod n. Every block, in the order measured.
 */
export async function measureReaders(
  rm: { url: string; pid: number },
  readers: readonly Reader[],
  o: { apps: number; rounds: number; idleMs: number; log?: (m: string) => void },
): Promise<Block[]> {
  const out: Block[] = [];
  const lastWall = new Map<string, number>();
  for (const r of readers) await r.once(); // warm: the RM's code paths, the client's connections
  for (let round = 0; round < o.rounds; round++) {
    for (let k = 0; k < readers.length; k++) {
      const reader = readers[(round + k) % readers.length]!;
      const idleMs = idleWindowMs(lastWall.get(reader.name), o.idleMs);
      const b = await block(rm, reader, idleMs, { apps: o.apps, round });
      lastWall.set(reader.name, b.wallMs);
      out.push(b);
      o.log?.(
        `  ${o.apps} apps, round ${round + 1}/${o.rounds}, ${reader.name}: ${b.cpuMsPerRead.toFixed(1)} ms RM CPU a read (${b.rawCpuMs.toFixed(0)} ms over ${b.wallMs.toFixed(0)} ms, idle ${b.idleMsPerS.toFixed(1)} ms/s over ${idleMs} ms), ${b.youngGcs} young GCs`,
      );
    }
  }
  return out;
}

// ------------------------------------------------------------------ the readers besides the sidecar

/**
 * GET a page and read its body whole; throws unless 200 (or, with `anyStatus`, whatever the RM
 * answered: a request of the sidecar's that the RM answers 404, read again as it was). Its
 * length in bytes.
 */
export async function readWhole(url: string, accept: string, anyStatus = false): Promise<number> {
  const res = await fetch(url, { headers: { Accept: accept } });
  const body = await res.arrayBuffer();
  if (res.status !== 200 && !anyStatus) throw new Error(`GET ${url}: ${res.status}`);
  return body.byteLength;
}

/**
 * The count `yarn application -list` prints: `Total number of applications (application-types:
 * [], states: [...] and tags: []):1000`, the number after the line's last colon.
 */
export function applicationListCount(text: string): number | undefined {
  const m = /^Total number of applications\b.*:\s*(\d+)\s*$/m.exec(text);
  return m ? Number(m[1]) : undefined;
}

/**
 * `yarn application -list -appStates ALL` as the `yarn` script runs it: ApplicationCLI with the
 * cluster's client class path, in a JVM of its own. Resolves with the number of apps it listed.
 */
export function yarnApplicationList(
  info: { clientClasspath: string; javaOpts: readonly string[] },
  appStates = 'ALL',
): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      'java',
      [
        '-Xmx256m',
        ...info.javaOpts,
        '-cp',
        info.clientClasspath,
        'org.apache.hadoop.yarn.client.cli.ApplicationCLI',
        'application',
        '-list',
        '-appStates',
        appStates,
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let head = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => {
      if (head.length < 4096) head += c.toString();
    });
    child.stderr.on('data', (c: Buffer) => {
      err = (err + c.toString()).slice(-4000);
    });
    child.on('error', reject);
    child.on('close', (code) => {
      // The count goes to stderr (the CLI's own log stream), the list to stdout.
      const total = applicationListCount(`${err}\n${head}`);
      if (code !== 0 || total === undefined)
        reject(new Error(`yarn application -list exited ${code}:\n${err}${head.slice(0, 500)}`));
      else resolve(total);
    });
  });
}
