/**
 * `replay` of a real history (docs/replay.md): a mix of Hadoop's example jobs (wordcount, grep,
 * terasort, pi and teragen, a map-only job; two of each, two clients at a time) run on the
 * shared cluster, then the replay of that window read from its JobHistory server and RM: every
 * job found, its task times the history server's, the fidelity of FIFO as the jobs ran, and the
 * policy comparison table (both printed).
 */
import type { HadoopInfo } from '../../hadoop/launch';
import { deletePath, listInput, runAlone } from '../../bench/real-jobs/harness';
import {
  DEFAULT_SIZES,
  KINDS,
  ROOT,
  TERA_INPUT,
  TEXT_INPUT,
  randomTextWriter,
  teraGen,
  type KindName,
} from '../../bench/real-jobs/kinds';
import { buildConfig } from '../../src/config/load';
import { replayFromCluster, type ReplayRun } from '../../src/replay';
import { fidelityText, policyTable } from '../../src/replay/output';
import { parseDeadlineRules } from '../../src/replay/workload';
import { HttpResourceManagerClient } from '../../src/yarn/client';
import { JobHistoryClient } from '../../src/yarn/jobhistory';
import { sharedCluster } from './cluster';

const KINDS_RUN: readonly KindName[] = ['wordcount', 'grep', 'terasort', 'pi', 'teragen'];
const EACH = 2;
const sizes = { ...DEFAULT_SIZES, textBytes: 8 * 1024 * 1024, teraRows: 50_000, teragenRows: 50_000 };
const TIMEOUT_MS = 300_000;

describe('replay of a real history of example jobs', () => {
  let info: HadoopInfo;
  let run: ReplayRun;
  const ours = new Map<string, { kind: string; tagged: boolean }>();
  let fromMs: number;

  beforeAll(async () => {
    info = sharedCluster();
    fromMs = Date.now() - 1000;
    await deletePath(info, ROOT);
    const base = `replay-mix-${Date.now().toString(36)}`;
    const note = (kind: string, apps: Array<{ id: string }>, tagged = false) => {
      for (const a of apps) ours.set(a.id.replace(/^application_/, 'job_'), { kind, tagged });
    };
    const text = await runAlone(
      info,
      'input-text',
      randomTextWriter(sizes.textBytes, 2, TEXT_INPUT),
      TIMEOUT_MS,
      {
        tags: [base],
      },
    );
    note('randomtextwriter', text.apps);
    const tera = await runAlone(info, 'input-tera', teraGen(sizes.teraRows, 2, TERA_INPUT), TIMEOUT_MS, {
      tags: [base],
    });
    note('teragen', tera.apps);
    const files = { text: await listInput(info, TEXT_INPUT), tera: await listInput(info, TERA_INPUT) };
    const clients = KINDS_RUN.flatMap((k) => Array.from({ length: EACH }, (_, i) => ({ k, i })));
    // Two clients at a time: the cluster's one CPU node runs them side by side on a 2-core machine.
    for (let c = 0; c < clients.length; c += 2)
      await Promise.all(
        clients.slice(c, c + 2).map(async ({ k, i }) => {
          const kind = KINDS[k];
          // The first wordcount of each pair carries a deadline tag, as the sidecar writes it.
          const tagged = k === 'wordcount' && i === 0;
          const deadline = `deadline:${new Date(Date.now() + 600_000).toISOString()}`;
          const r = await runAlone(
            info,
            `${k}-${i}`,
            kind.run(
              { ...sizes },
              `${ROOT}/out/replay-${k}-${i}`,
              kind.reads === null ? [] : files[kind.reads],
            ),
            TIMEOUT_MS,
            { tags: tagged ? [base, deadline] : [base] },
          );
          note(k, r.apps, tagged);
        }),
      );
    const toMs = Date.now() + 1000;
    run = await replayFromCluster({
      jhs: JobHistoryClient.forHistoryServer({ urls: [info.jhs], user: info.user, timeoutMs: 30_000 }),
      rm: new HttpResourceManagerClient({ urls: [info.rm], user: info.user, timeoutMs: 30_000 }),
      config: buildConfig({}),
      rules: parseDeadlineRules(['slack=1.5x']),
      fromMs,
      toMs,
    });
    const r = run.result.report;
    process.stdout.write(
      `\nreplay of the real history: ${r.jobs} jobs (${ours.size} of this test), ${r.requests} requests, ` +
        `left out ${JSON.stringify(r.leftOut.map((l) => [l.reason, l.count]))}, clock skew ${r.clockSkew.medianMs} ms\n` +
        `cluster: ${r.cluster.nodeClasses.map((c) => `${c.count} x ${c.containers} containers${c.labels.length ? ` (${c.labels})` : ''}`).join(', ')} of ${r.cluster.containerMb} MB\n` +
        `${fidelityText(r)}\nbuckets: ${r.fidelity.buckets.map((b) => `${b.label}: ${b.jobs}`).join(', ')}\n` +
        `furthest: ${r.fidelity.worst
          .slice(0, 5)
          .map((w) => `${w.id} ${w.real.toFixed(1)} s real, ${w.simulated.toFixed(1)} s simulated`)
          .join('; ')}\n${policyTable(r)}\n`,
    );
  }, 1_200_000);

  afterAll(async () => {
    if (info) await deletePath(info, ROOT).catch(() => undefined);
  });

  it('finds every job of the mix in the JobHistory server', () => {
    const found = new Map(run.history.jobs.map((j) => [j.id, j]));
    // wordcount, terasort, pi, teragen: one app each; grep two; and the two inputs.
    expect(ours.size).toBe(2 + EACH * (KINDS_RUN.length + 1));
    for (const id of ours.keys()) {
      expect(found.get(id)?.source).toBe('jobhistory');
    }
  });

  it('replays each job with the task times the JobHistory server reports', async () => {
    for (const id of ours.keys()) {
      const res = await fetch(`${info.jhs}/ws/v1/history/mapreduce/jobs/${id}/tasks?user.name=${info.user}`, {
        headers: { Accept: 'application/json' },
      });
      const body = (await res.json()) as {
        tasks: { task: Array<{ type: string; state: string; startTime: number; finishTime: number }> };
      };
      const pairs = (type: string) =>
        body.tasks.task
          .filter((t) => t.type === type && t.state === 'SUCCEEDED')
          .flatMap((t) => [t.startTime, t.finishTime]);
      const job = run.history.jobs.find((j) => j.id === id)!;
      expect(job.maps).toEqual(pairs('MAP'));
      expect(job.reduces).toEqual(pairs('REDUCE'));
    }
  });

  it('the as-ran run gives each job its real finish within 10 % (median), the distribution said', () => {
    const f = run.result.report.fidelity;
    expect(f.jobs).toBe(run.result.report.jobs);
    expect(f.buckets.reduce((n, b) => n + b.jobs, 0)).toBe(f.jobs);
    expect(f.medianAbsError).not.toBeNull();
    expect(f.medianAbsError!).toBeLessThanOrEqual(0.1);
  });

  it('compares every admission policy, with the deadlines said per job', () => {
    const r = run.result.report;
    for (const p of Object.values(r.policies)) expect(p.admitted + p.rejected).toBe(r.jobs);
    expect(r.policies['as-ran']!.admitted).toBe(r.jobs);
    const rows = [...run.result.rows()];
    for (const [id, o] of ours)
      expect(rows.find((row) => row.id === id)?.deadlineSource).toBe(o.tagged ? 'tag' : 'slack');
  });
});
