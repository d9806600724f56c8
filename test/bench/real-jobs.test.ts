/**
 * The real-jobs measurement's pure parts (bench/real-jobs/): the maps derived from an input's
 * files, the streams drawn from a seed, the settings read from the environment, and the figures
 * and thresholds of report.ts.
 */
import { buildConfig } from '../../src/config/load';
import type { HadoopInfo } from '../../hadoop/launch';
import {
  clusterKinds,
  clusterOptions,
  DEFAULT_PLAN,
  planFromEnv,
  realJobsSidecarConfig,
  sidecarNodeCores,
  streamSpecs,
} from '../../bench/real-jobs/harness';
import { KINDS, DEFAULT_SIZES, mapsFor, parseKinds } from '../../bench/real-jobs/kinds';
import {
  ACCEPTANCE,
  acceptanceViolations,
  countPastRuns,
  percentile,
  summarize,
  thresholdViolations,
  type JobRecord,
} from '../../bench/real-jobs/report';

const MB = 1024 * 1024;
const BLOCK = 128 * MB;

describe('mapsFor', () => {
  it('makes one split per block of each file, the last up to 1.1 blocks, hidden files skipped', () => {
    expect(mapsFor([{ name: 'part-m-00000', length: 16 * MB, blockSize: BLOCK }])).toBe(1);
    expect(
      mapsFor([
        { name: 'part-m-00000', length: 16 * MB, blockSize: BLOCK },
        { name: 'part-m-00001', length: 16 * MB, blockSize: BLOCK },
        { name: '_SUCCESS', length: 0, blockSize: BLOCK },
        { name: '.hidden', length: 300 * MB, blockSize: BLOCK },
      ]),
    ).toBe(2);
    // 140 MB is within 1.1 blocks: one split; 150 MB is two; 3 blocks exactly are three.
    expect(mapsFor([{ name: 'a', length: 140 * MB, blockSize: BLOCK }])).toBe(1);
    expect(mapsFor([{ name: 'a', length: 150 * MB, blockSize: BLOCK }])).toBe(2);
    expect(mapsFor([{ name: 'a', length: 3 * BLOCK, blockSize: BLOCK }])).toBe(3);
    expect(mapsFor([{ name: 'empty', length: 0, blockSize: BLOCK }])).toBe(0);
  });

  it('refuses a file without a block size, naming it', () => {
    expect(() => mapsFor([{ name: 'x', length: 10, blockSize: 0 }])).toThrow(
      'input file x: no block size (0)',
    );
  });

  it("gives grep the search's maps plus the sort's one, and 2 reduces", () => {
    const files = [
      { name: 'p0', length: MB, blockSize: BLOCK },
      { name: 'p1', length: MB, blockSize: BLOCK },
    ];
    expect(KINDS.grep.run(DEFAULT_SIZES, '/out', files)).toMatchObject({ maps: 3, reduces: 2, apps: 2 });
    expect(KINDS.wordcount.run(DEFAULT_SIZES, '/out', files)).toMatchObject({ maps: 2, reduces: 1, apps: 1 });
    expect(KINDS.teragen.run(DEFAULT_SIZES, '/out', [])).toMatchObject({
      maps: DEFAULT_SIZES.teragenMaps,
      reduces: 0,
      input: { bytes: 0 },
    });
  });
});

describe('parseKinds', () => {
  it('reads a comma list and names an unknown kind', () => {
    expect(parseKinds('pi, grep')).toEqual(['pi', 'grep']);
    expect(() => parseKinds('pi,sort')).toThrow('unknown job kind "sort"; kinds: wordcount, grep');
    expect(() => parseKinds(' , ')).toThrow('no job kind in " , "');
  });
});

