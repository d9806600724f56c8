import { buildConfig } from '../../src/config/load';
import { judgeAtArrival } from '../../src/replay/estimates';
import type { HistoryJob } from '../../src/replay/history';
import { historyJob } from './history-jobs';

/**
 * The figures each job of a history is judged with are those the sidecar had at its arrival,
 * learned only from the jobs finished before it (src/replay/estimates.ts).
 */
const config = buildConfig({});

/** Three runs of one recurring job, one after another, and a fourth submitted while the third runs. */
function history(thirdMapSeconds = 40): HistoryJob[] {
  return [
    historyJob(1, { submitS: 0, maps: [20, 22], reduces: [10], name: 'etl 2026-01-01' }),
    historyJob(2, { submitS: 100, maps: [21, 20], reduces: [11], name: 'etl 2026-01-02' }),
    historyJob(3, { submitS: 200, maps: [thirdMapSeconds, 20], reduces: [10], name: 'etl 2026-01-03' }),
    historyJob(4, { submitS: 210, maps: [20, 20], reduces: [10], name: 'etl 2026-01-04' }),
  ];
}

describe('judgeAtArrival', () => {
  it('judges the first run on its class, later runs on the profile of the runs finished before', () => {
    const judged = judgeAtArrival(history(), { config, containers: 8 });
    expect(judged.map((j) => j.from?.source)).toEqual(['default', 'profile', 'profile', 'profile']);
    // Job 2 knows one run, job 3 two; job 4 arrives while job 3 runs: two runs, not three.
    expect(judged.map((j) => (j.from?.source === 'profile' ? j.from.runs : 0))).toEqual([0, 1, 2, 2]);
    expect(judged[3]!.from?.text).toMatch(/^profile etl@alice\/default, 2 runs/);
    // Every estimate alone is a positive duration.
    for (const j of judged) expect(j.aloneSeconds).toBeGreaterThan(0);
  });

  it('no peeking: a job that finishes after an arrival changes nothing judged at that arrival', () => {
    const slow = judgeAtArrival(history(400), { config, containers: 8 });
    const fast = judgeAtArrival(history(40), { config, containers: 8 });
    // Job 3's own time differs; job 4 arrived before job 3 finished in both histories.
    expect(slow[3]).toEqual(fast[3]);
    expect(slow[2]).toEqual(fast[2]);
  });

  it('learns the finished run once its finish is before the arrival', () => {
    const h = history();
    // A fifth run submitted once job 3's slow map is long over: it knows three or four runs.
    const later = historyJob(5, { submitS: 1000, maps: [20, 20], reduces: [10], name: 'etl 2026-01-05' });
    const judged = judgeAtArrival([...h, later], { config, containers: 8 });
    expect(judged[4]!.from?.source === 'profile' && judged[4]!.from.runs).toBe(4);
  });

  it('refuses jobs out of submission order', () => {
    const [a, b] = history();
    expect(() => judgeAtArrival([b!, a!], { config, containers: 8 })).toThrow(/submission order/);
  });
});
