import fs from 'node:fs';
import { Command, InvalidArgumentError } from 'commander';
import { defaultEmulatorConfig, type EmulatorConfig } from '../emulator/config';
import type { FaultSettings } from '../emulator/controls';
import { startEmulator } from '../emulator/server';
import { createLogger } from '../log';
import { parseClusterFile } from '../sim/formats/cluster-file';

/**
 * `yarn-sched-sidecar emulator`: an emulated ResourceManager (and JobHistory server) over the
 * simulator, in scaled real time. docs/emulator.md describes every option and control.
 */

const number =
  (min: number, max = Number.POSITIVE_INFINITY) =>
  (value: string) => {
    const n = Number(value);
    if (!Number.isFinite(n) || n < min || n > max)
      throw new InvalidArgumentError(`not a number in [${min}, ${max}]: ${value}`);
    return n;
  };
const port = (value: string) => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new InvalidArgumentError(`not a port: ${value}`);
  return n;
};

interface EmulatorCliOptions {
  cluster?: string;
  host: string;
  port: number;
  jhsPort: number;
  speed: number;
  seed: number;
  maxPriority: number;
  placement: string;
  mapSecondsPerMb?: number;
  reduceSecondsPerMb?: number;
  standbyOf?: string;
  latencyMs: number;
  failShare: number;
  failStatus: string;
  truncateShare: number;
  corruptShare: number;
  loseAnswerShare: number;
  verbose?: boolean;
}

export function emulatorConfigFrom(o: EmulatorCliOptions): EmulatorConfig {
  const base = defaultEmulatorConfig();
  const cluster = o.cluster ? parseClusterFile(fs.readFileSync(o.cluster, 'utf8'), o.cluster) : base.cluster;
  const cost = (c: EmulatorConfig['cluster']['costs']['cpu']) => ({
    ...c,
    mapSecondsPerMB: o.mapSecondsPerMb ?? c.mapSecondsPerMB,
    reduceSecondsPerMB: o.reduceSecondsPerMb ?? c.reduceSecondsPerMB,
  });
  return defaultEmulatorConfig({
    cluster: { ...cluster, costs: { cpu: cost(cluster.costs.cpu), gpu: cost(cluster.costs.gpu) } },
    maxApplicationPriority: o.maxPriority,
    placementPolicy: o.placement,
  });
}

export function emulatorCommand(): Command {
  return new Command('emulator')
    .description('Run an emulated YARN ResourceManager and JobHistory server over the simulator')
    .option('--cluster <file>', 'cluster file (docs/simulator.md); default: 4 CPU nodes and 2 GPU nodes')
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--port <n>', 'ResourceManager web port', port, 8088)
    .option('--jhs-port <n>', 'JobHistory server web port', port, 19888)
    .option('--speed <n>', 'simulated seconds per real second', number(1e-3), 1)
    .option('--seed <n>', 'seed of the simulation and of injected faults', number(0), 1)
    .option('--max-priority <n>', 'yarn.cluster.max-application-priority', number(0), 10)
    .option('--placement <policy>', 'placement policy of the registry', 'fifo')
    .option('--map-seconds-per-mb <s>', 'map task seconds per input MB (both code kinds)', number(0))
    .option('--reduce-seconds-per-mb <s>', 'reduce task seconds per shuffled MB (both code kinds)', number(0))
    .option('--standby-of <url>', 'act as a standby RM redirecting to this active RM')
    .option('--latency-ms <n>', 'added to every answer', number(0), 0)
    .option('--fail-share <x>', 'share of requests answered with a 5xx', number(0, 1), 0)
    .option('--fail-status <list>', 'statuses of injected failures, comma-separated', '500,503')
    .option('--truncate-share <x>', 'share of answers cut in half', number(0, 1), 0)
    .option('--corrupt-share <x>', 'share of answers with a corrupted body', number(0, 1), 0)
    .option(
      '--lose-answer-share <x>',
      'share of writes applied whose answer is lost (connection closed)',
      number(0, 1),
      0,
    )
    .option('--verbose', 'debug logging')
    .action(async (o: EmulatorCliOptions) => {
      const logger = createLogger({ level: o.verbose ? 'debug' : 'info', format: 'pretty', stderr: true });
      const faults: Partial<FaultSettings> = {
        standbyOf: o.standbyOf ?? null,
        latencyMs: o.latencyMs,
        failShare: o.failShare,
        failStatuses: o.failStatus.split(',').map(Number),
        truncateShare: o.truncateShare,
        corruptShare: o.corruptShare,
        loseAnswerShare: o.loseAnswerShare,
      };
      const emu = await startEmulator({
        config: emulatorConfigFrom(o),
        speed: o.speed,
        seed: o.seed,
        host: o.host,
        port: o.port,
        jhsPort: o.jhsPort,
        faults,
        logger,
      });
      // Keep the simulation moving between requests, so each request has little to catch up.
      const tick = setInterval(() => emu.rm.sync(), 1000);
      process.stdout.write(`ResourceManager: ${emu.url}\nJobHistory server: ${emu.jhsUrl}\n`);
      const stop = () => {
        clearInterval(tick);
        void emu.close().then(() => process.exit(0));
      };
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    });
}
