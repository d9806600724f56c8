import { applicationListCount } from '../../bench/rm-cost/cost';
import { cpuMs, statTicks, youngGcOf } from '../../bench/rm-cost/rm-process';

describe("the RM JVM's CPU and collections, as bench/rm-cost reads them", () => {
  it('sums utime and stime (fields 14 and 15) of a /proc/PID/stat line, a name with spaces and parentheses too', () => {
    const rest = 'S 1 100 100 0 -1 4194560 2000 0 0 0 1234 567 0 0 20 0 40 0 5000 100000 2000';
    expect(statTicks(`4242 (java) ${rest}`)).toBe(1234 + 567);
    expect(statTicks(`4242 (a (b) c) ${rest}`)).toBe(1234 + 567);
    expect(() => statTicks('garbage')).toThrow(/not a \/proc\/PID\/stat line/);
    expect(() => statTicks('4242 (java) S 1 2')).toThrow(/no utime\/stime/);
  });

  it("reads this process's own CPU time, growing as it works", () => {
    const before = cpuMs(process.pid);
    const end = Date.now() + 60;
    let x = 0;
    while (Date.now() < end) x += Math.sqrt(x + 1);
    expect(x).toBeGreaterThan(0);
    expect(cpuMs(process.pid)).toBeGreaterThan(before);
  });

  it('counts the young collector of a /jmx answer (Serial: Copy), not the old one', () => {
    const jmx = {
      beans: [
        {
          name: 'java.lang:type=GarbageCollector,name=Copy',
          Name: 'Copy',
          CollectionCount: 17,
          CollectionTime: 95,
        },
        {
          name: 'java.lang:type=GarbageCollector,name=MarkSweepCompact',
          Name: 'MarkSweepCompact',
          CollectionCount: 2,
          CollectionTime: 300,
        },
      ],
    };
    expect(youngGcOf(jmx)).toEqual({ young: 17, youngMs: 95 });
    expect(() => youngGcOf({ beans: [{ Name: 'MarkSweepCompact', CollectionCount: 2 }] })).toThrow(
      /no young-generation collector/,
    );
    expect(() => youngGcOf({})).toThrow(/no beans/);
  });

  it('reads the count of `yarn application -list` as Hadoop 3.4.3 prints it', () => {
    const out = [
      '2026-11-29 07:08:52,451 WARN util.NativeCodeLoader: Unable to load native-hadoop library for your platform... using builtin-java classes where applicable',
      'Total number of applications (application-types: [], states: [NEW, NEW_SAVING, SUBMITTED, ACCEPTED, RUNNING, FINISHED, FAILED, KILLED] and tags: []):1000',
      '                Application-Id\t    Application-Name',
    ].join('\n');
    expect(applicationListCount(out)).toBe(1000);
    expect(applicationListCount('no count here')).toBeUndefined();
  });
});