describe('streamSpecs', () => {
  const plan = { ...DEFAULT_PLAN, kinds: parseKinds('pi,grep,teragen') };

  it('is the same for the same seed, and another for another seed', () => {
    expect(streamSpecs(plan, 'dense', 6)).toEqual(streamSpecs(plan, 'dense', 6));
    expect(streamSpecs({ ...plan, seed: 2 }, 'dense', 6)).not.toEqual(streamSpecs(plan, 'dense', 6));
  });

  it('takes every kind once before any twice, factors and gaps within their ranges', () => {
    const dense = streamSpecs(plan, 'dense', 6);
    expect(new Set(dense.slice(0, 3).map((s) => s.kind)).size).toBe(3);
    expect(new Set(dense.slice(3).map((s) => s.kind)).size).toBe(3);
    for (const s of dense) expect(s.deadlineFactor).toBeGreaterThanOrEqual(0.6);
    for (const s of dense) expect(s.deadlineFactor).toBeLessThan(4);
    expect(dense[0]!.offsetSeconds).toBe(0);
    for (let i = 1; i < dense.length; i++) {
      const gap = dense[i]!.offsetSeconds - dense[i - 1]!.offsetSeconds;
      expect(gap).toBeGreaterThanOrEqual(4);
      expect(gap).toBeLessThan(8);
    }
    expect(streamSpecs(plan, 'sparse', 4).every((s) => s.offsetSeconds === 0 && s.phase === 'sparse')).toBe(
      true,
    );
  });
});

describe('planFromEnv', () => {
  it('reads the REAL_JOBS_ settings over the base plan', () => {
    const p = planFromEnv(
      {
        REAL_JOBS_KINDS: 'pi,grep',
        REAL_JOBS_SPARSE: '3',
        REAL_JOBS_DENSE: '0',
        REAL_JOBS_DEADLINE_FACTORS: '0.5-2',
        REAL_JOBS_TEXT_MB: '8',
      },
      DEFAULT_PLAN,
    );
    expect(p).toMatchObject({
      kinds: ['pi', 'grep'],
      sparseJobs: 3,
      denseJobs: 0,
      deadlineFactors: [0.5, 2],
    });
    expect(p.sizes.textBytes).toBe(8 * MB);
    expect(p.warmups).toBe(DEFAULT_PLAN.warmups);
  });

  it.each([
    [{ REAL_JOBS_SPARSE: '-1' }, 'REAL_JOBS_SPARSE must be an integer >= 0, not "-1"'],
    [{ REAL_JOBS_TEXT_MB: '0' }, 'REAL_JOBS_TEXT_MB must be an integer >= 1, not "0"'],
    [{ REAL_JOBS_DEADLINE_FACTORS: '4-0.6' }, 'REAL_JOBS_DEADLINE_FACTORS must be MIN-MAX'],
    [{ REAL_JOBS_DENSE_GAP: 'fast' }, 'REAL_JOBS_DENSE_GAP must be MIN-MAX'],
    [{ REAL_JOBS_KINDS: 'pi,nope' }, 'unknown job kind "nope"'],
  ])('refuses %j', (env, message) => {
    expect(() => planFromEnv(env, DEFAULT_PLAN)).toThrow(message);
  });
});

