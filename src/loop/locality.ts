import { inputFiles, type InputFile, type LocatedBlock } from '../core/placement/common/locality';
import { SidecarError } from '../errors/base';
import { RmRemoteError } from '../errors/rm-remote';
import type { BlockLocation, FileStatus } from '../yarn/model';

/**
 * Reads a submission's input from WebHDFS for the partition choice: LISTSTATUS of each input
 * path (a directory's files one level down, as FileInputFormat lists them), then each file's
 * GETFILEBLOCKLOCATIONS. Bounded: one time budget for the whole read, at most `maxFiles` files
 * and `maxBlocks` blocks; past any bound, or on any WebHDFS error but a missing path, locality
 * is unavailable and the decision uses uniform dop. Never throws.
 */

/** What the reader needs of WebHDFS; WebHdfsClient satisfies it. */
export interface InputReader {
  listStatus(path: string): Promise<FileStatus[]>;
  blockLocations(path: string): Promise<BlockLocation[]>;
}

export interface LocalityLimits {
  /** The whole read, every call included. */
  timeoutMs: number;
  maxFiles: number;
  maxBlocks: number;
}

export interface InputRead {
  /** The input files with their lengths, once the listing succeeded; null otherwise. */
  files: InputFile[] | null;
  /** Every block of every file, when all were read; null otherwise. */
  blocks: LocatedBlock[] | null;
  /** Why `blocks` (and perhaps `files`) are missing; null when everything was read. */
  unavailable: string | null;
  /** Input paths WebHDFS says do not exist (404 FileNotFoundException). */
  missing: string[];
}

/** Calls in flight at once: a slow NameNode holds a few, not one per file. */
const READS_AT_ONCE = 4;

class Expired extends Error {}

function isNotFound(err: unknown): boolean {
  return err instanceof RmRemoteError && err.status === 404 && /FileNotFound/.test(err.exception);
}

function describe(err: unknown): string {
  if (err instanceof SidecarError) return `${err.code}: ${err.message}`;
  return err instanceof Error ? err.message : String(err);
}

/** Runs `fn` over `items`, `READS_AT_ONCE` at a time, stopping early once `stop()` holds. */
async function eachBounded<T>(items: readonly T[], stop: () => boolean, fn: (x: T) => Promise<void>) {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length && !stop()) await fn(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(READS_AT_ONCE, items.length) }, worker));
}

export async function readInput(
  reader: InputReader,
  paths: readonly string[],
  limits: LocalityLimits,
): Promise<InputRead> {
  let timer: NodeJS.Timeout | undefined;
  const read: Reading = {
    out: { files: null, blocks: null, unavailable: null, missing: [] },
    failure: null,
    expired: false,
    budget: new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        read.expired = true;
        reject(new Expired());
      }, limits.timeoutMs);
    }),
  };
  // The losing side of a race must not surface as an unhandled rejection.
  read.budget.catch(() => undefined);
  const { out } = read;
  try {
    if (paths.length > limits.maxFiles) {
      out.unavailable = `${paths.length} input paths, more than the ${limits.maxFiles} read at most`;
      return out;
    }
    const listings = await listPaths(reader, paths, read);
    if (settled(read)) return out;
    // Keep the submitted order: the listing finished in any order.
    const order = new Map(paths.map((p, i) => [p, i]));
    listings.sort((a, b) => order.get(a.path)! - order.get(b.path)!);
    const files = inputFiles(listings);
    out.files = files;
    if (files.length > limits.maxFiles) {
      out.unavailable = `${files.length} input files, more than the ${limits.maxFiles} read at most`;
      return out;
    }
    const blocksOf = await readBlocks(reader, files, limits.maxBlocks, read);
    if (settled(read)) return out;
    out.blocks = files.flatMap((f) => blocksOf.get(f.path) ?? []);
    return out;
  } catch (err) {
    out.unavailable =
      err instanceof Expired ? `WebHDFS did not answer within ${limits.timeoutMs} ms` : describe(err);
    return out;
  } finally {
    clearTimeout(timer);
  }
}

/** One read of a submission's input: what it found so far, and why it stops. */
interface Reading {
  out: InputRead;
  /** The first failure of a WebHDFS call other than a missing path. */
  failure: string | null;
  expired: boolean;
  /** Rejects when the time budget is spent. */
  budget: Promise<never>;
}

/** True (and `out` says why) when a stage found missing paths or failed: the read ends there. */
function settled(read: Reading): boolean {
  if (read.out.missing.length > 0) {
    read.out.missing.sort();
    return true;
  }
  if (read.failure !== null) {
    read.out.unavailable = read.failure;
    return true;
  }
  return false;
}

/** LISTSTATUS of each distinct path, a few at once, within the budget. */
async function listPaths(
  reader: InputReader,
  paths: readonly string[],
  read: Reading,
): Promise<Array<{ path: string; entries: FileStatus[] }>> {
  const listings: Array<{ path: string; entries: FileStatus[] }> = [];
  await Promise.race([
    eachBounded(
      [...new Set(paths)],
      () => read.expired || read.failure !== null,
      async (path) => {
        try {
          listings.push({ path, entries: await reader.listStatus(path) });
        } catch (err) {
          if (isNotFound(err)) read.out.missing.push(path);
          else read.failure ??= `LISTSTATUS ${path}: ${describe(err)}`;
        }
      },
    ),
    read.budget,
  ]);
  return listings;
}

/** GETFILEBLOCKLOCATIONS of each non-empty file, at most `maxBlocks` blocks in all, within the budget. */
async function readBlocks(
  reader: InputReader,
  files: readonly InputFile[],
  maxBlocks: number,
  read: Reading,
): Promise<Map<string, LocatedBlock[]>> {
  const blocksOf = new Map<string, LocatedBlock[]>();
  let blockCount = 0;
  await Promise.race([
    eachBounded(
      files.filter((f) => f.length > 0),
      () => read.expired || read.failure !== null || read.out.missing.length > 0,
      async (file) => {
        try {
          const located = await reader.blockLocations(file.path);
          blockCount += located.length;
          if (blockCount > maxBlocks) {
            read.failure ??= `more than the ${maxBlocks} blocks read at most`;
            return;
          }
          // A corrupt block has no replica a task could read locally.
          blocksOf.set(
            file.path,
            located.map((b) => ({
              length: b.length,
              hosts: b.corrupt ? [] : b.hosts,
              names: b.corrupt ? [] : b.names,
            })),
          );
        } catch (err) {
          if (isNotFound(err)) read.out.missing.push(file.path);
          else read.failure ??= `GETFILEBLOCKLOCATIONS ${file.path}: ${describe(err)}`;
        }
      },
    ),
    read.budget,
  ]);
  return blocksOf;
}
