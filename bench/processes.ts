/**
 * Processes the load benches run: trees built with tsc (this one, or a commit's exported beside
 * it), the CLI started from a tree, waiting for it to listen, stopping it, and its memory.
 * Free of src/ imports, as bench/support.ts.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exportBaseTree, git, isDirty, MB, ROOT, TOKEN } from './support';

export interface Tree {
  label: string;
  root: string;
  commit: string;
  /** The sidecar's ledger on this PostgreSQL database (`ledger.url`) instead of a SQLite file. */
  ledgerUrl?: string;
}

/** An environment variable holding a positive integer (or 0, with `zero`), or `fallback` when unset. */
export const int = (name: string, fallback: number, o: { zero?: boolean } = {}): number => {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  const least = o.zero ? 0 : 1;
  if (!Number.isInteger(n) || n < least)
    throw new Error(`${name} must be a ${o.zero ? 'non-negative' : 'positive'} integer, not ${raw}`);
  return n;
};

/** A tree built with tsc into its dist/, emptied first: a file of an earlier layout would shadow a module. */
export function build(root: string): void {
  rmSync(join(root, 'dist'), { recursive: true, force: true });
  execFileSync(join(ROOT, 'node_modules', '.bin', 'tsc'), ['-p', join(root, 'tsconfig.build.json')], {
    cwd: root,
    stdio: 'inherit',
  });
}

/** This working tree, built in place. */
export function thisTree(): Tree {
  build(ROOT);
  const dirty = isDirty();
  return {
    label: 'this',
    root: ROOT,
    commit: `${git('rev-parse', '--short', 'HEAD')}${dirty ? '+changes' : ''}`,
  };
}

/** A commit's tree, exported to a temporary directory and built there with this tree's modules. */
export function baseTree(dir: string, ref?: string): Tree {
  const { root, commit } = exportBaseTree(dir, ref);
  build(root);
  return { label: 'base', root, commit };
}

/**
 * Builds this tree and the base one (exported to a temporary folder named from `prefix`, removed
 * afterwards) and runs `body` with them and that folder.
 */
export async function withTrees(
  prefix: string,
  body: (trees: { base: Tree; here: Tree; dir: string }) => Promise<void>,
): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  try {
    const here = thisTree();
    const base = baseTree(dir);
    await body({ base, here, dir });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export function freePort(): Promise<number> {
  return new Promise((ok, fail) => {
    const s = createServer();
    s.once('error', fail);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => ok(port));
    });
  });
}

/**
 * With YSS_BENCH_SYNC_US=N: the environment that gives a sidecar a disk whose every sync takes N
 * microseconds more (bench/slow-sync.c, built here once with the system's `cc` and loaded with
 * LD_PRELOAD; Linux). Empty when unset.
 */
export function slowSyncEnv(): Record<string, string> {
  const us = int('YSS_BENCH_SYNC_US', 0, { zero: true });
  if (us === 0) return {};
  if (process.platform !== 'linux') throw new Error('YSS_BENCH_SYNC_US needs Linux (LD_PRELOAD)');
  if (slowSyncLibrary === undefined) {
    const out = join(mkdtempSync(join(tmpdir(), 'yss-slow-sync-')), 'slow-sync.so');
    try {
      execFileSync('cc', ['-shared', '-fPIC', '-O2', '-o', out, join(ROOT, 'bench', 'slow-sync.c'), '-ldl'], {
        stdio: 'inherit',
      });
    } catch (err) {
      throw new Error(`YSS_BENCH_SYNC_US needs a C compiler (cc) to build bench/slow-sync.c: ${String(err)}`);
    }
    slowSyncLibrary = out;
  }
  return { LD_PRELOAD: slowSyncLibrary, SLOW_SYNC_US: String(us) };
}
let slowSyncLibrary: string | undefined;

