import { SqliteLedger } from '../../src/store/ledger';
import { mapSparkExecutors, sparkTime } from '../../src/yarn/spark';
import { learningSidecar, T0 } from './learning-harness';

const TOKEN = 'spark-learning-token-0123456789';

describe("a Spark app's executors from its driver's REST API", () => {
  it('reads the first executor added, the driver left out', () => {
    expect(sparkTime('2026-11-29T01:30:31.141GMT')).toBe(Date.parse('2026-11-29T01:30:31.141Z'));
    expect(
      mapSparkExecutors([
        { id: 'driver', addTime: '2026-11-29T01:30:16.240GMT' },
        { id: '2', addTime: '2026-11-29T01:30:40.000GMT' },
        { id: '1', addTime: '2026-11-29T01:30:31.141GMT' },
      ]),
    ).toEqual({ firstExecutorMs: Date.parse('2026-11-29T01:30:31.141Z'), executors: 2 });
    expect(mapSparkExecutors([{ id: 'driver', addTime: '2026-11-29T01:30:16.240GMT' }])).toEqual({
      firstExecutorMs: null,
      executors: 0,
    });
    expect(() => mapSparkExecutors({ executors: [] })).toThrow(/JSON array/);
  });
});

/**
 * A recurring Spark job in the live sidecar: its first run is judged on its class's figures, its
 * end is learned into its profile (no JobHistory read: the executors' containers as maps lasting
 * from the app's start to its end), and the next run is judged on that profile.
 */
describe('a recurring Spark job, live', () => {
  let ledger: SqliteLedger;
  beforeEach(() => (ledger = SqliteLedger.open(':memory:')));
  afterEach(() => ledger.close());

  it('is judged on its class first, then on its profile of its own runs', async () => {
    const s = learningSidecar(ledger, {
      auth: { tokens: [{ name: 'ops', token: TOKEN }] },
      admission: { containerMemoryMb: 1024, containerVcores: 1 },
    });
    await s.sidecar.runOnce();
    const PI = {
      name: 'Pi',
      reduces: undefined,
      spark: { executors: 2, executorCores: 1, executorMemoryMb: 512 },
    };
    const first = await s.submit({ ...PI, deadline: 3600 });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({
      decision: 'admitted',
      spark: { executors: 2, containersPerExecutor: 1, maps: 2, executorsFrom: 'executors' },
      estimateFrom: { source: 'default', profile: 'pi@alice/realtime' },
    });
    await s.sidecar.runOnce();
    const appId = ledger.getJob(first.body.id)!.appId!;
    expect(ledger.getJob(first.body.id)).toMatchObject({ maps: 2, reduces: 0 });
    s.rm.run(appId, T0 + 1000);
    await s.sidecar.runOnce();
    s.rm.finish(appId, T0 + 41_000);
    s.advance(60_000);
    await s.sidecar.runOnce();
    expect(ledger.getJob(first.body.id)).toMatchObject({ state: 'finished', outcome: 'met' });

    const view = s.sidecar.taskCosts().profiles;
    expect(view).toHaveLength(1);
    expect(view[0]).toMatchObject({ profile: 'pi@alice/realtime', runs: 1 });
    // 40 s from the app's start to its end: set-up to its AM's launch (none reported here), then
    // its executors.
    expect(view[0]!.setupSeconds + view[0]!.mapTaskSeconds + view[0]!.commitSeconds).toBeCloseTo(40, 6);

    const t0 = s.now();
    const second = await s.submit({ ...PI, deadline: 3600 });
    expect(second.body.estimateFrom).toMatchObject({ source: 'profile', runs: 1, factor: 1.25 });
    expect((Date.parse(second.body.estimatedFinish as string) - t0) / 1000).toBeCloseTo(40 * 1.25, 6);
  });
});
