import { SqliteLedger } from '../../src/store/ledger';
import { learningSidecar } from './learning-harness';

const MB = 1024 * 1024;
const TOKEN = 'profiles-test-token-0123456789';

/**
 * Profiles of recurring jobs in the live sidecar (src/core/profiles.ts): the first run of a job
 * is judged on its class's default figures with the margin and says so; its runs then teach its
 * own profile, which judges the next ones, first with the margin, then with the quantile of its
 * errors; the profiles outlive a restart.
 */
describe('profiles of recurring jobs, live', () => {
  let ledger: SqliteLedger;
  beforeEach(() => (ledger = SqliteLedger.open(':memory:')));
  afterEach(() => ledger.close());

  // 3 errors known before their quantile alone judges (the default is 10): short histories.
  const setup = (minErrorSamples = 3) =>
    learningSidecar(ledger, {
      auth: { tokens: [{ name: 'ops', token: TOKEN }] },
      admission: { profiles: { minErrorSamples } },
    });
  // 2 maps of 64 MB and one reduce: the AM's 12 s of set-up, maps of 10 s side by side, a reduce
  // of 20 s, 3 s of commit: 45 s from the answer to the app's end.
  const WORDCOUNT = { name: 'WordCount 2026-11-29', maps: 2, reduces: 1, inputBytes: 128 * MB };
  const TIMELINE = { setup: 12, maps: [10, 10], reduces: [20], commit: 3 };
  const secondsTo = (body: Record<string, unknown>, fromMs: number) =>
    (Date.parse(body.estimatedFinish as string) - fromMs) / 1000;

  it('judges a first run on the class default with the margin, then on its profile, then on its errors', async () => {
    const s = setup();
    await s.sidecar.runOnce();
    const first = await s.runTimed(WORDCOUNT, TIMELINE);
    expect(first.res.body.estimateFrom).toEqual({
      source: 'default',
      profile: 'wordcount@alice/realtime',
      workloadClass: 'cpu',
      factor: 1.25,
      expected: 1,
      text: 'no history for profile wordcount@alice/realtime: class cpu default + margin 25 %',
    });

    // One run known: its own figures (45 s of them) times the margin while no error is known.
    let t0 = s.now();
    const second = await s.runTimed({ ...WORDCOUNT, name: 'WordCount 2026-11-30' }, TIMELINE);
    expect(second.res.body.estimateFrom).toMatchObject({
      source: 'profile',
      profile: 'wordcount@alice/realtime',
      runs: 1,
      errors: 0,
      factor: 1.25,
    });
    expect(secondsTo(second.res.body, t0)).toBeCloseTo(45 * 1.25, 6);
    // The point prediction beside the bound: its own figures, no margin.
    expect((Date.parse(second.res.body.expectedFinish as string) - t0) / 1000).toBeCloseTo(45, 2);

    // Two more runs as predicted: errors of 1, the last judged at 1.25 still (3 errors needed).
    for (let i = 0; i < 2; i++) await s.runTimed(WORDCOUNT, TIMELINE);
    t0 = s.now();
    const judged = await s.submit({ ...WORDCOUNT, deadline: 3600 });
    expect(judged.body.estimateFrom).toMatchObject({
      source: 'profile',
      runs: 4,
      errors: 3,
      quantile: 0.95,
      factor: 1,
      text: 'profile wordcount@alice/realtime, 4 runs, p95 of 3 errors: x1',
    });
    expect(secondsTo(judged.body, t0)).toBeCloseTo(45, 6);
    // Errors of 1: the point prediction is the bound, and is the job's first predicted finish.
    expect(judged.body.expectedFinish).toBe(judged.body.estimatedFinish);
    expect(ledger.getJob(judged.body.id as string)?.predictedFinishMs).toBe(
      Date.parse(judged.body.expectedFinish as string),
    );

    const view = s.sidecar.taskCosts().profiles;
    expect(view).toHaveLength(1);
    expect(view[0]).toMatchObject({
      profile: 'wordcount@alice/realtime',
      workloadClass: 'cpu',
      runs: 4,
      keptRuns: 4,
      setupSeconds: 12,
      commitSeconds: 3,
      errors: 3,
      errorMedian: 1,
      errorQuantile: 1,
      factor: 1,
    });
    expect(view[0]!.mapTaskSeconds + view[0]!.mapSecondsPerMb * 64).toBeCloseTo(10, 9);
    expect(view[0]!.reduceTaskSeconds + view[0]!.reduceSecondsPerMb * 128).toBeCloseTo(20, 9);
  });

  it("under the default 10 errors needed, judges a young profile at its errors' median + the margin", async () => {
    const s = setup(10);
    await s.sidecar.runOnce();
    // Three runs as predicted, then one of 63 s where 45 s were predicted: errors 1, 1, 1.4.
    for (let i = 0; i < 3; i++) await s.runTimed(WORDCOUNT, TIMELINE);
    await s.runTimed(WORDCOUNT, { ...TIMELINE, reduces: [38] });
    const t0 = s.now();
    const next = await s.submit({ ...WORDCOUNT, deadline: 3600 });
    // p95 of three is 1.4, above 1.25 x their median 1: the quantile wins; the prediction is x1.
    expect(next.body.estimateFrom).toMatchObject({ source: 'profile', errors: 3, expected: 1 });
    expect((next.body.estimateFrom as { factor: number }).factor).toBeCloseTo(1.4, 9);
    expect((Date.parse(next.body.expectedFinish as string) - t0) / 1000).toBeCloseTo(45, 2);
    expect(next.body.estimateFrom).toMatchObject({
      text: 'profile wordcount@alice/realtime, 4 runs, 3 errors known: x1.4 (at least their median + margin 25 %)',
    });
  });

  it('learns a run slower than predicted as an error above 1, and judges the next ones by it', async () => {
    const s = setup();
    await s.sidecar.runOnce();
    await s.runTimed(WORDCOUNT, TIMELINE);
    // Three runs as predicted (errors of 1); the fifth is judged at x1 and its reduce of 38 s
    // makes it take 63 s where 45 s were predicted: an error of 1.4.
    for (let i = 0; i < 3; i++) await s.runTimed(WORDCOUNT, TIMELINE);
    const slow = await s.runTimed(WORDCOUNT, { ...TIMELINE, reduces: [38] });
    expect(slow.res.body.estimateFrom).toMatchObject({ source: 'profile', factor: 1 });
    const next = await s.submit({ ...WORDCOUNT, deadline: 3600 });
    // Errors 1, 1, 1 and 63/45 = 1.4: p95 of four by nearest rank is the largest.
    expect((next.body.estimateFrom as { factor: number }).factor).toBeCloseTo(1.4, 9);
  });

  it("counts a profile's set-up from the admission: the client's own start before its app is spent again", async () => {
    const s = setup();
    await s.sidecar.runOnce();
    // The client takes 5 s to start and submit its app: 5 + 12 s before the first map.
    await s.runTimed(WORDCOUNT, { ...TIMELINE, startAfter: 5 });
    expect(s.sidecar.taskCosts().profiles[0]).toMatchObject({ setupSeconds: 17 });
    const t0 = s.now();
    const next = await s.submit({ ...WORDCOUNT, deadline: 3600 });
    expect(secondsTo(next.body, t0)).toBeCloseTo(50 * 1.25, 6);
  });

  it('keeps another user, another queue and an explicit profile apart', async () => {
    const s = setup();
    await s.sidecar.runOnce();
    await s.runTimed(WORDCOUNT, TIMELINE);
    const bob = await s.submit({ ...WORDCOUNT, user: 'bob', deadline: 3600 });
    // The class learned from alice's run: bob's first run is judged on it.
    expect(bob.body.estimateFrom).toMatchObject({ source: 'class', profile: 'wordcount@bob/realtime' });
    const named = await s.submit({ ...WORDCOUNT, profile: 'nightly-wc', deadline: 3600 });
    expect(named.body.estimateFrom).toMatchObject({ source: 'class', profile: 'nightly-wc' });
    const again = await s.submit({ ...WORDCOUNT, deadline: 3600 });
    expect(again.body.estimateFrom).toMatchObject({ source: 'profile', profile: 'wordcount@alice/realtime' });
  });

  it('says where the estimate came from in a rejection too', async () => {
    const s = setup();
    await s.sidecar.runOnce();
    const r = await s.submit({ ...WORDCOUNT, deadline: 5 });
    expect(r.body).toMatchObject({ decision: 'rejected', estimateFrom: { source: 'default' } });
  });

  it('keeps the profiles in the ledger across a restart', async () => {
    const s = setup();
    await s.sidecar.runOnce();
    await s.runTimed(WORDCOUNT, TIMELINE);
    await new Promise((r) => setTimeout(r, 50)); // the group commit that saves them
    const again = setup();
    await again.sidecar.runOnce();
    const r = await again.submit({ ...WORDCOUNT, deadline: 3600 });
    expect(r.body.estimateFrom).toMatchObject({ source: 'profile', runs: 1 });
  });

  it('under estimateModel paper: no profile and no margin, and nothing said', async () => {
    const s = learningSidecar(ledger, {
      auth: { tokens: [{ name: 'ops', token: TOKEN }] },
      admission: { estimateModel: 'paper', amContainers: 0 },
    });
    await s.sidecar.runOnce();
    const r = await s.submit({ ...WORDCOUNT, deadline: 3600 });
    expect(r.body.estimateFrom).toBeUndefined();
    expect(s.sidecar.taskCosts().profiles).toEqual([]);
  });
});
