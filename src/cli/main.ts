import { Command, CommanderError, InvalidArgumentError } from 'commander';
import { demoCommand } from './demo';
import { emulatorCommand } from './emulator';
import { estimatesCommand } from './estimates';
import { EXIT, exitCodeOf } from './exit-codes';
import { addHelp } from './help';
import { probeCommand } from './probe';
import { replayCommand } from './replay';
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
  program.addCommand(replayCommand());
  program.addCommand(startCommand());
  program.addCommand(estimatesCommand());
  program.addCommand(runCommand());
  addHelp(program);
  throwInsteadOfExit(program);
  return program;
}

/** Commander's own errors (bad options) are thrown to `main`, which gives them the usage code. */
function throwInsteadOfExit(cmd: Command): void {
  cmd.exitOverride();
  for (const sub of cmd.commands) throwInsteadOfExit(sub);
}

/**
 * Runs the command line and sets `process.exitCode` by docs/cli.md's table; never rejects. A
 * command that keeps running (start, demo, emulator) has returned once it listens.
 */
export async function main(argv: string[]): Promise<void> {
  try {
    await buildProgram().parseAsync(argv);
  } catch (err) {
    process.exitCode = exitCodeOf(err);
    // Commander has printed its own parse errors and the help; what an action threw is not printed yet.
    if (err instanceof CommanderError && !(err instanceof InvalidArgumentError)) return;
    const message = err instanceof Error ? err.message : String(err);
    const what = process.exitCode === EXIT.internal ? 'unexpected error: ' : 'error: ';
    process.stderr.write(`yarn-sched-sidecar: ${what}${message}\n`);
    if (process.exitCode === EXIT.internal && err instanceof Error && err.stack)
      process.stderr.write(`${err.stack}\n`);
  }
}
