import fs from 'node:fs';
import { Command, InvalidArgumentError } from 'commander';
import {
  defaultEmulatorConfig,
  emulatorConfigIssues,
  issuePath,
  type EmulatorConfig,
} from '../emulator/config';
import { loadEmulatorConfigFile } from '../emulator/config-file';
import type { HdfsFileOption } from '../emulator/webhdfs-app';
import { AUTH_MODES, type AuthMode } from '../emulator/auth';
import { ValidationError } from '../errors/validation';
import type { FaultSettings } from '../emulator/controls';
import { startEmulator } from '../emulator/server';
import { DEFAULT_SYNTHETIC_HISTORY } from '../emulator/synthetic-history';
import { createLogger } from '../log';
import { EXIT, startFailureCode } from './exit-codes';
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

export interface EmulatorCliOptions {
  config?: string;
  cluster?: string;
  host: string;
  port: number;
  jhsPort: number;
  speed: number;
  seed: number;
  maxPriority: number;
  placement: string;
  auth: AuthMode;
  mapSecondsPerMb?: number;
  reduceSecondsPerMb?: number;
  standbyOf?: string;
  latencyMs: number;
  failShare: number;
  failStatus: string;
  truncateShare: number;
  corruptShare: number;
  loseAnswerShare: number;
  historyJobs?: number;
  historyDays?: number;
  verbose?: boolean;
}

/** How the options were given: true for a flag on the command line (not its default). */
export type GivenOnCommandLine = (option: keyof EmulatorCliOptions) => boolean;

/** What the emulator runs with: the RM's configuration and its WebHDFS files. */
export interface EmulatorSetup {
  config: EmulatorConfig;
  hdfsFiles: readonly HdfsFileOption[];
}

/**
 * The configuration from the options: the `--config` file (docs/emulator.md, "Configuration
 * file") or the built-in one, then the flags given on the command line over it. Throws a
 * ValidationError naming every problem (file, line, field) before anything starts.
 */
export function emulatorSetupFrom(
  o: EmulatorCliOptions,
  given: GivenOnCommandLine = () => true,
): EmulatorSetup {
  const flagCluster = o.cluster ? parseClusterFile(fs.readFileSync(o.cluster, 'utf8'), o.cluster) : undefined;
  let setup: EmulatorSetup;
  if (o.config) {
    setup = loadEmulatorConfigFile(o.config, {
      cluster: flagCluster,
      maxApplicationPriority: given('maxPriority') ? o.maxPriority : undefined,
      placementPolicy: given('placement') ? o.placement : undefined,
      auth: given('auth') ? o.auth : undefined,
    });
  } else {
    const config = defaultEmulatorConfig({
      ...(flagCluster ? { cluster: flagCluster } : {}),
      maxApplicationPriority: o.maxPriority,
      placementPolicy: o.placement,
      auth: o.auth,
    });
    // The built-in queues may not fit a cluster from --cluster (a label it lacks).
    const issues = emulatorConfigIssues(config);
    if (issues.length)
      throw new ValidationError(
        issues.map((i) => ({
          path: issuePath(i.path),
          message: `${i.message} (the built-in queues; give them in a --config file)`,
          ...(o.cluster ? { file: o.cluster } : {}),
        })),
      );
    setup = { config, hdfsFiles: [] };
  }
  const cluster = setup.config.cluster;
  const cost = (c: EmulatorConfig['cluster']['costs']['cpu']) => ({
    ...c,
    mapSecondsPerMB: o.mapSecondsPerMb ?? c.mapSecondsPerMB,
    reduceSecondsPerMB: o.reduceSecondsPerMb ?? c.reduceSecondsPerMB,
  });
  return {
    config: {
      ...setup.config,
      cluster: { ...cluster, costs: { cpu: cost(cluster.costs.cpu), gpu: cost(cluster.costs.gpu) } },
    },
    hdfsFiles: setup.hdfsFiles,
  };
}

/** `file:line: path: message`, one line per problem, as `simulate` prints them. */
export function issueLines(e: ValidationError): string[] {
  return e.issues.map(
    (i) => `${i.file ? `${i.file}${i.line !== undefined ? `:${i.line}` : ''}: ` : ''}${i.path}: ${i.message}`,
  );
}

export function emulatorCommand(): Command {
  const command = new Command('emulator').description(
    'Run an emulated YARN ResourceManager and JobHistory server over the simulator',
  );
  return withHistoryOptions(withFaultOptions(withClusterOptions(command))).action(runEmulator);
}