describe('the overcommitted and the honest cluster (REAL_JOBS_NODES)', () => {
  it('runs on the overcommitted one by default, the honest one, or both in turn', () => {
    expect(clusterKinds({})).toEqual(['overcommitted']);
    expect(clusterKinds({ REAL_JOBS_NODES: 'honest' })).toEqual(['honest']);
    expect(clusterKinds({ REAL_JOBS_NODES: 'both' })).toEqual(['overcommitted', 'honest']);
    expect(() => clusterKinds({ REAL_JOBS_NODES: 'fair' })).toThrow(
      'REAL_JOBS_NODES must be overcommitted, honest or both, not "fair"',
    );
    // REAL_JOBS_CLUSTER names a ready-line file: a kind there is a slip, said so.
    expect(() => clusterKinds({ REAL_JOBS_CLUSTER: 'both' })).toThrow('say REAL_JOBS_NODES=both');
    expect(clusterKinds({ REAL_JOBS_CLUSTER: 'ready.json', REAL_JOBS_NODES: 'honest' })).toEqual(['honest']);
  });

  it('starts the honest one with 2 vcores and 4 GB a node, realtime guaranteed them all, and sets the sidecar’s nodeCores to match', () => {
    expect(clusterOptions('overcommitted', {})).toEqual({ priorityCap: 10 });
    expect(clusterOptions('overcommitted', { REAL_JOBS_REALTIME_CAPACITY: '100' })).toEqual({
      realtimeCapacity: 100,
      priorityCap: 10,
    });
    expect(clusterOptions('honest', {})).toEqual({
      nmVcores: 2,
      nmMemoryMb: 4096,
      realtimeCapacity: 100,
      priorityCap: 10,
    });
    expect(
      clusterOptions('honest', {
        REAL_JOBS_NM_VCORES: '4',
        REAL_JOBS_NM_MEMORY_MB: '8192',
        REAL_JOBS_REALTIME_CAPACITY: '50',
      }),
    ).toEqual({ nmVcores: 4, nmMemoryMb: 8192, realtimeCapacity: 50, priorityCap: 10 });
    expect(() => clusterOptions('honest', { REAL_JOBS_REALTIME_CAPACITY: '120' })).toThrow(
      'REAL_JOBS_REALTIME_CAPACITY must be at most 100, not 120',
    );
    expect(() => clusterOptions('honest', { REAL_JOBS_NM_MEMORY_MB: '512' })).toThrow(
      'REAL_JOBS_NM_MEMORY_MB must be an integer >= 1024, not "512"',
    );
    expect(sidecarNodeCores('honest', { nmVcores: 2 })).toBe(2);
    expect(sidecarNodeCores('overcommitted', { nmVcores: 16 })).toBeUndefined();
    // The overcommitted cluster counted at the machine's cores.
    expect(sidecarNodeCores('overcommitted', { nmVcores: 16 }, { REAL_JOBS_NODE_CORES: '2' })).toBe(2);
    expect(() => sidecarNodeCores('honest', { nmVcores: 2 }, { REAL_JOBS_NODE_CORES: '0' })).toThrow(
      'REAL_JOBS_NODE_CORES must be an integer >= 1, not "0"',
    );
    const info = {
      rms: ['http://127.0.0.1:1'],
      jhs: 'http://127.0.0.1:2',
      webhdfs: 'http://127.0.0.1:3',
      user: 'u',
    };
    const token = 'real-jobs-token-0123456789';
    const honest = buildConfig(realJobsSidecarConfig(info as HadoopInfo, token, { nodeCores: 2 }));
    expect(honest.admission).toMatchObject({ containerMemoryMb: 512, containerVcores: 1, nodeCores: 2 });
    expect(buildConfig(realJobsSidecarConfig(info as HadoopInfo, token)).admission.nodeCores).toBeUndefined();
  });
});

function job(o: Partial<JobRecord>): JobRecord {
  return {
    phase: 'sparse',
    seq: 1,
    kind: 'pi',
    name: 'j',
    id: 'dl-1',
    deadlineSeconds: 40,
    deadlineFactor: 2,
    loneSeconds: 20,
    decision: 'admitted',
    error: null,
    reason: null,
    arrivalMs: 0,
    estimatedSeconds: 30,
    expectedSeconds: null,
    estimateFrom: null,
    exitCode: 0,
    apps: [],
    succeeded: true,
    actualSeconds: 20,
    finishedMs: 20_000,
    met: true,
    sidecarOutcome: 'met',
    feasibleAlone: true,
    pastRuns: 0,
    ...o,
  };
}

