import type { Logger } from '../../log';
import type { Engine } from '../../sim/engine';
import type { InputFile } from './types';

/** `/a//b/` -> `/a/b`: the form input files are kept and looked up in. */
function normalisePath(path: string): string {
  return `/${path.split('/').filter(Boolean).join('/')}`;
}

/** The files of the emulated HDFS that simulated jobs read, their blocks placed on the engine's nodes. */
export class InputFiles {
  /** By lower-cased path (tags arrive lower-cased). */
  private readonly files = new Map<string, InputFile>();

  constructor(
    private readonly engine: Engine,
    private readonly log: Logger,
  ) {}

  /**
   * Places a file's blocks in the simulated cluster (block i on `blocks[i].nodes`, by node
   * index), so a job that reads the file runs its maps where HDFS keeps the data. Each block
   * is the engine block `${path}#${i}`; the engine refuses one placed before.
   */
  place(path: string, blocks: ReadonlyArray<{ bytes: number; nodes: readonly number[] }>): InputFile {
    const p = normalisePath(path);
    const key = p.toLowerCase();
    if (this.files.has(key)) throw new RangeError(`HDFS file ${p} is already placed`);
    const placed = blocks.map((b, i) => {
      const id = `${p}#${i}`;
      this.engine.placeBlock(id, b.nodes);
      return { id, bytes: b.bytes };
    });
    const file: InputFile = { path: p, blocks: placed };
    this.files.set(key, file);
    return file;
  }

  /** The files a path names: the file itself, or every file under a directory; in path order. */
  under(path: string): InputFile[] {
    const p = normalisePath(path).toLowerCase();
    const prefix = p === '/' ? '/' : `${p}/`;
    return [...this.files.entries()]
      .filter(([key]) => key === p || key.startsWith(prefix))
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([, f]) => f);
  }

  /**
   * The blocks and bytes of the files an app's input tags name, or undefined when none names
   * a placed file with data (the app then runs on blocks of its own, as without the tags).
   */
  resolve(
    appId: string,
    paths: readonly string[],
  ): { blocks: InputFile['blocks']; bytes: number } | undefined {
    const blocks: Array<InputFile['blocks'][number]> = [];
    const seen = new Set<string>();
    for (const path of paths) {
      const files = this.under(path);
      if (files.length === 0) this.log.debug('input path is not an emulated HDFS file', { app: appId, path });
      for (const f of files) {
        if (seen.has(f.path)) continue;
        seen.add(f.path);
        blocks.push(...f.blocks);
      }
    }
    if (blocks.length === 0) return undefined;
    return { blocks, bytes: blocks.reduce((a, b) => a + b.bytes, 0) };
  }
}
