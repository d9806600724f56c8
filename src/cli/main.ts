import { Command, CommanderError, InvalidArgumentError } from 'commander';
import { EXIT, exitCodeOf } from './exit-codes';
import { addHelp } from './help';

/* eslint-disable @typescript-eslint/no-require-imports -- each command's module is loaded when it is named */
/**
 * Every sub-command, in the order of the help, each built from its own file under src/cli/ and
 * loaded only when needed: the sidecar's and the emulator's modules (express, SQLite, the core)
 * take about half a second to load, which `run` would add to every job it starts.
 */
const COMMANDS: ReadonlyArray<readonly [string, () => Command]> = [
  ['probe', () => (require('./probe') as typeof import('./probe')).probeCommand()],
  ['demo', () => (require('./demo') as typeof import('./demo')).demoCommand()],
  ['emulator', () => (require('./emulator') as typeof import('./emulator')).emulatorCommand()],
  ['simulate', () => (require('./simulate') as typeof import('./simulate')).simulateCommand()],
  ['replay', () => (require('./replay') as typeof import('./replay')).replayCommand()],
  ['start', () => (require('./start') as typeof import('./start')).startCommand()],
  ['estimates', () => (require('./estimates') as typeof import('./estimates')).estimatesCommand()],
  ['run', () => (require('./run') as typeof import('./run')).runCommand()],
];
/* eslint-enable @typescript-eslint/no-require-imports */

/**
 * The sub-command a command line runs (its first word after the program), when it is one of
 * ours; undefined otherwise (no command, --help, --version, `help`, a mistyped name).
 */
export function commandNamed(argv: readonly string[]): string | undefined {
  const first = argv[2];
  return COMMANDS.some(([name]) => name === first) ? first : undefined;
}

/**
 * The `yarn-sched-sidecar` command: with `only`, that sub-command alone (its module is the only
 * one loaded), else every one.
 */
export function buildProgram(only?: string): Command {
  const program = new Command('yarn-sched-sidecar')
    .description('Deadline admission and energy-aware placement for Hadoop YARN, beside the ResourceManager')
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- package.json sits outside rootDir
    .version(require('../../package.json').version as string);
  for (const [name, make] of COMMANDS) if (only === undefined || only === name) program.addCommand(make());
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
    await buildProgram(commandNamed(argv)).parseAsync(argv);
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
