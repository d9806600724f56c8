/**
 * The CLI from source, for the end-to-end tests: `node --require tsx/cjs test/e2e/support/entry.ts
 * <command> ...` runs exactly what `bin/yarn-sched-sidecar.js` runs from dist/, without a build
 * step, so the tests always exercise the current source.
 */
import { main } from '../../../src/cli/main';

main(process.argv).catch((err: unknown) => {
  process.stderr.write(`yarn-sched-sidecar: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