describe('summarize', () => {
  it('counts misses, underestimates and feasible jobs, and the relative errors', () => {
    const jobs = [
      job({ estimatedSeconds: 30, actualSeconds: 20 }), // error 0.5, over
      job({ estimatedSeconds: 10, actualSeconds: 40, met: false, pastRuns: 3 }), // 0.75, under, missed
      job({ estimatedSeconds: 22, actualSeconds: 20, pastRuns: 4, succeeded: false }), // 0.1
      job({
        decision: 'rejected',
        estimatedSeconds: null,
        actualSeconds: null,
        met: null,
        feasibleAlone: true,
      }),
      job({
        decision: 'rejected',
        estimatedSeconds: null,
        actualSeconds: null,
        met: null,
        feasibleAlone: false,
      }),
      job({ decision: 'error', feasibleAlone: true }),
    ];
    const s = summarize(jobs);
    expect(s).toMatchObject({
      jobs: 6,
      admitted: 3,
      rejected: 2,
      errors: 1,
      failed: 1,
      missedAmongAdmitted: 1,
      underestimated: 1,
      feasibleAlone: 4,
      feasibleAloneAdmitted: 3,
      feasibleAdmittedShare: 0.75,
      rejectedFeasibleAlone: 1,
    });
    expect(s.relError).toEqual({ n: 3, median: 0.5, p90: 0.75, max: 0.75 });
    expect(s.relErrorRecurring!.n).toBe(2);
    expect(s.relErrorRecurring!.median).toBeCloseTo(0.1);
    // Without an expected finish the prediction is the bound: both figures agree.
    expect(s.boundRelError).toEqual(s.relError);
    expect(s.judgedOnHistory).toBe(0);
  });

  it('measures the prediction on the expected finish, the bound on the estimate', () => {
    const profile = { source: 'profile', factor: 1.5, expected: 1, runs: 4 };
    const s = summarize([
      job({ expectedSeconds: 21, estimatedSeconds: 30, actualSeconds: 20, estimateFrom: profile }),
      job({
        expectedSeconds: 18,
        estimatedSeconds: 27,
        actualSeconds: 20,
        estimateFrom: { source: 'default' },
      }),
    ]);
    expect(s.relError!.median).toBeCloseTo(0.05, 12);
    expect(s.relError!.max).toBeCloseTo(0.1, 12);
    expect(s.boundRelError!.median).toBeCloseTo(0.35, 12);
    expect(s.boundRelError!.max).toBeCloseTo(0.5, 12);
    // The bound above the actual is no underestimate, though the expected finish was below it.
    expect(s.underestimated).toBe(0);
    expect(s.judgedOnHistory).toBe(1);
  });

  it('has no error figures without admitted jobs', () => {
    const s = summarize([job({ decision: 'rejected', feasibleAlone: false })]);
    expect(s.relError).toBeNull();
    expect(s.feasibleAdmittedShare).toBeNull();
  });

  it('takes nearest-rank percentiles', () => {
    expect(percentile([5, 1, 3, 2, 4], 50)).toBe(3);
    expect(percentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 90)).toBe(9);
    expect(() => percentile([], 50)).toThrow('percentile of no values');
  });
});

describe('countPastRuns', () => {
  it('counts runs of the same kind, admitted and succeeded, ended before the arrival', () => {
    const jobs = [
      job({ kind: 'pi', arrivalMs: 0, finishedMs: 10 }),
      job({ kind: 'pi', arrivalMs: 5, finishedMs: 20 }),
      job({ kind: 'pi', arrivalMs: 30, finishedMs: 40, succeeded: false }),
      job({ kind: 'grep', arrivalMs: 30, finishedMs: 40 }),
      job({ kind: 'pi', arrivalMs: 50, finishedMs: 60 }),
    ];
    countPastRuns(jobs);
    expect(jobs.map((j) => j.pastRuns)).toEqual([0, 0, 2, 0, 2]);
  });
});

describe('thresholdViolations', () => {
  it('names each threshold broken, and none when kept', () => {
    const bad = summarize([
      job({ estimatedSeconds: 10, actualSeconds: 40, met: false }),
      job({ decision: 'rejected', estimatedSeconds: null, actualSeconds: null, met: null }),
      job({ decision: 'rejected', estimatedSeconds: null, actualSeconds: null, met: null }),
    ]);
    expect(thresholdViolations(bad, ACCEPTANCE.dense)).toEqual([
      'missed among admitted 1 > 0',
      'median relative error 0.75 > 0.30',
      'share of feasible-alone jobs admitted 0.33 < 0.50 (with hindsight, one at a time: at most 2 of 3 on time)',
    ]);
    // Estimated 22 s, took 20 s: 10 % off, met.
    const good = summarize([job({ estimatedSeconds: 22 })]);
    expect(thresholdViolations(good, ACCEPTANCE.dense)).toEqual([]);
    expect(acceptanceViolations({ sparse: bad, dense: good })).toEqual([
      'sparse: missed among admitted 1 > 0',
      'sparse: share of feasible-alone jobs admitted 0.33 < 0.90 (with hindsight, one at a time: at most 2 of 3 on time)',
    ]);
    expect(thresholdViolations(bad, {})).toEqual([]);
    // The first-run stream, when run: at most one miss, and none judged on a profile.
    const onHistory = summarize([job({ estimateFrom: { source: 'profile' } })]);
    expect(acceptanceViolations({ first: onHistory, sparse: good, dense: good })).toEqual([
      'first: jobs judged on a profile 1 > 0',
    ]);
    expect(acceptanceViolations({ first: good, sparse: good, dense: good })).toEqual([]);
    expect(thresholdViolations(summarize([]), {})).toEqual(['no jobs to judge']);
  });
});
