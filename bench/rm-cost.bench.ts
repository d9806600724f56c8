/**
 * What the sidecar costs the cluster, on the real Hadoop of `npm run hadoop` (run only when
 * named: `npm run bench -- rm-cost`; it takes about 15 minutes). Two parts, each side by side in
 * one run:
 *
 * 1. Time to start (`start`): the same SleepJob submitted by its own client alone (plain
 *    `java -cp <client classpath> SleepJob`) and through `yarn-sched-sidecar run` (this tree's
 *    compiled CLI; with RM_COST_BASE also a commit's, exported and built beside it), taking turns,
 *    against a sidecar polling at its default interval (5 s): submission to the RM's acceptance,
 *    to RUNNING and to the first task, and what `run` adds, split (bench/rm-cost/start.ts).
 * 2. The RM's CPU (`cost`): the RM is filled with apps (bench/rm-cost/populate.ts: 500 deadline
 *    jobs through the sidecar, each an unmanaged-AM app left ACCEPTED; other users' apps, one in
 *    ten left ACCEPTED, the rest killed), then, at each size, rounds of one block per reader:
 *    the sidecar's poll cycle, an unfiltered GET /ws/v1/cluster/apps, `yarn application -list
 *    -appStates ALL` and the RM's web UI apps page; the RM JVM's CPU (utime + stime from /proc)
 *    and young collections (its /jmx) over each block, less its idle rate over a window of no
 *    reads right before the block, as long as that reader's last block (bench/rm-cost/cost.ts).
 *    The sidecar reaches the RM through a recording proxy (bench/rm-cost/recorder.ts): its
 *    requests by kind over those cycles, then each kind's last request timed alone in rounds of
 *    its own, split the cycle's cost by endpoint.
 *
 * Prints the tables in markdown, writes bench/rm-cost-results.json, and with RM_COST_PLOT=1 the
 * plot docs/img/rm-cost.png.
 *
 * Settings (environment):
 *   RM_COST_PARTS          start,cost (default both)
 *   RM_COST_SIZES          apps on the RM at each measurement, ascending (default 1000,10000)
 *   RM_COST_DEADLINE_APPS  deadline jobs through the sidecar (default 500)
 *   RM_COST_ROUNDS         rounds at each size (default 10)
 *   RM_COST_CYCLES         sidecar poll cycles a block (default 6: 60 in 10 rounds, one full read)
 *   RM_COST_READS          unfiltered GETs and UI pages a block (default 3)
 *   RM_COST_CLI_READS      `yarn application -list` runs a block (default 1)
 *   RM_COST_IDLE_MS        the idle window before a reader's first block (default 3000)
 *   RM_COST_ENDPOINT_ROUNDS rounds of each endpoint of the sidecar's cycle alone (default 5)
 *   RM_COST_START_ROUNDS   rounds of the time to start (default 10)
 *   RM_COST_BASE           a commit whose `run` and poll cycle are measured beside this tree's:
 *                          its run arm, and its sidecar (its dist/, in this process) on a copy of
 *                          the ledger, following the same deadline apps (default: none)
 *   RM_COST_CLUSTER        a file holding a running cluster's ready line (started with
 *                          --max-completed-apps above the largest size); default: one started here
 */
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { startHadoop, type HadoopInfo, type RunningHadoop } from '../hadoop/launch';
import { buildConfig } from '../src/config/load';
import { silentLogger } from '../src/log';
import { startSidecar, type RunningSidecar } from '../src/service/start';
import { baseTree, int, thisTree, type Tree } from './processes';
import { recordResult } from './results';
import { measureReaders, readWhole, yarnApplicationList, type Block, type Reader } from './rm-cost/cost';
import { appsKnown, submitDeadlineJobs, submitOtherApps } from './rm-cost/populate';
import { startRecorder, type Recorder } from './rm-cost/recorder';
import {
  costTable,
  ENDPOINT,
  endpointTable,
  readerFigures,
  SIDECAR,
  splitTable,
  startTable,
  UNFILTERED,
  writePlot,
  type EndpointCount,
  type RmCostResults,
} from './rm-cost/report';
import {
  CLIENT_LOG4J,
  measureStarts,
  startOnce,
  type StartArm,
  type StartEnv,
  type StartSample,
} from './rm-cost/start';
import { git, isDirty, ROOT } from './support';

