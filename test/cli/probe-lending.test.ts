import { runProbe } from '../../src/cli/probe';
import { warnIfGuaranteeLent } from '../../src/cli/start';
import { buildConfig } from '../../src/config/load';
import { startEmulator, type RunningEmulator } from '../../src/emulator/server';
import { sidecarLogCapture } from '../log-capture';

/**
 * probe against the emulated RM over HTTP: its scheduler lends (every leaf may grow to 100 %)
 * and its /conf says the scheduling monitor is off, as a stock RM's yarn-default.xml does.
 */
describe('probe: the real-time queue on a shared cluster', () => {
  let emu: RunningEmulator;
  beforeAll(async () => {
    emu = await startEmulator({ speed: 1 });
  });
  afterAll(async () => {
    await emu.close();
  });

  async function probe(format: 'json' | 'xml', output: 'json' | 'text'): Promise<string> {
    let out = '';
    let err = '';
    const code = await runProbe(
      { urls: [emu.url], format, output, timeoutMs: 5000, realtimeQueue: 'realtime' },
      { out: (t) => (out += t), err: (t) => (err += t) },
    );
    expect(err).toBe('');
    expect(code).toBe(0);
    return out;
  }

  it.each(['json', 'xml'] as const)('reads preemption off and a lendable guarantee (%s)', async (format) => {
    const s = JSON.parse(await probe(format, 'json')) as {
      lending: {
        queue: string;
        preemption: { source: string; enabled: boolean };
        partitions: Array<{
          partition: string;
          guaranteed: number;
          othersMayBorrow: number;
          verdict: string;
        }>;
        warnings: string[];
      };
    };
    expect(s.lending.queue).toBe('root.realtime');
    expect(s.lending.preemption).toMatchObject({ source: 'rm', enabled: false });
    expect(
      s.lending.partitions.map((p) => [p.partition, p.guaranteed, p.othersMayBorrow, p.verdict]),
    ).toEqual([
      ['', 40, 140, 'lent'],
      ['gpu', 50, 50, 'lent'],
    ]);
    expect(s.lending.warnings).toHaveLength(2);
  });

  it('says so in its text', async () => {
    const text = await probe('json', 'text');
    expect(text).toContain('Preemption: off (yarn.resourcemanager.scheduler.monitor.enable)');
    expect(text).toContain('  (default): 40 / 100 / 0; 140 / 0; guarantee lent');
    expect(text).toMatch(/WARNING: root\.realtime's guarantee in partition gpu \(50%\) can be lent/);
  });

  it('start warns once per lendable partition, in the log', async () => {
    const { logger, lines } = sidecarLogCapture('warn');
    const config = buildConfig({ rm: { addresses: [emu.url] } });
    const warnings = await warnIfGuaranteeLent(config, logger);
    expect(warnings).toHaveLength(2);
    const logged = lines.filter((l) => l.includes('guarantee-lending'));
    expect(logged).toHaveLength(2);
    expect(logged[0]).toContain("root.realtime's guarantee in the default partition (40%) can be lent");
  });

  it('start says nothing when the RM cannot be read (the loop reports that)', async () => {
    const { logger } = sidecarLogCapture('warn');
    const config = buildConfig({ rm: { addresses: ['http://127.0.0.1:1'], timeoutMs: 500 } });
    await expect(warnIfGuaranteeLent(config, logger)).resolves.toEqual([]);
  });
});
