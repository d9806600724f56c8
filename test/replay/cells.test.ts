import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { progress } from '../../src/cli/replay';
import { FileCells, LineReader, MemoryCells, type PolicyCell } from '../../src/replay/cells';

/** The per-policy cells of the replay: spilled to a file per policy and read back in step. */

const cell = (i: number, label: string): PolicyCell =>
  i % 3 === 0
    ? {
        decision: 'rejected',
        estimateSeconds: null,
        finishSeconds: null,
        met: null,
        earliestDeadlineSeconds: 100 + i,
        reason: `cpu lane: new-job-misses: job_${i} late by ${i}.5 s, "quoted", ${label}`,
      }
    : {
        decision: 'admitted',
        estimateSeconds: i + 0.25,
        finishSeconds: i * 1.5,
        met: i % 2 === 0,
        earliestDeadlineSeconds: null,
        reason: null,
      };

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'yss-cells-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('FileCells', () => {
  it('gives back each job’s cell of every policy, in order, as MemoryCells does', () => {
    const n = 5000; // several write chunks and read chunks
    const files = new FileCells(join(dir, 'cells'));
    const memory = new MemoryCells();
    for (const label of ['as-ran', 'rtmr', 'dc']) {
      const cells = Array.from({ length: n }, (_, i) => cell(i, label));
      files.put(label, cells);
      memory.put(label, cells);
    }
    const fromFiles = [...files.rows(['rtmr', 'as-ran', 'dc'])];
    expect(fromFiles).toHaveLength(n);
    expect(fromFiles[3]).toEqual([cell(3, 'rtmr'), cell(3, 'as-ran'), cell(3, 'dc')]);
    expect(fromFiles[4]![0]).toEqual({
      decision: 'admitted',
      estimateSeconds: 4.25,
      finishSeconds: 6,
      met: true,
      earliestDeadlineSeconds: null,
      reason: null,
    });
    expect(fromFiles).toEqual([...memory.rows(['rtmr', 'as-ran', 'dc'])]);
    // A label never put has no cell.
    expect([...files.rows(['rtmr', 'edf-all'])][0]).toEqual([cell(0, 'rtmr'), undefined]);
    expect(readdirSync(join(dir, 'cells')).sort()).toEqual(['0.cells', '1.cells', '2.cells']);
    files.close();
    expect(existsSync(join(dir, 'cells'))).toBe(false);
  });

  it('names the file of a line that is not a cell', () => {
    const files = new FileCells(join(dir, 'cells'));
    files.put('rtmr', [cell(1, 'rtmr')]);
    writeFileSync(join(dir, 'cells', '0.cells'), '{"not":"a cell"}\n');
    expect(() => [...files.rows(['rtmr'])]).toThrow(/0\.cells: not a policy cell: \{"not":"a cell"\}/);
  });
});

describe('LineReader', () => {
  it('reads lines across chunk ends (a character cut by one too), and a last line without its newline', () => {
    const path = join(dir, 'lines');
    // Two-byte characters only after the first: some fall across a 64 KiB chunk's end.
    const lines = Array.from({ length: 3000 }, (_, i) => `${i} ${'é'.repeat(i % 97)}`);
    writeFileSync(path, lines.join('\n'));
    const r = new LineReader(path);
    const got: string[] = [];
    for (let l = r.line(); l !== null; l = r.line()) got.push(l);
    r.close();
    expect(got).toEqual(lines);
  });
});

describe('the progress display', () => {
  it('draws a bar with the jobs done, the time since the start and the memory on a terminal', () => {
    const out: string[] = [];
    let t = 1000;
    const show = progress(
      { isTTY: true, write: (s: string) => out.push(s) > 0 },
      () => t,
      () => 412.4,
    );
    show('reading', 0, 100);
    t += 50;
    show('reading', 10, 100); // within 100 ms of the last: not drawn
    t += 75_000;
    show('reading', 50, 100);
    show('rtmr', 100, 100);
    expect(out).toEqual([
      '\rreading            [..............................] 0/100 jobs  0s  412 MB ',
      '\rreading            [###############...............] 50/100 jobs  1m15s  412 MB ',
      '\n',
      '\rrtmr               [##############################] 100/100 jobs  1m15s  412 MB ',
    ]);
  });

  it('writes a line per phase and quarter elsewhere', () => {
    const out: string[] = [];
    const show = progress({ isTTY: false, write: (s: string) => out.push(s) > 0 });
    for (const d of [0, 10, 30, 60, 99, 100]) show('learning', d, 100);
    expect(out.join('')).toBe('learning: 0%\nlearning: 25%\nlearning: 50%\nlearning: 75%\nlearning: 100%\n');
  });
});
