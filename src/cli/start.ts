import { Command } from 'commander';
import { loadConfigFile } from '../config/load';
import { rmTransportOptions } from '../config/rm-transport';
import { defaultRegistry } from '../core/registry';
import { SidecarError } from '../errors/base';
import type { SidecarConfig } from '../config/schema';
import { createLogger, type Logger } from '../log';
import { lendingView } from '../loop/lending';
import { startHaSidecar } from '../service/ha-start';
import { resolveDataPath, startSidecar, type StartOptions } from '../service/start';
import { HttpResourceManagerClient } from '../yarn/client';
import { EXIT, startFailureCode } from './exit-codes';

/**
 * Once at start: warn when the real-time queue's guarantee can be lent to other queues with
 * nothing to take it back (the RM's preemption off, or the borrowers exempt), as probe shows it.
 * An RM that cannot be read now is not an error here: the loop reports it.
 */
export async function warnIfGuaranteeLent(config: SidecarConfig, logger: Logger): Promise<string[]> {
  const rm = new HttpResourceManagerClient({
    ...rmTransportOptions(config.rm),
    urls: config.rm.addresses,
    maxAttempts: 1,
  });
  try {
    const [scheduler, nodes, preemption] = await Promise.all([rm.scheduler(), rm.nodes(), rm.preemption()]);
    const labels = [...new Set(nodes.flatMap((n) => n.nodeLabels))];
    const view = lendingView(scheduler, preemption, config.yarn.realtimeQueue, labels);
    for (const w of view.warnings) logger.warn(w, { component: 'service', check: 'guarantee-lending' });
    return view.warnings;
  } catch (err) {
    logger.debug('guarantee lending not checked', { component: 'service', error: (err as Error).message });
    return [];
  } finally {
    rm.transport.close();
  }
}

/** Dashboard routes, when the dashboard module is present. */
function dashboardRoutes(): StartOptions['extraRoutes'] {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- optional module, resolved at run time
    const mod = require('../dashboard') as { mountDashboard?: (app: unknown, options?: unknown) => void };
    return mod.mountDashboard ? (app) => mod.mountDashboard!(app) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Starts the sidecar; Ctrl-C and SIGTERM stop it cleanly. With ha.enabled it is a follower until
 * elected (src/service/ha-start.ts); deposed or fenced, it has stopped writing, and the process ends
 * with EXIT.deposed for its supervisor to start it again.
 */
async function run(config: SidecarConfig, logger: Logger): Promise<void> {
  try {
    const extraRoutes = dashboardRoutes();
    let close: () => Promise<void>;
    if (config.ha.enabled) {
      const running = await startHaSidecar(config, { logger, extraRoutes });
      void running.deposed.then((reason) => {
        logger.warn('exiting: deposed', { component: 'service', reason, exitCode: EXIT.deposed });
        process.exit(EXIT.deposed);
      });
      close = running.close;
    } else {
      const running = await startSidecar(config, { logger, extraRoutes });
      void warnIfGuaranteeLent(config, logger);
      close = running.close;
    }
    const stop = async (signal: string) => {
      logger.info('stopping', { component: 'service', signal });
      await close();
      process.exit(EXIT.ok);
    };
    process.once('SIGTERM', () => void stop('SIGTERM'));
    process.once('SIGINT', () => void stop('SIGINT'));
  } catch (err) {
    const code = err instanceof SidecarError ? `${err.code}: ` : '';
    process.stderr.write(`cannot start: ${code}${(err as Error).message}\n`);
    process.exitCode = startFailureCode(err);
  }
}

export function startCommand(): Command {
  return new Command('start')
    .description(
      'Run the sidecar against a real RM: poll the RM, decide, enforce, and serve the API and dashboard',
    )
    .option('--config <file>', 'configuration file (YAML; docs/configuration.md)', 'config/default.yaml')
    .action(async (opts: { config: string }) => {
      const registry = defaultRegistry();
      let config;
      try {
        config = loadConfigFile(resolveDataPath(opts.config), {
          env: process.env,
          knownAdmissionPolicies: registry.names('admission'),
          knownPlacementPolicies: registry.names('placement'),
        });
      } catch (err) {
        process.stderr.write(`configuration error: ${(err as Error).message}\n`);
        process.exitCode = EXIT.usage;
        return;
      }
      const logger = createLogger({ level: config.log.level, format: config.log.format });
      await run(config, logger);
    });
}