const POLL_INTERVAL_MS = 5000;
const results = { commit: `${git('rev-parse', '--short', 'HEAD')}${isDirty() ? '+changes' : ''}` };
const log = (m: string) => console.log(m);

function sidecarConfig(
  info: HadoopInfo,
  token: string,
  ledgerPath: string,
  rmAddress?: string,
): Record<string, unknown> {
  return {
    rm: {
      addresses: rmAddress === undefined ? info.rms : [rmAddress],
      jobHistoryAddress: info.jhs,
      webHdfsAddress: info.webhdfs,
      timeoutMs: 30_000,
      retries: 1,
      user: info.user,
    },
    admission: { containerMemoryMb: 512, containerVcores: 1 },
    auth: { tokens: [{ name: 'bench', token }] },
    server: { port: 0, host: '127.0.0.1' },
    ledger: { path: ledgerPath },
    log: { level: 'error' },
  };
}

async function ready(sidecar: RunningSidecar, drive: boolean): Promise<void> {
  for (let i = 0; i < 240; i++) {
    if (drive) await sidecar.sidecar.runOnce();
    if ((await fetch(`${sidecar.url}/readyz`)).status === 200) return;
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error('the sidecar is not ready after 2 minutes');
}

const decisionsOf = (sidecar: RunningSidecar) => (id: string) =>
  sidecar.ledger.decisionsOf(id).map((d) => ({ decision: d.decision, atMs: d.atMs }));

/** Part 1: the time to start, against a sidecar polling every 5 s (its default). */
async function timeToStart(
  info: HadoopInfo,
  dir: string,
  here: Tree,
  base: Tree | undefined,
): Promise<StartSample[]> {
  const token = randomBytes(16).toString('hex');
  const sidecar = await startSidecar(buildConfig(sidecarConfig(info, token, path.join(dir, 'start.db'))), {
    logger: silentLogger(),
  });
  try {
    await ready(sidecar, false);
    const clientLog4j = path.join(dir, 'client-log4j.properties');
    fs.writeFileSync(clientLog4j, CLIENT_LOG4J);
    const env: StartEnv = {
      clientLog4j,
      rm: info.rm,
      jhs: info.jhs,
      clientClasspath: info.clientClasspath,
      javaOpts: info.javaOpts,
      decisions: decisionsOf(sidecar),
    };
    const runArgs = ['run', '--deadline', '30m', '--maps', '1', '--reduces', '0'];
    const runEnv = { YSS_URL: sidecar.url, YSS_TOKEN: token };
    const arms: StartArm[] = [
      { name: 'plain', runPrefix: null },
      {
        name: `run (${here.commit})`,
        runPrefix: [process.execPath, path.join(here.root, 'bin', 'yarn-sched-sidecar.js'), ...runArgs],
        env: runEnv,
      },
    ];
    if (base !== undefined) {
      arms.push({
        name: `run (${base.commit})`,
        runPrefix: [process.execPath, path.join(base.root, 'bin', 'yarn-sched-sidecar.js'), ...runArgs],
        env: runEnv,
      });
    }
    log(`warm-up: one job by each of ${arms.map((a) => a.name).join(', ')}`);
    for (const arm of arms) await startOnce(env, arm, -1);
    return await measureStarts(env, arms, { rounds: int('RM_COST_START_ROUNDS', 10), log });
  } finally {
    await sidecar.close();
  }
}

/** Part 2: the RM's CPU at each size, and the sidecar's cycle by endpoint. */
async function rmCost(
  info: HadoopInfo,
  dir: string,
  sizes: number[],
  base: Tree | undefined,
): Promise<{ blocks: Block[]; endpointCounts: EndpointCount[] }> {
  const pid = info.pids[info.activeRm] ?? null;
  if (pid === null) throw new Error(`no pid for the active RM ${info.activeRm}`);
  const token = randomBytes(16).toString('hex');
  const ledger = path.join(dir, 'cost.db');
  // This tree's sidecar reads the active RM through the recorder (the launcher runs one RM).
  const recorder: Recorder = await startRecorder(info.rm);
  const start = () =>
    startSidecar(buildConfig(sidecarConfig(info, token, ledger, recorder.url)), {
      logger: silentLogger(),
      manualPolling: true,
    });
  let sidecar = await start();
  let baseSidecar: RunningSidecar | undefined;
  const blocks: Block[] = [];
  const endpointCounts: EndpointCount[] = [];
  try {
    await ready(sidecar, true);
    const deadlineApps = int('RM_COST_DEADLINE_APPS', 500);
    let t = Date.now();
    await submitDeadlineJobs(sidecar.url, token, { count: deadlineApps, concurrency: 4 });
    // The sidecar's enforcer submits them to the RM over its next cycles.
    for (let i = 0; ; i++) {
      await sidecar.sidecar.runOnce();
      const waiting = sidecar.ledger.openAdmittedJobsReused().filter((j) => j.appId === null).length;
      if (waiting === 0) break;
      if (i > 200) throw new Error(`${waiting} deadline jobs not submitted to the RM after 200 cycles`);
    }
    for (let i = 0; i < 3; i++) await sidecar.sidecar.runOnce();
    log(
      `${deadlineApps} deadline jobs admitted and submitted by the sidecar in ${((Date.now() - t) / 1000).toFixed(0)} s`,
    );
    const cycles = int('RM_COST_CYCLES', 6);
    const readers: Reader[] = [];
    if (base !== undefined) {
      // The base tree's sidecar on a copy of the same ledger: it follows the same 500 apps.
      await sidecar.close();
      const copy = path.join(dir, 'cost-base.db');
      for (const ext of ['', '-wal', '-shm'])
        if (fs.existsSync(`${ledger}${ext}`)) fs.copyFileSync(`${ledger}${ext}`, `${copy}${ext}`);
      sidecar = await start();
      baseSidecar = await startBaseSidecar(base, info, token, copy);
      await ready(sidecar, true);
      await ready(baseSidecar, true);
      const other = baseSidecar;
      readers.push({
        name: `${SIDECAR} (${base.commit})`,
        perBlock: cycles,
        once: () => other.sidecar.runOnce(),
      });
    }
    const label = base === undefined ? SIDECAR : `${SIDECAR} (${results.commit})`;
    readers.push(
      { name: label, perBlock: cycles, once: () => sidecar.sidecar.runOnce() },
      {
        name: UNFILTERED,
        perBlock: int('RM_COST_READS', 3),
        once: async () => void (await readWhole(`${info.rm}/ws/v1/cluster/apps`, 'application/json')),
      },
      {
        name: 'yarn application -list -appStates ALL',
        perBlock: int('RM_COST_CLI_READS', 1),
        once: async () => void (await yarnApplicationList(info)),
      },
      {
        name: 'RM web UI /cluster/apps',
        perBlock: int('RM_COST_READS', 3),
        once: async () => void (await readWhole(`${info.rm}/cluster/apps`, 'text/html')),
      },
    );
    let others = 0;
    for (const size of sizes) {
      const add = size - deadlineApps - others;
      if (add > 0) {
        t = Date.now();
        const r = await submitOtherApps(info.rm, {
          count: add,
          liveEvery: 10,
          concurrency: 6,
          firstIndex: others,
        });
        others += add;
        log(`${add} other apps submitted (${r.live} left ACCEPTED) in ${r.seconds.toFixed(0)} s`);
      }
      const known = await appsKnown(info.rm);
      log(`\n## ${known.toLocaleString('en-US')} apps on the RM (asked for ${size.toLocaleString('en-US')})`);
      const rounds = int('RM_COST_ROUNDS', 10);
      recorder.reset();
      blocks.push(
        ...(await measureReaders({ url: info.rm, pid }, readers, {
          apps: size,
          rounds,
          idleMs: int('RM_COST_IDLE_MS', 3000),
          log,
        })),
      );
      // The sidecar's requests over those cycles (the warm-up's included), then each kind alone.
      const sidecarCycles = rounds * cycles + 1;
      const kinds = recorder.kinds();
      for (const k of kinds)
        endpointCounts.push({ apps: size, kind: k.kind, requests: k.requests, cycles: sidecarCycles });
      log(`\n### The sidecar's ${sidecarCycles} cycles, request by request`);
      blocks.push(
        ...(await measureReaders(
          { url: info.rm, pid },
          kinds.map((k) => ({
            name: `${ENDPOINT}${k.kind}`,
            perBlock: 3,
            once: async () => void (await readWhole(`${info.rm}${k.lastUrl}`, k.accept, true)),
          })),
          { apps: size, rounds: int('RM_COST_ENDPOINT_ROUNDS', 5), idleMs: 1000, log },
        )),
      );
      const here = blocks.filter((b) => b.apps === size);
      console.log(`\n${costTable(here, POLL_INTERVAL_MS)}`);
      console.log(
        `\n${endpointTable(
          here,
          endpointCounts.filter((c) => c.apps === size),
        )}`,
      );
    }
    return { blocks, endpointCounts };
  } finally {
    await sidecar.close();
    await baseSidecar?.close();
    await recorder.close();
  }
}

/**
 * A commit's sidecar (its compiled dist/, loaded into this process beside this tree's) on its
 * own ledger file, polled by hand as this tree's is.
 */
async function startBaseSidecar(
  base: Tree,
  info: HadoopInfo,
  token: string,
  ledger: string,
): Promise<RunningSidecar> {
  /* eslint-disable @typescript-eslint/no-require-imports -- the base tree's compiled modules */
  const load = require(
    path.join(base.root, 'dist', 'config', 'load.js'),
  ) as typeof import('../src/config/load');
  const service = require(
    path.join(base.root, 'dist', 'loop', 'service.js'),
  ) as typeof import('../src/service/start');
  const logs = require(path.join(base.root, 'dist', 'log.js')) as typeof import('../src/log');
  /* eslint-enable @typescript-eslint/no-require-imports */
  return service.startSidecar(load.buildConfig(sidecarConfig(info, token, ledger)), {
    logger: logs.silentLogger(),
    manualPolling: true,
  });
}

export default async function (): Promise<void> {
  const parts = (process.env.RM_COST_PARTS || 'start,cost').split(',');
  const sizes = (process.env.RM_COST_SIZES || '1000,10000').split(',').map(Number);
  if (sizes.some((s) => !Number.isInteger(s) || s < 1))
    throw new Error(`RM_COST_SIZES: ${process.env.RM_COST_SIZES}`);
  const dir = fs.mkdtempSync(path.join(tmpdir(), 'rm-cost-'));
  let hadoop: RunningHadoop | undefined;
  let info: HadoopInfo;
  if (process.env.RM_COST_CLUSTER) {
    info = JSON.parse(fs.readFileSync(process.env.RM_COST_CLUSTER, 'utf8')) as HadoopInfo;
  } else {
    hadoop = await startHadoop({
      maxCompletedApps: 2 * Math.max(...sizes),
      amExpirySeconds: 3 * 3600,
      log: (m) => log(`[hadoop] ${m}`),
    });
    info = hadoop.info;
  }
  if (info.maxCompletedApps < Math.max(...sizes))
    throw new Error(
      `the cluster keeps ${info.maxCompletedApps} ended apps: start it with --max-completed-apps`,
    );
  const out: RmCostResults = {
    commit: results.commit,
    startedAt: new Date().toISOString(),
    hadoop: info.version,
    pollIntervalMs: POLL_INTERVAL_MS,
    deadlineApps: int('RM_COST_DEADLINE_APPS', 500),
    blocks: [],
    endpointCounts: [],
    starts: [],
  };
  const file = path.join(ROOT, 'bench', 'rm-cost-results.json');
  const save = () => fs.writeFileSync(file, `${JSON.stringify(out, null, 2)}\n`);
  log('building this tree (tsc) for its run command...');
  const here = thisTree();
  let base: Tree | undefined;
  if (process.env.RM_COST_BASE) {
    log(`exporting and building ${process.env.RM_COST_BASE}...`);
    base = baseTree(dir, process.env.RM_COST_BASE);
  }
  try {
    if (parts.includes('start')) {
      log('\n# Time to start: plain client and run, taking turns');
      out.starts = await timeToStart(info, dir, here, base);
      save();
      console.log(`\n${startTable(out.starts)}\n\n${splitTable(out.starts)}`);
    }
    if (parts.includes('cost')) {
      log('\n# The RM CPU of each reader');
      const cost = await rmCost(info, dir, sizes, base);
      out.blocks = cost.blocks;
      out.endpointCounts = cost.endpointCounts;
      save();
      console.log(`\n${costTable(out.blocks, POLL_INTERVAL_MS)}`);
      console.log(`\n${endpointTable(out.blocks, out.endpointCounts)}`);
      for (const f of readerFigures(out.blocks))
        recordResult({
          name: `rm-cost ${f.apps} apps: ${f.reader}`,
          unit: 'RM CPU ms a read',
          median: f.medianMs,
          p99: Math.max(...f.perRound),
        });
      if (process.env.RM_COST_PLOT === '1') log(`plot: ${await writePlot(out.blocks)}`);
    }
    console.log('written to bench/rm-cost-results.json');
  } finally {
    await hadoop?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
