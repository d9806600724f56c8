/**
 * A MapReduce job's input splits as Hadoop's FileInputFormat.getSplits makes them (new API,
 * `org.apache.hadoop.mapreduce.lib.input`, Hadoop 3.4), from the input files' lengths and block
 * sizes: one map per split. Pure arithmetic; the files come from a WebHDFS listing.
 *
 * - splitSize = max(minSize, min(maxSize, blockSize)), minSize at least 1 (the format's own
 *   minimum), maxSize unbounded unless set (`mapreduce.input.fileinputformat.split.minsize`,
 *   `.maxsize`);
 * - each file is split on its own: splits of splitSize while what remains is more than
 *   SPLIT_SLOP (1.1) times splitSize, then the rest as the last split (so a last split may be
 *   up to 1.1 x splitSize: a 129 MB file in 128 MB blocks is one split);
 * - a file of length 0 is one empty split (FileInputFormat makes one, with no hosts);
 * - a file the input format does not split (a stream-compressed file for TextInputFormat,
 *   the default) is one split of its whole length.
 */

/** FileInputFormat's SPLIT_SLOP: the last split of a file may be 10% larger than splitSize. */
export const SPLIT_SLOP = 1.1;

/** FileInputFormat's getFormatMinSplitSize(): no split is smaller than 1 byte. */
export const FORMAT_MIN_SPLIT_BYTES = 1;

export interface SplitSettings {
  /** `mapreduce.input.fileinputformat.split.minsize` (default 0, raised to 1). */
  readonly minBytes?: number;
  /** `mapreduce.input.fileinputformat.split.maxsize` (default Long.MAX_VALUE). */
  readonly maxBytes?: number;
}

export interface SplitFile {
  readonly path: string;
  readonly length: number;
  /** The file's block size (WebHDFS FileStatus `blockSize`). */
  readonly blockSize: number;
}

/**
 * Suffixes of the compression codecs Hadoop registers by default that cannot split a stream
 * (gzip, deflate, LZ4, Snappy, Zstandard); bzip2 (`.bz2`) is a SplittableCompressionCodec.
 * TextInputFormat reads such a file in one split.
 */
export const UNSPLITTABLE_SUFFIXES = ['.gz', '.deflate', '.lz4', '.snappy', '.zst'] as const;

/** Whether TextInputFormat splits the file (false for a stream-compressed one, by its suffix). */
export function isSplittable(path: string): boolean {
  return !UNSPLITTABLE_SUFFIXES.some((s) => path.endsWith(s));
}

/** FileInputFormat.computeSplitSize with the settings' defaults applied. */
export function splitSizeOf(blockSize: number, settings: SplitSettings = {}): number {
  const minSize = Math.max(FORMAT_MIN_SPLIT_BYTES, settings.minBytes ?? 0);
  const maxSize = settings.maxBytes ?? Number.POSITIVE_INFINITY;
  return Math.max(minSize, Math.min(maxSize, blockSize));
}

/**
 * How many splits of `splitSize` come before a file's last one: the least k with
 * (length - k * splitSize) / splitSize <= SPLIT_SLOP, computed in closed form and checked with
 * the comparison FileInputFormat makes (in doubles), so a file of any size costs nothing.
 */
function fullSplits(length: number, splitSize: number): number {
  const over = (k: number) => (length - k * splitSize) / splitSize > SPLIT_SLOP;
  let k = Math.max(0, Math.ceil(length / splitSize - SPLIT_SLOP));
  while (k > 0 && !over(k - 1)) k--;
  while (over(k)) k++;
  return k;
}

/** The number of splits of one file (1 for an empty or unsplittable file). */
export function fileSplitCount(length: number, splitSize: number, splittable = true): number {
  if (length === 0 || !splittable) return 1;
  const k = fullSplits(length, splitSize);
  return length - k * splitSize === 0 ? k : k + 1;
}

/** The split sizes of one file, in order. */
export function fileSplits(length: number, splitSize: number, splittable = true): number[] {
  if (length === 0 || !splittable) return [length];
  const k = fullSplits(length, splitSize);
  const rest = length - k * splitSize;
  const out = new Array<number>(k).fill(splitSize);
  if (rest !== 0) out.push(rest);
  return out;
}

/** A file the splits cannot be computed for, and why. */
export interface SplitProblem {
  readonly path: string;
  readonly message: string;
}

export type InputSplits =
  | {
      readonly ok: true;
      /** One entry per map, in the files' order: each split's bytes. */
      readonly splits: number[];
      /** Per file: its split size and how many splits it gave. */
      readonly files: { path: string; splitSize: number; splits: number }[];
    }
  | { readonly ok: false; readonly problems: SplitProblem[] }
  | { readonly ok: false; readonly tooMany: number };

/**
 * The splits of a job's input files (already listed as FileInputFormat lists them), or why they
 * cannot be made: a file with no valid block size or length, or more than `maxSplits` splits in
 * all (counted before any list is built).
 */
export function inputSplits(
  files: readonly SplitFile[],
  settings: SplitSettings = {},
  maxSplits = Number.POSITIVE_INFINITY,
): InputSplits {
  const problems: SplitProblem[] = [];
  const perFile: { path: string; splitSize: number; splits: number; splittable: boolean }[] = [];
  let total = 0;
  for (const f of files) {
    if (!Number.isSafeInteger(f.length) || f.length < 0) {
      problems.push({ path: f.path, message: `has no valid length (${f.length})` });
      continue;
    }
    if (f.length > 0 && !(Number.isSafeInteger(f.blockSize) && f.blockSize > 0)) {
      problems.push({ path: f.path, message: `has no valid block size (${f.blockSize})` });
      continue;
    }
    const splitSize = splitSizeOf(f.blockSize, settings);
    const splittable = isSplittable(f.path);
    const n = fileSplitCount(f.length, splitSize, splittable);
    total += n;
    perFile.push({ path: f.path, splitSize, splits: n, splittable });
  }
  if (problems.length > 0) return { ok: false, problems };
  if (total > maxSplits) return { ok: false, tooMany: total };
  const splits: number[] = [];
  files.forEach((f, i) => {
    for (const s of fileSplits(f.length, perFile[i]!.splitSize, perFile[i]!.splittable)) splits.push(s);
  });
  return {
    ok: true,
    splits,
    files: perFile.map(({ path, splitSize, splits: n }) => ({ path, splitSize, splits: n })),
  };
}
