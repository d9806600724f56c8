import { TENANT_RUN_TIMES_KEY, TenantRunTimes, isQueue, tenantKey } from '../../src/loop/tenants';
import type { AppReport } from '../../src/yarn/model';

const app = (o: Partial<AppReport>): AppReport =>
  ({
    id: 'application_1_0001',
    name: 'etl',
    user: 'bob',
    queue: 'root.default',
    state: 'RUNNING',
    startedTime: 0,
    finishedTime: 0,
    runningContainers: 0,
    allocatedMB: 0,
    allocatedVCores: 0,
    appNodeLabelExpression: '',
    ...o,
  }) as AppReport;

const memoryStore = () => {
  const values = new Map<string, unknown>();
  return {
    values,
    getValue: <T>(k: string) => values.get(k) as T | undefined,
    setValue: (k: string, v: unknown) => void values.set(k, v),
  };
};

const own = isQueue('realtime');
const SIZE = { memoryMb: 1024, vcores: 1 };

describe("other tenants' run times (src/loop/tenants.ts)", () => {
  it('learns the longest of a recurring app’s last runs, from other queues only, each app once', () => {
    const store = memoryStore();
    const t = new TenantRunTimes(store);
    const ended = (id: string, seconds: number, queue = 'root.default') =>
      app({ id, queue, state: 'FINISHED', startedTime: 1_000_000, finishedTime: 1_000_000 + seconds * 1000 });
    expect(t.learn([ended('a1', 100), ended('a2', 140), ended('r1', 999, 'root.realtime')], own)).toBe(true);
    expect(t.runTime(tenantKey(app({})))).toBe(140);
    expect(t.runTime('root.realtime|etl|bob')).toBeUndefined();
    // The same apps again teach nothing; running ones are not runs.
    expect(t.learn([ended('a1', 100), app({ id: 'a3' })], own)).toBe(false);
    // Kept across a restart.
    expect(store.values.get(TENANT_RUN_TIMES_KEY)).toEqual([['root.default|etl|bob', [100, 140]]]);
    expect(new TenantRunTimes(store).runTime('root.default|etl|bob')).toBe(140);
  });

  it('expects a running app of a known key to release its containers at its start plus that run time', () => {
    const t = new TenantRunTimes(memoryStore());
    t.learn([app({ id: 'a1', state: 'FINISHED', startedTime: 1, finishedTime: 100_001 })], own);
    const nowS = 1_000;
    const running = [
      // 6 GB in 12 containers of 512 MB: 6 task containers of 1 GB.
      app({ id: 'a2', startedTime: 950_000, runningContainers: 12, allocatedMB: 6144, allocatedVCores: 12 }),
      // Running longer than any run seen: no known release.
      app({ id: 'a3', startedTime: 800_000, runningContainers: 2, allocatedMB: 2048, allocatedVCores: 2 }),
      // An unknown job, and one in the gpu partition of a known key.
      app({
        id: 'a4',
        name: 'adhoc',
        startedTime: 990_000,
        runningContainers: 1,
        allocatedMB: 1024,
        allocatedVCores: 1,
      }),
      app({
        id: 'a5',
        startedTime: 960_000,
        runningContainers: 1,
        allocatedMB: 1024,
        allocatedVCores: 1,
        appNodeLabelExpression: 'gpu',
      }),
      // The real-time queue's own apps are not other tenants.
      app({
        id: 'a6',
        queue: 'root.realtime',
        startedTime: 990_000,
        runningContainers: 3,
        allocatedMB: 3072,
        allocatedVCores: 3,
      }),
    ];
    expect(t.releases(running, own, SIZE, nowS)).toEqual({ '': Array(6).fill(1050), gpu: [1060] });
  });
});
