/**
 * A real Hadoop cluster for tests and for trying the sidecar by hand: builds the Java launcher in
 * hadoop/launcher/ with Maven (once per Hadoop version and source change), starts it, and reads
 * its ready line. The launcher runs HDFS, the ResourceManager(s), two NodeManagers and the
 * JobHistory server, each in a JVM of its own; see docs/real-hadoop.md.
 *
 *   const hadoop = await startHadoop({ auth: 'simple' });
 *   await fetch(`${hadoop.info.rm}/ws/v1/cluster/info?user.name=alice`);
 *   await hadoop.command('restart-rm'); // { event: 'RM_RESTARTED', data: { ... } }
 *   await hadoop.stop();
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { EventEmitter } from 'node:events';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as readline from 'node:readline';

export const DEFAULT_HADOOP_VERSION = '3.4.3';
/** Picks the Hadoop release when no option names one: `YSS_HADOOP_VERSION=3.5.0 npm run test:hadoop`. */
export const HADOOP_VERSION_ENV = 'YSS_HADOOP_VERSION';

const LAUNCHER_DIR = path.join(__dirname, 'launcher');
const START_TIMEOUT_MS = 5 * 60_000;
const STOP_TIMEOUT_MS = 30_000;
const COMMAND_TIMEOUT_MS = 150_000;
/** The launcher JVM itself: small, and quick to start (the daemons get their own options). */
const LAUNCHER_JVM = [
  '-Xmx256m',
  '-XX:+UseSerialGC',
  '-XX:TieredStopAtLevel=1',
  '-Djava.net.preferIPv4Stack=true',
];

export type HadoopErrorCode =
  'TOOLS_MISSING' | 'BUILD_FAILED' | 'START_FAILED' | 'START_TIMEOUT' | 'COMMAND_FAILED';

export class HadoopLauncherError extends Error {
  override readonly name = 'HadoopLauncherError';
  constructor(
    readonly code: HadoopErrorCode,
    message: string,
    /** The end of the launcher's (or Maven's) output, when there is one. */
    readonly outputTail?: string,
  ) {
    super(outputTail ? `${message}\n${outputTail}` : message);
  }
}

export interface HadoopOptions {
  /** Default: $YSS_HADOOP_VERSION, else 3.4.3. Any release on Maven Central with the same artifacts. */
  hadoopVersion?: string;
  /** 'simple': every web request needs ?user.name= (401 without). Default 'none' (Hadoop's stock). */
  auth?: 'none' | 'simple';
  /** yarn.cluster.max-application-priority. Default: unset (Hadoop's 0). */
  priorityCap?: number;
  /** Two ResourceManagers (rm1, rm2) and an embedded ZooKeeper. */
  ha?: boolean;
  /** RM recovery on; without it a restarted RM forgets every app. */
  recovery?: boolean;
  /**
   * A shared cluster: one user of `default` may fill it to its maximum, and the RM's preemption
   * monitor takes lent guarantees back (`on`: every 1 s, kill 5 s after the ask) or not (`off`).
   * Default: Hadoop's (no monitor), queues as docker/'s.
   */
  preemption?: 'on' | 'off';
  /**
   * Vcores each NodeManager advertises (yarn.nodemanager.resource.cpu-vcores). Default 16: more
   * than the machine has, as clusters scheduling by memory overcommit CPU. The Capacity
   * Scheduler's DominantResourceCalculator counts them, so a number no larger than the
   * machine's cores makes the cluster honest about CPU.
   */
  nmVcores?: number;
  /** Memory each NodeManager advertises (yarn.nodemanager.resource.memory-mb). Default 16384. */
  nmMemoryMb?: number;
  /**
   * The realtime queue's guarantee in the default partition, in percent (1-100, default 50); the
   * other queues share the rest 3:1:1. 100 on an honest node of 2 vcores: a lane of both.
   */
  realtimeCapacity?: number;
  /** yarn.resourcemanager.max-completed-applications: the ended apps the RM keeps. Default Hadoop's 1000. */
  maxCompletedApps?: number;
  /**
   * yarn.am.liveness-monitor.expiry-interval-ms, in seconds: an attempt whose AM is silent this
   * long (an unmanaged AM never started) fails. Default Hadoop's 600.
   */
  amExpirySeconds?: number;
  workDir?: string;
  keep?: boolean;
  startTimeoutMs?: number;
  /** Progress messages (building, starting). Default: none. */
  log?: (message: string) => void;
  /** Every line the launcher writes on stderr. Default: kept only for error messages. */
  onStderrLine?: (line: string) => void;
}

