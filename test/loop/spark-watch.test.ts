import { silentLogger } from '../../src/log';
import { SparkWatch } from '../../src/loop/spark-watch';
import type { Ledger } from '../../src/store/types';
import type { AppReport } from '../../src/yarn/model';
import type { SparkExecutors } from '../../src/yarn/spark';

const app = (id: string, o: Partial<AppReport> = {}): AppReport =>
  ({ id, applicationType: 'SPARK', state: 'RUNNING', launchTime: 1500, ...o }) as AppReport;

/** A ledger that knows two jobs: a Spark one (application_1) and a MapReduce one (application_2). */
const ledger = {
  getJobByAppId: (id: string) =>
    id === 'application_1'
      ? { spec: { sparkPlan: { executors: 1 } } }
      : id === 'application_2'
        ? { spec: {} }
        : undefined,
  jobOfApp: () => undefined,
} as unknown as Ledger;

const flush = () => new Promise((r) => setImmediate(r));

describe("the running Spark apps' first executors", () => {
  it("reads a Spark job's running app until it shows an executor, then no more", async () => {
    const answers: SparkExecutors[] = [
      { firstExecutorMs: null, executors: 0 },
      { firstExecutorMs: 26_000, executors: 1 },
    ];
    const read = jest.fn(async () => answers.shift()!);
    const watch = new SparkWatch({ ledger, log: silentLogger(), read });
    watch.observe([app('application_1')]);
    await flush();
    expect(watch.of('application_1')).toEqual({ launchMs: 1500 });
    watch.observe([app('application_1')]);
    await flush();
    expect(watch.of('application_1')).toEqual({ launchMs: 1500, firstExecutorMs: 26_000, executors: 1 });
    watch.observe([app('application_1')]);
    await flush();
    expect(read).toHaveBeenCalledTimes(2);
    watch.forget('application_1');
    expect(watch.of('application_1')).toEqual({});
  });

  it('reads no MapReduce job, no app of no job, no app not running, and survives a failed read', async () => {
    const read = jest.fn(async (): Promise<SparkExecutors> => {
      throw new Error('503');
    });
    const watch = new SparkWatch({ ledger, log: silentLogger(), read });
    watch.observe([
      app('application_2'),
      app('application_3'),
      app('application_1', { state: 'ACCEPTED' }),
      app('application_1', { applicationType: 'MAPREDUCE' }),
    ]);
    expect(read).not.toHaveBeenCalled();
    watch.observe([app('application_1')]);
    await flush();
    expect(read).toHaveBeenCalledTimes(1);
    expect(watch.of('application_1')).toEqual({ launchMs: 1500 });
  });
});
