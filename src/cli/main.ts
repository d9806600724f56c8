import { Command } from 'commander';
import { demoCommand } from './demo';
import { emulatorCommand } from './emulator';
import { estimatesCommand } from './estimates';
import { probeCommand } from './probe';
import { runCommand } from './run';
import { simulateCommand } from './simulate';
import { startCommand } from './start';

/**
 * The `yarn-sched-sidecar` command. Each sub-command lives in its own file under src/cli/
 * and is registered here explicitly.
 */
export function buildProgram(): Command {
  const program = new Command('yarn-sched-sidecar')
    .description('Deadline admission and energy-aware placement for Hadoop YARN, beside the ResourceManager')
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- package.json sits outside rootDir
    .version(require('../../package.json').version as string);
  program.addCommand(probeCommand());
  program.addCommand(demoCommand());
  program.addCommand(emulatorCommand());
  program.addCommand(simulateCommand());
  program.addCommand(startCommand());
  program.addCommand(estimatesCommand());
  program.addCommand(runCommand());
  return program;
}

export async function main(argv: string[]): Promise<void> {
  await buildProgram().parseAsync(argv);
}