export interface HadoopNode {
  name: string;
  /** As the RM reports it, e.g. localhost:41515. */
  id: string;
  http: string;
  label: string | null;
  memoryMb: number;
  vcores: number;
}

/** The JSON of the launcher's HADOOP_READY line (and of its STATUS answer). */
export interface HadoopInfo {
  /** The active RM's web address, e.g. http://127.0.0.1:36817. */
  rm: string;
  rms: string[];
  rmIds: string[];
  activeRm: string;
  jhs: string;
  webhdfs: string;
  defaultFS: string;
  nodes: HadoopNode[];
  version: string;
  /** A client conf folder (core-, hdfs-, yarn-, mapred-site.xml) for `java -cp CONF:CLASSPATH ...`. */
  conf: string;
  /** The Hadoop jars, as a java class path (a jar and a folder wildcard). */
  classpath: string;
  /**
   * The client conf folder first, then the Hadoop jars: `java -cp CLIENT_CP MAIN ...` runs a
   * MapReduce client (e.g. org.apache.hadoop.mapreduce.SleepJob) against this cluster.
   */
  clientClasspath: string;
  /**
   * Hadoop's example jobs, `org.apache.hadoop:hadoop-mapreduce-examples` (3.4.2 for 3.4.3 and
   * 3.5.0, see examplesVersion): `java -cp CLIENT_CP org.apache.hadoop.examples.WordCount ...`
   * runs them (the jar is on `classpath` already); null when the build has none.
   */
  examplesJar: string | null;
  /** The release of that jar, e.g. 3.4.2. */
  examplesVersion: string | null;
  javaOpts: string[];
  user: string;
  auth: 'none' | 'simple';
  priorityCap: number;
  ha: boolean;
  recovery: boolean;
  preemption: 'on' | 'off' | null;
  /** Each NodeManager's advertised vcores and memory (--nm-vcores, --nm-memory-mb). */
  nmVcores: number;
  nmMemoryMb: number;
  /** The realtime queue's guarantee in the default partition, percent (--realtime-capacity). */
  realtimeCapacity: number;
  /** The ended apps the RM keeps (--max-completed-apps) and its AM liveness expiry (--am-expiry-s). */
  maxCompletedApps: number;
  amExpirySeconds: number;
  zk: string | null;
  queues: string[];
  workDir: string;
  logs: string;
  pids: Record<string, number | null>;
  launcherPid: number;
  startupMs: number;
}

export interface HadoopEvent {
  event: string;
  data: Record<string, unknown>;
}

export interface RunningHadoop {
  info: HadoopInfo;
  process: ChildProcess;
  /** Every event line after the ready line: command answers and DAEMON_EXITED. */
  events: EventEmitter<{ event: [HadoopEvent] }>;
  /** Writes one command line (status, kill-rm [ID] [--hard], start-rm [ID], restart-rm [ID]). */
  send(command: string): void;
  /** Sends a command and resolves with its answer; rejects on an ERROR answer. */
  command(command: string, timeoutMs?: number): Promise<HadoopEvent>;
  stderrTail(): string;
  /** Stops every daemon and waits for the launcher to exit (SIGKILL after 30 s). */
  stop(): Promise<void>;
}

// ------------------------------------------------------------------ tools and build

function toolVersion(command: string, args: string[]): string | null {
  const r = spawnSync(command, args, { encoding: 'utf8' });
  if (r.error || r.status !== 0) return null;
  return `${r.stdout}${r.stderr}`;
}

