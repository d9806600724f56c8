/**
 * What `yarn-sched-sidecar run` costs before its client starts, on one machine (no cluster):
 * `npm run bench -- run-start`. Each tree (this one, and YSS_BENCH_BASE's, built beside it) has
 * its own emulated RM and compiled sidecar (startStack); its `run` starts a client that only
 * prints the time it started and exits 3 (so `run` cancels its ticket and the lanes stay empty),
 * the trees taking turns, the order turning from round to round. Beside them, `node -e 0` (Node's
 * own start, the floor of any CLI written for it) once a round.
 *
 * Per job, in ms after `run` was spawned (t0): the sidecar's decision recorded (its ledger's
 * time, ms resolution), and the client started (bash's EPOCHREALTIME): admission is t0 to the
 * decision, answer the decision to the client's start (the durable write, the answer, `run`
 * reading it and spawning the client).
 *
 * Environment: YSS_BENCH_RUN_ROUNDS (default 20), YSS_BENCH_BASE (default: HEAD with changes,
 * else HEAD~1; a commit or a checkout's folder), YSS_BENCH_RUN_TREES (`here`, or `here,base`: the
 * default).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { baseTree, int, startStack, thisTree, type Stack, type Tree } from './processes';
import { recordResult } from './results';
import { median, TOKEN } from './support';

/** Epoch ms now, to the microsecond (Date.now() is whole ms). */
const nowMs = (): number => performance.timeOrigin + performance.now();

interface Job {
  tree: string;
  /** ms after t0. */
  decidedMs: number;
  clientMs: number;
  exitMs: number;
}

/** Runs `argv` to its end; its stdout and stderr, and when it exited (epoch ms). */
function runToEnd(
  argv: string[],
  env: Record<string, string>,
): Promise<{ out: string; err: string; at: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0]!, argv.slice(1), {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('error', reject);
    child.on('close', () => resolve({ out, err, at: nowMs() }));
  });
}

async function oneJob(tree: Tree, stack: Stack): Promise<Job> {
  const argv = [
    process.execPath,
    join(tree.root, 'bin', 'yarn-sched-sidecar.js'),
    'run',
    '--deadline',
    '30m',
    '--maps',
    '1',
    '--reduces',
    '0',
    '--',
    'bash',
    '-c',
    'echo "client started at $EPOCHREALTIME"; exit 3',
  ];
  const t0 = nowMs();
  const r = await runToEnd(argv, { YSS_URL: stack.url, YSS_TOKEN: TOKEN, NODE_OPTIONS: '' });
  const started = /client started at (\d+)[.,](\d+)/.exec(r.out);
  const id = /run: admitted as (dl-[0-9a-f]+)/.exec(r.err)?.[1];
  if (!started || !id) throw new Error(`${tree.label}: run did not start its client:\n${r.err}${r.out}`);
  const clientAt = Number(started[1]) * 1000 + Number(`0.${started[2]}`) * 1000;
  const res = await fetch(`${stack.url}/api/v1/jobs/${id}`, {
    headers: { authorization: `Bearer ${TOKEN}` },
  });
  const job = (await res.json()) as { decisions?: Array<{ decision: string; at: string }> };
  const admitted = job.decisions?.find((d) => d.decision === 'admitted');
  if (!admitted) throw new Error(`${tree.label}: job ${id} has no admission: ${JSON.stringify(job)}`);
  return {
    tree: tree.label,
    decidedMs: Date.parse(admitted.at) - t0,
    clientMs: clientAt - t0,
    exitMs: r.at - t0,
  };
}

const fmt = (x: number) => x.toFixed(1);
const spread = (xs: number[]) => `${fmt(Math.min(...xs))} – ${fmt(Math.max(...xs))}`;

export default async function (): Promise<void> {
  const rounds = int('YSS_BENCH_RUN_ROUNDS', 20);
  const which = (process.env.YSS_BENCH_RUN_TREES || 'here,base').split(',');
  const dir = mkdtempSync(join(tmpdir(), 'yss-run-start-'));
  const stacks: Array<{ tree: Tree; stack: Stack }> = [];
  try {
    const trees = [thisTree(), ...(which.includes('base') ? [baseTree(dir)] : [])];
    for (const tree of trees)
      stacks.push({ tree, stack: await startStack(tree, tree.root, dir, { speed: 1 }) });
    const jobs: Job[] = [];
    const nodeAlone: number[] = [];
    // One unmeasured job each: the sidecar's first answer compiles its code.
    for (const s of stacks) await oneJob(s.tree, s.stack);
    for (let round = 0; round < rounds; round++) {
      for (let k = 0; k < stacks.length; k++) {
        const s = stacks[(round + k) % stacks.length]!;
        jobs.push(await oneJob(s.tree, s.stack));
      }
      const t0 = nowMs();
      await runToEnd([process.execPath, '-e', '0'], { NODE_OPTIONS: '' });
      nodeAlone.push(nowMs() - t0);
    }
    console.log(`\n${rounds} rounds; ms after run was spawned, median (min – max)\n`);
    console.log(
      '| tree | admission: decision recorded | answer: decision to client start | client started | run exited |',
    );
    console.log('| --- | ---: | ---: | ---: | ---: |');
    for (const s of stacks) {
      const mine = jobs.filter((j) => j.tree === s.tree.label);
      const col = (f: (j: Job) => number) => `${fmt(median(mine.map(f)))} (${spread(mine.map(f))})`;
      console.log(
        `| ${s.tree.label} (${s.tree.commit}) | ${col((j) => j.decidedMs)} | ${col((j) => j.clientMs - j.decidedMs)} | ${col((j) => j.clientMs)} | ${col((j) => j.exitMs)} |`,
      );
      recordResult({
        name: `run-start ${s.tree.label}: client started`,
        unit: 'ms after run was spawned',
        median: median(mine.map((j) => j.clientMs)),
        p99: Math.max(...mine.map((j) => j.clientMs)),
      });
    }
    console.log(`\nnode -e 0 alone: ${fmt(median(nodeAlone))} ms (${spread(nodeAlone)})`);
  } finally {
    for (const s of stacks) await s.stack.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
