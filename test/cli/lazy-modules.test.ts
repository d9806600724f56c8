import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

/**
 * The CLI loads every command's module to build its program, so whatever those modules import
 * at their top is in the memory of a sidecar started with `start`. The plotting stack (Vega,
 * Vega-Lite, resvg: about 20 MB resident) is only for `simulate` and the benches' pictures: it
 * is loaded at the first plot (src/sim/plot/render.ts). Checked in a process of its own, from
 * the sources, by the packages in its module cache.
 */
const root = join(__dirname, '..', '..');
const PLOTTING = ['vega', 'vega-lite', '@resvg/resvg-js'];

/** The packages loaded after running `script` (CommonJS, from the project root), and what it printed. */
function packagesAfter(script: string): { packages: string[]; out: string } {
  const probe = `${script}
    .then(() => {
      const names = new Set();
      for (const file of Object.keys(require.cache)) {
        const i = file.lastIndexOf('/node_modules/');
        if (i < 0) continue;
        const parts = file.slice(i + '/node_modules/'.length).split('/');
        names.add(parts[0].startsWith('@') ? parts[0] + '/' + parts[1] : parts[0]);
      }
      process.stdout.write('\\n' + JSON.stringify([...names].sort()));
    })
    .catch((err) => { console.error(err); process.exit(1); });`;
  const run = spawnSync(process.execPath, ['--require', 'tsx/cjs', '-e', probe], {
    cwd: root,
    encoding: 'utf8',
    timeout: 60_000,
  });
  if (run.status !== 0) throw new Error(`probe exited ${run.status}: ${run.stderr}`);
  const lines = run.stdout.trimEnd().split('\n');
  return { packages: JSON.parse(lines.at(-1) ?? '[]') as string[], out: lines.slice(0, -1).join('\n') };
}

describe('the CLI loads only the command it runs', () => {
  it('commandNamed: the first word when it is a command, else none (every command is built)', () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- the module under test, loaded here
    const { commandNamed } = require('../../src/cli/main') as typeof import('../../src/cli/main');
    expect(commandNamed(['node', 'yss', 'run', '--deadline', '1h'])).toBe('run');
    expect(commandNamed(['node', 'yss', 'start'])).toBe('start');
    expect(commandNamed(['node', 'yss', '--help'])).toBeUndefined();
    expect(commandNamed(['node', 'yss', 'help', 'run'])).toBeUndefined();
    expect(commandNamed(['node', 'yss', 'rnu'])).toBeUndefined();
    expect(commandNamed(['node', 'yss'])).toBeUndefined();
  });

  it('`run` loads neither the sidecar nor its RM client (express, SQLite, axios, winston, zod)', () => {
    const { packages, out } = packagesAfter(
      `Promise.resolve().then(() => {
        const program = require('./src/cli/main').buildProgram('run');
        process.stdout.write(program.commands.map((c) => c.name()).join(','));
      })`,
    );
    expect(out).toBe('run');
    expect(packages).toContain('commander');
    expect(
      packages.filter((p) => ['express', 'better-sqlite3', 'axios', 'winston', 'zod'].includes(p)),
    ).toEqual([]);
  });

  it("`run` asks the sidecar without loading undici, the HTTP client of Node's fetch", () => {
    // A sidecar on loopback that rejects the job: run's one request, then its exit code (75).
    const { out } = packagesAfter(
      `new Promise((resolve) => {
        const server = require('node:http').createServer((req, res) => {
          req.resume();
          req.on('end', () => res.end(JSON.stringify({ id: 'dl-1', decision: 'rejected', reason: { message: 'late' } })));
        });
        server.listen(0, '127.0.0.1', () => resolve(server));
      }).then(async (server) => {
        const { runWithTicket } = require('./src/cli/run');
        const options = { sidecar: 'http://127.0.0.1:' + server.address().port, token: 't', deadline: 60, maps: 1, reduces: 0 };
        const code = await runWithTicket(options, ['true'], { err: () => {} });
        server.close();
        const undici = process.moduleLoadList.filter((m) => m.includes('undici'));
        process.stdout.write('exit ' + code + ', undici: ' + JSON.stringify(undici));
      })`,
    );
    expect(out).toBe('exit 75, undici: []');
  });

  it("the start command's help still lists the configuration's environment variables", () => {
    const { out } = packagesAfter(
      `Promise.resolve().then(() => {
        const start = require('./src/cli/main').buildProgram('start').commands[0];
        let help = '';
        start.configureOutput({ writeOut: (s) => (help += s) });
        start.outputHelp();
        process.stdout.write(help.includes('YSS_SHADOW') ? 'lists YSS_SHADOW' : help);
      })`,
    );
    expect(out).toBe('lists YSS_SHADOW');
  });
});

describe('the CLI loads the plotting stack only to draw', () => {
  it('building the program (every command, start among them) loads none of Vega, Vega-Lite or resvg', () => {
    const { packages } = packagesAfter(
      `Promise.resolve().then(() => require('./src/cli/main').buildProgram())`,
    );
    // The program's own packages are there: the probe sees what the CLI loads.
    expect(packages).toEqual(expect.arrayContaining(['commander', 'express', 'better-sqlite3']));
    expect(packages.filter((p) => PLOTTING.includes(p))).toEqual([]);
  });

  it('the first plot loads them and draws', () => {
    const { packages, out } = packagesAfter(
      `Promise.resolve().then(() => require('./src/sim/plot/render').renderSvg({
        data: { values: [{ x: 1, y: 2 }, { x: 2, y: 3 }] },
        mark: 'line',
        encoding: { x: { field: 'x', type: 'quantitative' }, y: { field: 'y', type: 'quantitative' } },
      })).then((svg) => process.stdout.write(svg.slice(0, 4)))`,
    );
    expect(out).toBe('<svg');
    expect(packages).toEqual(expect.arrayContaining(['vega', 'vega-lite']));
  });
});