/** Throws TOOLS_MISSING naming what is missing (Java 17+, Maven 3) and how to install it. */
export function checkTools(): void {
  const problems: string[] = [];
  const java = toolVersion('java', ['-version']);
  if (java === null) {
    problems.push('java not found');
  } else {
    const major = Number(/version "(\d+)/.exec(java)?.[1] ?? '0');
    if (major < 17) problems.push(`java ${major || '(unknown version)'} found, 17 or newer needed`);
  }
  if (toolVersion('mvn', ['-v']) === null) problems.push('mvn not found');
  if (problems.length > 0) {
    throw new HadoopLauncherError(
      'TOOLS_MISSING',
      `real Hadoop needs Java 17+ and Maven 3 (${problems.join(', ')}): install them, e.g. ` +
        '`apt-get install openjdk-17-jdk-headless maven`, and put `java` and `mvn` on the PATH',
    );
  }
}

const TARGET_DIR = path.join(LAUNCHER_DIR, 'target');

function filesUnder(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? filesUnder(path.join(dir, e.name)) : [path.join(dir, e.name)]))
    .sort();
}

/**
 * The release of `org.apache.hadoop:hadoop-mapreduce-examples` built beside Hadoop `version`:
 * the same release when Maven Central has it, else its newest one, 3.4.2 (Maven Central has no
 * 3.4.3 and no 3.5.0 of it; 3.4.2's classes run on both clusters).
 */
export const NEWEST_EXAMPLES_VERSION = '3.4.2';

export function examplesVersion(version: string): string {
  const parts = (v: string) => v.split(/[.-]/).map((p) => (/^\d+$/.test(p) ? Number(p) : 0));
  const [a, b] = [parts(version), parts(NEWEST_EXAMPLES_VERSION)];
  for (let i = 0; i < 3; i++) {
    if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) > (b[i] ?? 0) ? NEWEST_EXAMPLES_VERSION : version;
  }
  return version;
}

