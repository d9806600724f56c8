/**
 * Hadoop's example jobs (Maven Central's `org.apache.hadoop:hadoop-mapreduce-examples`) as the
 * real-jobs measurement runs them: each kind's main class and arguments, the input it reads, and
 * the task counts `yarn-sched-sidecar run` is told. Each example's own class reads generic -D
 * options right after the main class (ExampleDriver would read the program name first), which is
 * where `run` puts the ticket's options for a `java ... MAIN args` client.
 */

export const KIND_NAMES = ['wordcount', 'grep', 'terasort', 'pi', 'teragen', 'randomtextwriter'] as const;
export type KindName = (typeof KIND_NAMES)[number];

/** Sizes of the inputs and of the generators' outputs; small by default (a 2-core machine). */
export interface RealJobSizes {
  /** Text for wordcount and grep, written by RandomTextWriter: bytes in all, and files. */
  textBytes: number;
  textFiles: number;
  /** TeraGen rows (100 bytes each) for terasort's input, and its maps (= files). */
  teraRows: number;
  teraFiles: number;
  /** pi: maps and samples per map. */
  piMaps: number;
  piSamples: number;
  /** The teragen kind: rows written and maps. */
  teragenRows: number;
  teragenMaps: number;
  /** The randomtextwriter kind: bytes written and maps. */
  genBytes: number;
  genMaps: number;
}

const MiB = 1024 * 1024;

export const DEFAULT_SIZES: RealJobSizes = {
  textBytes: 32 * MiB,
  textFiles: 2,
  teraRows: 200_000,
  teraFiles: 2,
  piMaps: 2,
  piSamples: 10_000,
  teragenRows: 200_000,
  teragenMaps: 2,
  genBytes: 16 * MiB,
  genMaps: 2,
};

/** The HDFS folders the measurement writes under. */
export const ROOT = '/real-jobs';
export const TEXT_INPUT = `${ROOT}/input/text`;
export const TERA_INPUT = `${ROOT}/input/tera`;

/** A file of an input folder as WebHDFS lists it. */
export interface InputFile {
  name: string;
  length: number;
  blockSize: number;
}

/**
 * Map tasks FileInputFormat makes of an input folder (wordcount, grep's search, terasort): one
 * split per block-sized piece of each file (the last piece up to 1.1 blocks), files whose name
 * starts with `_` or `.` skipped, as Hadoop does with the default min/max split sizes. The one
 * place the measurement derives maps; it goes once `run` derives them itself.
 */
export function mapsFor(files: readonly InputFile[]): number {
  const SPLIT_SLOP = 1.1;
  let maps = 0;
  for (const f of files) {
    if (f.name.startsWith('_') || f.name.startsWith('.')) continue;
    if (!(f.blockSize > 0)) throw new Error(`input file ${f.name}: no block size (${f.blockSize})`);
    let left = f.length;
    while (left / f.blockSize > SPLIT_SLOP) {
      maps++;
      left -= f.blockSize;
    }
    if (left > 0) maps++;
  }
  return maps;
}

/** One run's command and what `run` is told about it. */
export interface KindRun {
  mainClass: string;
  /** Arguments after the main class (generic -D options first). */
  args: string[];
  maps: number;
  reduces: number;
  /** An HDFS input folder (`run --input`), or the input bytes (`run --input-bytes`). */
  input: { path: string } | { bytes: number };
  /** Apps the client submits, one after another (grep: search, then sort). */
  apps: number;
}

export interface Kind {
  name: KindName;
  /** The input folder it reads (prepared once), or null. */
  reads: 'text' | 'tera' | null;
  /** The run writing to `output`; `inputFiles` lists the folder it reads (empty without one). */
  run(sizes: RealJobSizes, output: string, inputFiles: readonly InputFile[]): KindRun;
}

const EX = 'org.apache.hadoop.examples';

export const KINDS: Record<KindName, Kind> = {
  wordcount: {
    name: 'wordcount',
    reads: 'text',
    run: (_s, out, files) => ({
      mainClass: `${EX}.WordCount`,
      args: [TEXT_INPUT, out],
      maps: mapsFor(files),
      reduces: 1,
      input: { path: TEXT_INPUT },
      apps: 1,
    }),
  },
  grep: {
    // Two apps: the search (a map per split, 1 reduce), then the sort of its counts (1 map, 1
    // reduce). `run` is told the tasks of both.
    name: 'grep',
    reads: 'text',
    run: (_s, out, files) => ({
      mainClass: `${EX}.Grep`,
      args: [TEXT_INPUT, out, '(dis|un)[a-z]+'],
      maps: mapsFor(files) + 1,
      reduces: 2,
      input: { path: TEXT_INPUT },
      apps: 2,
    }),
  },
  terasort: {
    name: 'terasort',
    reads: 'tera',
    run: (_s, out, files) => ({
      mainClass: `${EX}.terasort.TeraSort`,
      args: [TERA_INPUT, out],
      maps: mapsFor(files),
      reduces: 1,
      input: { path: TERA_INPUT },
      apps: 1,
    }),
  },
  pi: {
    // No input: QuasiMonteCarlo writes its own small sequence files, one per map, in a folder
    // of its own (QuasiMonteCarlo_TIME_RANDOM) that it deletes; `output` is not used.
    name: 'pi',
    reads: null,
    run: (s) => ({
      mainClass: `${EX}.QuasiMonteCarlo`,
      args: [String(s.piMaps), String(s.piSamples)],
      maps: s.piMaps,
      reduces: 1,
      input: { bytes: 0 },
      apps: 1,
    }),
  },
  teragen: {
    name: 'teragen',
    reads: null,
    run: (s, out) => ({
      mainClass: `${EX}.terasort.TeraGen`,
      args: [`-Dmapreduce.job.maps=${s.teragenMaps}`, String(s.teragenRows), out],
      maps: s.teragenMaps,
      reduces: 0,
      input: { bytes: 0 },
      apps: 1,
    }),
  },
  randomtextwriter: {
    name: 'randomtextwriter',
    reads: null,
    run: (s, out) => randomTextWriter(s.genBytes, s.genMaps, out),
  },
};

/** RandomTextWriter writing text (not its default sequence files): `bytes` in `maps` files. */
export function randomTextWriter(bytes: number, maps: number, out: string): KindRun {
  return {
    mainClass: `${EX}.RandomTextWriter`,
    args: [
      `-Dmapreduce.randomtextwriter.totalbytes=${bytes}`,
      `-Dmapreduce.randomtextwriter.bytespermap=${Math.ceil(bytes / maps)}`,
      '-outFormat',
      'org.apache.hadoop.mapreduce.lib.output.TextOutputFormat',
      out,
    ],
    maps,
    reduces: 0,
    input: { bytes: 0 },
    apps: 1,
  };
}

/** TeraGen writing `rows` rows in `maps` files: terasort's input. */
export function teraGen(rows: number, maps: number, out: string): KindRun {
  return { ...KINDS.teragen.run({ ...DEFAULT_SIZES, teragenRows: rows, teragenMaps: maps }, out, []) };
}

/** A list of kind names (`wordcount,grep,pi`), each checked. */
export function parseKinds(text: string): KindName[] {
  const names = text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  if (names.length === 0) throw new Error(`no job kind in "${text}"; kinds: ${KIND_NAMES.join(', ')}`);
  for (const n of names) {
    if (!(KIND_NAMES as readonly string[]).includes(n))
      throw new Error(`unknown job kind "${n}"; kinds: ${KIND_NAMES.join(', ')}`);
  }
  return names as KindName[];
}
