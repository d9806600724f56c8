/**
 * The shared cluster's real-time queue as the real RM reports it: its /conf answers the
 * preemption keys (the scheduling monitor off, as yarn-default.xml has it; a key nobody set is a
 * bare 404, read as Hadoop's default), and the capacity scheduler lets the other queues grow
 * into realtime's idle guarantee, so probe warns.
 */
import { runProbe } from '../../src/cli/probe';
import { HttpResourceManagerClient } from '../../src/yarn/client';
import { sharedCluster } from './cluster';

const hadoop = sharedCluster();

describe.each(['json', 'xml'] as const)('the real RM on a shared cluster (%s)', (format) => {
  it('says preemption is off, with the defaults of the policy’s waits', async () => {
    const rm = new HttpResourceManagerClient({ urls: [hadoop.rm], format, timeoutMs: 10_000 });
    try {
      expect(await rm.confValue('yarn.resourcemanager.scheduler.monitor.enable')).toBe('false');
      expect(await rm.confValue('no.such.key.of.the.sidecar')).toBeUndefined();
      expect(await rm.preemption()).toMatchObject({
        source: 'rm',
        enabled: false,
        maxWaitBeforeKillMs: 15000,
        naturalTerminationFactor: 0.2,
        monitoringIntervalMs: 3000,
        totalPreemptionPerRound: 0.1,
      });
    } finally {
      rm.transport.close();
    }
  });

  it('probe shows realtime’s guarantee as lent in both partitions and warns', async () => {
    let out = '';
    const code = await runProbe(
      { urls: [hadoop.rm], format, output: 'json', timeoutMs: 10_000, realtimeQueue: 'realtime' },
      { out: (t) => (out += t), err: (t) => (out += t) },
    );
    expect(code).toBe(0);
    const s = JSON.parse(out) as {
      lending: {
        queue: string;
        partitions: Array<{ partition: string; guaranteed: number; verdict: string }>;
        warnings: string[];
      };
    };
    expect(s.lending.queue).toBe('root.realtime');
    expect(s.lending.partitions.map((p) => [p.partition, p.guaranteed, p.verdict])).toEqual([
      ['', 50, 'lent'],
      ['gpu', 70, 'lent'],
    ]);
    expect(s.lending.warnings).toHaveLength(2);
    expect(s.lending.warnings[0]).toContain('preemption is off');
  });
});