/** Changes when the pom, a source file or the Hadoop version does. */
function sourceStamp(version: string): string {
  const hash = createHash('sha256').update(`hadoop.version=${version}\n`);
  for (const file of [path.join(LAUNCHER_DIR, 'pom.xml'), ...filesUnder(path.join(LAUNCHER_DIR, 'src'))]) {
    hash.update(`${path.relative(LAUNCHER_DIR, file)}\n`).update(fs.readFileSync(file));
  }
  return hash.digest('hex');
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** One build at a time per version, across processes (a test run and `npm run hadoop`). */
async function withBuildLock<T>(version: string, fn: () => Promise<T>): Promise<T> {
  const lock = path.join(TARGET_DIR, `${version}.lock`);
  fs.mkdirSync(TARGET_DIR, { recursive: true });
  for (;;) {
    try {
      fs.mkdirSync(lock);
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      // A build takes a minute or two; a lock older than 20 minutes was left by a killed one.
      if (Date.now() - fs.statSync(lock).mtimeMs > 20 * 60_000)
        fs.rmSync(lock, { recursive: true, force: true });
      await sleep(1000);
    }
  }
  try {
    return await fn();
  } finally {
    fs.rmSync(lock, { recursive: true, force: true });
  }
}

/** Whether a running process names this folder on its command line (Linux' /proc; else: assume so). */
function inUse(dir: string): boolean {
  let pids: string[];
  try {
    pids = fs.readdirSync('/proc').filter((p) => /^\d+$/.test(p));
  } catch {
    return true;
  }
  return pids.some((pid) => {
    try {
      return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(`${dir}/`);
    } catch {
      return false; // gone, or not ours to read
    }
  });
}

/** Older builds of a version, once no cluster runs from them any more. */
function removeOldBuilds(version: string, keep: string): void {
  const escaped = version.replace(/[.]/g, '\\.');
  const old = new RegExp(`^${escaped}(-[0-9a-f]{12})?$`);
  for (const name of fs.readdirSync(TARGET_DIR)) {
    const dir = path.join(TARGET_DIR, name);
    if (dir !== keep && old.test(name) && !inUse(dir)) fs.rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The launcher jar for a Hadoop version, built by Maven unless a build of the same sources is
 * there: hadoop/launcher/target/VERSION-HASH/ (git-ignored; Maven's downloads stay in ~/.m2).
 * A build goes to a folder of its own and is renamed into place when complete, so clusters
 * running from an older build (another checkout's tests, `npm run hadoop`) keep their jars.
 */
export async function ensureLauncher(
  version: string = process.env[HADOOP_VERSION_ENV] || DEFAULT_HADOOP_VERSION,
  log: (message: string) => void = () => {},
): Promise<string> {
  if (!/^[0-9][0-9A-Za-z.-]*$/.test(version)) {
    throw new HadoopLauncherError('BUILD_FAILED', `not a Hadoop version: ${version}`);
  }
  const dir = path.join(TARGET_DIR, `${version}-${sourceStamp(version).slice(0, 12)}`);
  const jar = path.join(dir, 'hadoop-launcher.jar');
  if (fs.existsSync(jar)) return jar;
  return withBuildLock(version, async () => {
    if (fs.existsSync(jar)) return jar; // built by whoever held the lock
    // Hadoop's jars and Maven's own plugins: 105 + ~45 MB into an empty ~/.m2.
    const cached = fs.existsSync(
      path.join(os.homedir(), '.m2', 'repository', 'org', 'apache', 'hadoop', 'hadoop-common', version),
    );
    log(
      `building the Hadoop ${version} launcher` +
        (cached
          ? " (jars from Maven's cache in ~/.m2)..."
          : ' (first time: downloads ~150 MB from Maven Central)...'),
    );
    const building = `${dir}.building`;
    fs.rmSync(building, { recursive: true, force: true });
    const output: string[] = [];
    const code = await new Promise<number>((resolve, reject) => {
      const mvn = spawn(
        'mvn',
        [
          '-B',
          '-q',
          `-Dhadoop.version=${version}`,
          `-Dexamples.version=${examplesVersion(version)}`,
          `-Dlauncher.build.directory=${building}`,
          'package',
        ],
        { cwd: LAUNCHER_DIR, stdio: ['ignore', 'pipe', 'pipe'] },
      );
      const keep = (chunk: Buffer): void => {
        output.push(chunk.toString());
        if (output.length > 200) output.splice(0, output.length - 200);
      };
      mvn.stdout.on('data', keep);
      mvn.stderr.on('data', keep);
      mvn.on('error', reject);
      mvn.on('close', (c) => resolve(c ?? 1));
    });
    if (code !== 0 || !fs.existsSync(path.join(building, 'hadoop-launcher.jar'))) {
      throw new HadoopLauncherError(
        'BUILD_FAILED',
        `mvn package failed for Hadoop ${version} (exit ${code})`,
        output.join('').split('\n').slice(-40).join('\n'),
      );
    }
    fs.renameSync(building, dir);
    removeOldBuilds(version, dir);
    log(`built ${path.relative(process.cwd(), jar)}`);
    return jar;
  });
}

// ------------------------------------------------------------------ running

export function launcherArgs(options: HadoopOptions): string[] {
  const args: string[] = [];
  if (options.auth) args.push('--auth', options.auth);
  if (options.priorityCap !== undefined) args.push('--priority-cap', String(options.priorityCap));
  if (options.ha) args.push('--ha');
  if (options.recovery) args.push('--recovery');
  if (options.preemption) args.push('--preemption', options.preemption);
  if (options.nmVcores !== undefined) args.push('--nm-vcores', String(options.nmVcores));
  if (options.nmMemoryMb !== undefined) args.push('--nm-memory-mb', String(options.nmMemoryMb));
  if (options.realtimeCapacity !== undefined)
    args.push('--realtime-capacity', String(options.realtimeCapacity));
  if (options.maxCompletedApps !== undefined)
    args.push('--max-completed-apps', String(options.maxCompletedApps));
  if (options.amExpirySeconds !== undefined) args.push('--am-expiry-s', String(options.amExpirySeconds));
  if (options.workDir) args.push('--work-dir', options.workDir);
  if (options.keep) args.push('--keep');
  if (options.startTimeoutMs) args.push('--start-timeout', String(Math.ceil(options.startTimeoutMs / 1000)));
  return args;
}

/** `WORD {json}` -> { event, data }; null for anything else. */
export function parseEventLine(line: string): HadoopEvent | null {
  const m = /^([A-Z][A-Z_]*) (\{.*\})\s*$/.exec(line);
  if (!m) return null;
  try {
    return { event: m[1]!, data: JSON.parse(m[2]!) as Record<string, unknown> };
  } catch {
    return null;
  }
}

/** The command line that runs the launcher jar (for a foreground run, see hadoop/cli.ts). */
export function launcherCommand(jar: string, args: string[]): { command: string; args: string[] } {
  return { command: 'java', args: [...LAUNCHER_JVM, '-jar', jar, ...args] };
}

/** Builds the launcher if needed, starts the cluster and resolves once it is ready. */
export async function startHadoop(options: HadoopOptions = {}): Promise<RunningHadoop> {
  checkTools();
  const log = options.log ?? (() => {});
  const jar = await ensureLauncher(options.hadoopVersion, log);
  const { command, args } = launcherCommand(jar, launcherArgs(options));
  log(`starting Hadoop (${args.slice(LAUNCHER_JVM.length + 2).join(' ') || 'default options'})...`);
  const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'pipe'] });
  const stderr: string[] = [];
  readline.createInterface({ input: child.stderr! }).on('line', (line) => {
    stderr.push(line);
    if (stderr.length > 60) stderr.shift();
    options.onStderrLine?.(line);
  });
  const stderrTail = (): string => stderr.join('\n');
  const events = new EventEmitter<{ event: [HadoopEvent] }>();
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  child.stdin!.on('error', () => {}); // the launcher may be gone when we write or close

  const info = await new Promise<HadoopInfo>((resolve, reject) => {
    let ready = false;
    const timeoutMs = options.startTimeoutMs ?? START_TIMEOUT_MS;
    const timer = setTimeout(() => {
      child.kill('SIGTERM');
      reject(
        new HadoopLauncherError('START_TIMEOUT', `Hadoop not ready after ${timeoutMs} ms`, stderrTail()),
      );
    }, timeoutMs);
    readline.createInterface({ input: child.stdout! }).on('line', (line) => {
      const e = parseEventLine(line);
      if (!e) return;
      if (!ready && e.event === 'HADOOP_READY') {
        ready = true;
        clearTimeout(timer);
        resolve(e.data as unknown as HadoopInfo);
      } else {
        events.emit('event', e);
      }
    });
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(new HadoopLauncherError('START_FAILED', `could not run java: ${err.message}`));
    });
    void exited.then((code) => {
      clearTimeout(timer);
      if (!ready) {
        // Let the last stderr lines arrive before quoting them.
        setTimeout(
          () =>
            reject(
              new HadoopLauncherError(
                'START_FAILED',
                `the Hadoop launcher exited (code ${code}) before ready`,
                stderrTail(),
              ),
            ),
          100,
        );
      }
    });
  });
  log(`Hadoop ${info.version} ready in ${info.startupMs} ms: RM ${info.rm}`);

  let queue: Promise<unknown> = Promise.resolve();
  const running: RunningHadoop = {
    info,
    process: child,
    events,
    stderrTail,
    send(line: string): void {
      child.stdin!.write(`${line}\n`);
    },
    command(line: string, timeoutMs = COMMAND_TIMEOUT_MS): Promise<HadoopEvent> {
      // The launcher answers one command at a time, in order: so do we.
      const answer = queue.then(
        () =>
          new Promise<HadoopEvent>((resolve, reject) => {
            const onEvent = (e: HadoopEvent): void => {
              if (e.event === 'DAEMON_EXITED') return;
              done();
              if (e.event === 'ERROR') {
                reject(new HadoopLauncherError('COMMAND_FAILED', `${line}: ${String(e.data['message'])}`));
              } else {
                resolve(e);
              }
            };
            const timer = setTimeout(() => {
              done();
              reject(
                new HadoopLauncherError(
                  'COMMAND_FAILED',
                  `${line}: no answer in ${timeoutMs} ms`,
                  stderrTail(),
                ),
              );
            }, timeoutMs);
            const done = (): void => {
              clearTimeout(timer);
              events.off('event', onEvent);
            };
            events.on('event', onEvent);
            running.send(line);
          }),
      );
      queue = answer.catch(() => {});
      return answer;
    },
    async stop(): Promise<void> {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      child.stdin!.end();
      const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
      await exited;
      clearTimeout(timer);
    },
  };
  return running;
}