export function cli(
  root: string,
  args: string[],
  nodeArgs: string[] = [],
  env: Record<string, string> = {},
): ChildProcess {
  const child = spawn(process.execPath, [...nodeArgs, join(root, 'bin', 'yarn-sched-sidecar.js'), ...args], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  child.stderr!.on('data', (d: Buffer) => {
    err = (err + d.toString()).slice(-4000);
  });
  child.on('exit', (code, signal) => {
    if (code !== 0 && signal === null) console.error(`${args[0]} exited ${code}: ${err}`);
  });
  return child;
}

export async function waitFor(url: string, what: string, timeoutMs = 60_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > until) throw new Error(`${what} not ready at ${url} within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

export async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise<void>((ok) => child.once('exit', () => ok()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await gone;
  clearTimeout(timer);
}

/** Clock ticks per second of /proc's CPU times (getconf CLK_TCK; 100 on Linux's usual builds). */
let clockTicks: number | undefined;

/**
 * CPU time (user and system) a process has used so far, in ms (Linux). Unlike answers per
 * second, CPU per answer hardly moves when other work shares the cores.
 */
export function cpuMsOf(pid: number): number {
  clockTicks ??= Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // After the command name (which may hold spaces): state is field 3, utime 14 and stime 15.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / clockTicks;
}

/** VmRSS and VmHWM of a process, in MB (Linux). */
export function memoryOf(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { rss: kb('VmRSS') / 1024, peak: kb('VmHWM') / 1024 };
}

/**
 * The sidecar configuration the load benches start it with (an emulated RM and JobHistory on
 * loopback, the bench's token, a ledger in `work` or on PostgreSQL at `ledgerUrl`, or the file
 * at `ledgerPath`), written to work/`file` (sidecar.yaml unless given); its path. `ledger` adds
 * lines under `ledger:`, `extra` lines of other sections; the log level is info unless given.
 */
export function writeSidecarConfig(
  work: string,
  o: {
    rmPort: number;
    jhsPort: number;
    port: number;
    ledgerUrl?: string;
    ledgerPath?: string;
    file?: string;
    ledger?: string[];
    extra?: string[];
    level?: string;
  },
): string {
  const config = join(work, o.file ?? 'sidecar.yaml');
  writeFileSync(
    config,
    [
      'rm:',
      `  addresses: ['http://127.0.0.1:${o.rmPort}']`,
      `  jobHistoryAddress: 'http://127.0.0.1:${o.jhsPort}'`,
      'auth:',
      `  tokens: [{ name: bench, token: '${TOKEN}' }]`,
      'server:',
      `  port: ${o.port}`,
      '  host: 127.0.0.1',
      'ledger:',
      o.ledgerUrl === undefined
        ? `  path: '${o.ledgerPath ?? join(work, 'ledger.db')}'`
        : `  url: '${o.ledgerUrl}'`,
      ...(o.ledger ?? []),
      ...(o.extra ?? []),
      'log:',
      `  level: ${o.level ?? 'info'}`,
      '',
    ].join('\n'),
  );
  return config;
}

/** A tree's sidecar, started beside an emulated RM, both running. */
export interface Stack {
  /** The sidecar's API. */
  url: string;
  /** The sidecar's process id (its memory and CPU time). */
  pid: number;
  /** Stops both and removes their files. */
  close: () => Promise<void>;
}

/**
 * The environment a tree's image runs the sidecar in: the `ENV KEY=VALUE` lines of
 * docker/Dockerfile's last stage (NODE_ENV, and NODE_OPTIONS with the heap's sizes). The benches
 * start each tree's sidecar with its own, so a setting changed there is measured as a change.
 */
export function deployedEnv(root: string): Record<string, string> {
  const file = join(root, 'docker', 'Dockerfile');
  const lines = readFileSync(file, 'utf8').split('\n');
  const from = lines.map((l, i) => (/^FROM\s/i.test(l) ? i : -1)).filter((i) => i >= 0);
  const runtime = lines.slice(from[from.length - 1] ?? 0);
  // NODE_OPTIONS is the image's or none: never the one of the shell that runs the bench.
  const env: Record<string, string> = { NODE_OPTIONS: '' };
  for (const line of runtime) {
    if (!/^ENV\s/i.test(line)) continue;
    const m = /^ENV\s+([A-Za-z_][A-Za-z0-9_]*)=("([^"\\]*)"|\S*)\s*$/i.exec(line);
    if (!m) throw new Error(`${file}: ${line}: only ENV KEY=VALUE (one a line) is read here`);
    env[m[1]!] = m[3] ?? m[2]!;
  }
  return env;
}

/** `root`'s emulated RM and JobHistory (`emulator`) on these ports, time scaled `speed` times. */
export const startEmulatorProcess = (root: string, rmPort: number, jhsPort: number, speed: number) =>
  cli(root, ['emulator', '--port', String(rmPort), '--jhs-port', String(jhsPort), '--speed', String(speed)]);

/**
 * Starts an emulated RM and JobHistory (`emulator`, from `emulatorRoot`, time scaled `speed`
 * times) and `tree`'s sidecar against it (`start`, with writeSidecarConfig's configuration in a
 * folder of `dir`, the sidecar's process given `nodeArgs` and its image's environment,
 * deployedEnv), each on a free loopback port, and waits until both answer. If either fails to
 * start, both are stopped.
 */
export async function startStack(
  tree: Tree,
  emulatorRoot: string,
  dir: string,
  o: { speed: number; nodeArgs?: string[] },
): Promise<Stack> {
  const [rmPort, jhsPort, port] = [await freePort(), await freePort(), await freePort()];
  const work = mkdtempSync(join(dir, `${tree.label}-`));
  const emulator = startEmulatorProcess(emulatorRoot, rmPort, jhsPort, o.speed);
  let sidecar: ChildProcess | undefined;
  const close = async () => {
    if (sidecar) await stop(sidecar);
    await stop(emulator);
    rmSync(work, { recursive: true, force: true });
  };
  try {
    await waitFor(`http://127.0.0.1:${rmPort}/ws/v1/cluster/info`, 'emulated RM');
    const config = writeSidecarConfig(work, { rmPort, jhsPort, port, ledgerUrl: tree.ledgerUrl });
    sidecar = cli(tree.root, ['start', '--config', config], o.nodeArgs, {
      ...deployedEnv(tree.root),
      ...slowSyncEnv(),
    });
    const url = `http://127.0.0.1:${port}`;
    await waitFor(`${url}/readyz`, `sidecar (${tree.label})`);
    return { url, pid: sidecar.pid!, close };
  } catch (err) {
    await close();
    throw err;
  }
}

/**
 * The body of the load benches' i-th submission, named `name`: 1 to 8 maps of a block each, 1
 * to 3 reduces, a deadline of 1 min to 2 h spread evenly over the run (so some are admitted and
 * the rest rejected), and a launch context the emulated RM runs.
 */
export function benchSubmission(name: string, i: number, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    name,
    user: 'bench',
    deadline: 60 + ((i * 7919) % 7140),
    maps: 1 + (i % 8),
    reduces: 1 + (i % 3),
    inputBytes: (1 + (i % 8)) * 128 * MB,
    jobType: 'cpu',
    yarnSubmission: { 'am-container-spec': { commands: { command: 'sleep 300' } } },
    ...extra,
  });
}

/** Answers per second, latency (ms) and answers not 2xx (errors and timeouts included) of a load run. */
export interface Answers {
  perSecond: number;
  p50: number;
  p99: number;
  max: number;
  bad: number;
}

/** What an autocannon run measured, as Answers. */
export function answersOf(r: {
  requests: { average: number };
  latency: { p50: number; p99: number; max: number };
  non2xx: number;
  errors: number;
  timeouts: number;
}): Answers {
  return {
    perSecond: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    max: r.latency.max,
    bad: r.non2xx + r.errors + r.timeouts,
  };
}