/** The options of the emulated cluster and its servers: configuration, addresses, speed, policies. */
function withClusterOptions(command: Command): Command {
  return command
    .option(
      '--config <file>',
      'emulator configuration file, YAML or JSON (docs/emulator.md): cluster, queues, HDFS files...; flags given on the command line override it',
    )
    .option(
      '--cluster <file>',
      "cluster file (docs/simulator.md), in place of the configuration's; default: 4 CPU nodes and 2 GPU nodes",
    )
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--port <n>', 'ResourceManager web port', port, 8088)
    .option('--jhs-port <n>', 'JobHistory server web port', port, 19888)
    .option('--speed <n>', 'simulated seconds per real second', number(1e-3), 1)
    .option('--seed <n>', 'seed of the simulation and of injected faults', number(0), 1)
    .option(
      '--max-priority <n>',
      "yarn.cluster.max-application-priority, 0 as on a stock cluster (when given, over the configuration's)",
      number(0),
      0,
    )
    .option(
      '--auth <mode>',
      "HTTP authentication: none (stock: anonymous calls are dr.who) or simple (every call needs user.name; when given, over the configuration's)",
      (v: string) => {
        if (!(AUTH_MODES as readonly string[]).includes(v))
          throw new InvalidArgumentError(`not one of ${AUTH_MODES.join(', ')}: ${v}`);
        return v as AuthMode;
      },
      'none' as AuthMode,
    )
    .option(
      '--placement <policy>',
      "placement policy of the registry (when given, over the configuration's)",
      'fifo',
    )
    .option('--map-seconds-per-mb <s>', 'map task seconds per input MB (both code kinds)', number(0))
    .option(
      '--reduce-seconds-per-mb <s>',
      'reduce task seconds per shuffled MB (both code kinds)',
      number(0),
    );
}

/** The options of the faults injected into the RM's answers, and of a standby RM. */
function withFaultOptions(command: Command): Command {
  return command
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
    );
}

/** The options of the synthetic history, logging, and the help's note on --config. */
function withHistoryOptions(command: Command): Command {
  return command
    .option(
      '--history-jobs <n>',
      'serve a synthetic history of N finished MapReduce jobs from the JobHistory server (docs/emulator.md, "Synthetic history")',
      number(0, 10_000_000),
    )
    .option('--history-days <d>', 'the synthetic history spans the last D days', number(1e-3), 7)
    .option('--verbose', 'debug logging')
    .addHelpText(
      'after',
      '\nWith --config FILE, a flag given on the command line overrides the file: --cluster its cluster,\n' +
        '--max-priority its maxApplicationPriority, --placement its placementPolicy, --auth its auth, and\n' +
        '--map-seconds-per-mb / --reduce-seconds-per-mb the per-MB costs of its cluster.\n' +
        'An invalid file is reported one problem a line (file:line: field: problem); exit code 2.',
    );
}

/** `emulator`: the emulated RM and JobHistory server started, and kept running until a signal. */
async function runEmulator(o: EmulatorCliOptions, cmd: Command): Promise<void> {
  const setup = setupOrReport(o, cmd);
  if (setup === undefined) return;
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
  let emu: Awaited<ReturnType<typeof startEmulator>>;
  try {
    emu = await startEmulator({
      config: setup.config,
      hdfsFiles: setup.hdfsFiles,
      speed: o.speed,
      seed: o.seed,
      host: o.host,
      port: o.port,
      jhsPort: o.jhsPort,
      faults,
      logger,
      ...(o.historyJobs !== undefined && o.historyJobs > 0
        ? { history: syntheticHistory(o, o.historyJobs, setup.config) }
        : {}),
    });
  } catch (err) {
    process.stderr.write(`emulator: cannot start: ${(err as Error).message}\n`);
    process.exitCode = startFailureCode(err);
    return;
  }
  // Keep the simulation moving between requests, so each request has little to catch up.
  const tick = setInterval(() => emu.rm.sync(), 1000);
  process.stdout.write(`ResourceManager: ${emu.url}\nJobHistory server: ${emu.jhsUrl}\n`);
  const stop = () => {
    clearInterval(tick);
    void emu.close().then(() => process.exit(EXIT.ok));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

/**
 * The emulator's set-up from its options and files; undefined when they are bad input, said on
 * stderr (one problem a line) with the usage exit code.
 */
function setupOrReport(o: EmulatorCliOptions, cmd: Command): EmulatorSetup | undefined {
  try {
    return emulatorSetupFrom(o, (k) => cmd.getOptionValueSource(k) === 'cli');
  } catch (e) {
    if (e instanceof ValidationError) {
      process.stderr.write(
        `invalid input, emulator not started:\n${issueLines(e)
          .map((l) => `  ${l}\n`)
          .join('')}`,
      );
      process.exitCode = EXIT.usage;
      return undefined;
    }
    // A file named by an option that cannot be read is bad input too.
    process.stderr.write(`invalid input, emulator not started: ${(e as Error).message}\n`);
    process.exitCode = EXIT.usage;
    return undefined;
  }
}

/** The synthetic history of `--history-jobs N` over the last `--history-days`, on the cluster's CPU containers. */
function syntheticHistory(o: EmulatorCliOptions, jobs: number, config: EmulatorConfig) {
  return {
    ...DEFAULT_SYNTHETIC_HISTORY,
    containers: Math.max(
      1,
      config.cluster.nodeClasses.reduce((n, c) => n + c.count * (c.containers - c.gpuContainers), 0),
    ),
    seed: o.seed,
    jobs: Math.floor(jobs),
    startMs: Date.now() - (o.historyDays ?? 7) * 86_400_000,
    meanGapSeconds: ((o.historyDays ?? 7) * 86_400) / jobs,
  };
}
