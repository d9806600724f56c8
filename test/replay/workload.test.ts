import { ValidationError } from '../../src/errors/validation';
import {
  clusterOf,
  deadlineOf,
  durationSeconds,
  parseDeadlineRules,
  reduceSecondsAfterMaps,
  workloadOf,
} from '../../src/replay/workload';
import { historyJob } from './history-jobs';

/** A history as the simulator's workload and cluster (src/replay/workload.ts). */
describe('deadlines for the replay', () => {
  const job = historyJob(1, { submitS: 0, maps: [30], reduces: [20], setupS: 5, commitS: 5 });
  // Real duration: 5 + 30 + 20 + 5 = 60 s.

  it('a slack is that many times the real duration from submission', () => {
    expect(deadlineOf(job, parseDeadlineRules(['slack=1.5x']))).toEqual({ seconds: 90, source: 'slack' });
    expect(deadlineOf(job, parseDeadlineRules(['slack=2']))).toEqual({ seconds: 120, source: 'slack' });
  });

  it('a file maps a job name, exact or without its numbers, to a deadline; before a slack', () => {
    const files: Record<string, string> = { 'd.yaml': 'etl: 15m\n"report 2026-01-01": 45\n' };
    const rules = parseDeadlineRules(['file=d.yaml', 'slack=3x'], (p) => files[p]!);
    expect(deadlineOf(job, rules)).toEqual({ seconds: 900, source: 'file' });
    const report = historyJob(2, { submitS: 0, maps: [1], name: 'report 2026-01-01' });
    expect(deadlineOf(report, rules)).toEqual({ seconds: 45, source: 'file' });
    const other = historyJob(3, { submitS: 0, maps: [10], name: 'sort', setupS: 0, commitS: 0 });
    expect(deadlineOf(other, rules)).toEqual({ seconds: 30, source: 'slack' });
  });

  it('the job\u2019s own deadline tag wins; without tag or rule it has none', () => {
    const tagged = historyJob(4, { submitS: 0, maps: [10], taggedDeadlineS: 600 });
    expect(deadlineOf(tagged, parseDeadlineRules(['slack=1.5x']))).toEqual({ seconds: 600, source: 'tag' });
    expect(deadlineOf(job, parseDeadlineRules([]))).toEqual({ seconds: null, source: 'none' });
  });

  it('names every bad rule', () => {
    const err = (() => {
      try {
        parseDeadlineRules(['slack=-1x', 'budget=3', 'file=missing.yaml', 'file=bad.yaml'], (p) => {
          if (p === 'bad.yaml') return 'etl: soon\n';
          throw new Error(`ENOENT: no such file ${p}`);
        });
      } catch (e) {
        return e;
      }
    })() as ValidationError;
    expect(err).toBeInstanceOf(ValidationError);
    expect(err.issues.map((i) => i.message)).toEqual([
      'slack must be a factor > 0 such as 1.5x, got "-1x"',
      'must be slack=FACTORx or file=PATH, got "budget=3"',
      'file missing.yaml: ENOENT: no such file missing.yaml',
      'a deadline must be seconds > 0 or a duration such as 15m, got "soon"',
    ]);
  });

  it('reads durations', () => {
    expect([
      durationSeconds('90'),
      durationSeconds('15m'),
      durationSeconds('2h'),
      durationSeconds('7d'),
    ]).toEqual([90, 900, 7200, 604800]);
    expect(durationSeconds('0')).toBeUndefined();
    expect(durationSeconds('soon')).toBeUndefined();
  });
});

describe('the workload', () => {
  it('a reduce started before the last map is replayed from the maps\u2019 end', () => {
    const j = historyJob(1, { submitS: 0, maps: [10, 30], reduces: [25] });
    // The reduce started at the first map's end would wait 20 s for the second: replayed without it.
    const early = { ...j, reduces: [j.maps[1]!, j.reduces[1]!] };
    expect(reduceSecondsAfterMaps(early)).toEqual([25]);
    expect(reduceSecondsAfterMaps(j)).toEqual([25]);
  });

  it('each job arrives at its submission with its real task times, set-up, commit and figures', () => {
    const jobs = [
      historyJob(1, { submitS: 0, maps: [30, 20], reduces: [10], setupS: 4, commitS: 3 }),
      historyJob(2, { submitS: 50, maps: [5], setupS: 2, commitS: 1 }),
    ];
    const judged = jobs.map(() => ({
      estimates: { eta: 1, mapCostMax: 0.1, reduceCostMax: 0.1 },
      from: undefined,
      aloneSeconds: 1,
    }));
    const w = workloadOf(jobs, judged, parseDeadlineRules(['slack=2x']));
    expect(w.originMs).toBe(jobs[0]!.submitMs);
    expect(w.jobs[1]).toMatchObject({
      arrival: 50,
      maps: 1,
      reduces: 0,
      deadline: 16,
      replay: { mapSeconds: [5], reduceSeconds: [] },
      overheads: { setupSeconds: 2, commitSeconds: 1 },
      estimates: judged[1]!.estimates,
    });
    expect(w.jobs[0]!.replay).toEqual({ mapSeconds: [30, 20], reduceSeconds: [10] });
    expect(w.deadlineSources).toEqual(['slack', 'slack']);
  });
});

describe('the cluster from the RM\u2019s nodes', () => {
  it('counts containers of the smallest allocation; the GPU partition holds GPU containers; other labels are left out', () => {
    const { cluster, containerMb, leftOutNodes } = clusterOf({
      nodes: [
        { id: 'a:1', labels: [], memoryMB: 16384, vcores: 16 },
        { id: 'b:1', labels: [], memoryMB: 16384, vcores: 16 },
        { id: 'g:1', labels: ['gpu'], memoryMB: 8192, vcores: 8 },
        { id: 'x:1', labels: ['ssd'], memoryMB: 8192, vcores: 8 },
      ],
      queues: [],
      minimumAllocationMb: 512,
    });
    expect(containerMb).toBe(512);
    expect(leftOutNodes).toEqual(['x:1']);
    expect(cluster.nodeClasses.map((c) => [c.name, c.count, c.containers, c.gpuContainers])).toEqual([
      ['default-32', 2, 32, 0],
      ['gpu-16', 1, 16, 16],
    ]);
    expect(cluster).toMatchObject({ slotModel: 'unified', heartbeatSeconds: 1, remoteReadPenalty: 0 });
  });

  it('a cluster with no node for a container is a ValidationError', () => {
    expect(() =>
      clusterOf(
        { nodes: [{ id: 'a:1', labels: [], memoryMB: 256, vcores: 1 }], queues: [] },
        { containerMb: 1024 },
      ),
    ).toThrow(ValidationError);
  });
});
