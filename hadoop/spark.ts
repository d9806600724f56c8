/**
 * A real Spark for tests and trials beside the real Hadoop of hadoop/launch.ts: builds
 * hadoop/spark/ with Maven (once per Spark version and source change), which fetches Spark's jars
 * (spark-core and spark-yarn, Scala 2.12) from Maven Central into `jars/` and builds the
 * project's own Spark programs (yss.spark.Pi, yss.spark.WordCount; Spark's examples jar is not on
 * Maven Central). The folder is laid out as a Spark distribution's SPARK_HOME: `jars/`,
 * `conf/spark-defaults.conf` (spark.yarn.jars pointing at `jars/` as local files, which the
 * NodeManagers of this machine read), and the programs' jar. `hadoop/spark-submit` runs Spark's
 * SparkSubmit from it; see docs/real-hadoop.md.
 *
 *   const spark = await ensureSpark();
 *   spawn(SPARK_SUBMIT, ['--master', 'yarn', '--deploy-mode', 'cluster', '--class', 'yss.spark.Pi',
 *     spark.appsJar, '2'], { env: { ...process.env, SPARK_HOME: spark.home, HADOOP_CONF_DIR: conf } });
 *
 * `tsx hadoop/spark.ts home` builds if needed and prints the SPARK_HOME (the script calls it).
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { HadoopLauncherError, checkTools } from './launch';

export const DEFAULT_SPARK_VERSION = '3.5.6';
/** Picks the Spark release when no option names one. */
export const SPARK_VERSION_ENV = 'YSS_SPARK_VERSION';

const SPARK_DIR = path.join(__dirname, 'spark');
const TARGET_DIR = path.join(SPARK_DIR, 'target');
/** Spark's own spark-submit, for this project's builds: `SPARK_HOME=... HADOOP_CONF_DIR=... spark-submit ...`. */
export const SPARK_SUBMIT = path.join(__dirname, 'spark-submit');

export interface SparkBuild {
  version: string;
  /** A SPARK_HOME: jars/, conf/spark-defaults.conf and the programs' jar. */
  home: string;
  jars: string;
  /** yss.spark.Pi [slices [points [ms each slice sleeps]]], yss.spark.WordCount IN OUT [partitions]. */
  appsJar: string;
}

function filesUnder(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? filesUnder(path.join(dir, e.name)) : [path.join(dir, e.name)]))
    .sort();
}

/** Changes when the pom, a program's source or the Spark version does. */
function sourceStamp(version: string): string {
  const hash = createHash('sha256').update(`spark.version=${version}\n`);
  for (const file of [path.join(SPARK_DIR, 'pom.xml'), ...filesUnder(path.join(SPARK_DIR, 'src'))]) {
    hash.update(`${path.relative(SPARK_DIR, file)}\n`).update(fs.readFileSync(file));
  }
  return hash.digest('hex').slice(0, 12);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** One build at a time per version, across processes. */
async function withBuildLock<T>(version: string, fn: () => Promise<T>): Promise<T> {
  const lock = path.join(TARGET_DIR, `${version}.lock`);
  fs.mkdirSync(TARGET_DIR, { recursive: true });
  for (;;) {
    try {
      fs.mkdirSync(lock);
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      // A lock older than 20 minutes was left by a killed build.
      if (Date.now() - fs.statSync(lock).mtimeMs > 20 * 60_000)
        fs.rmSync(lock, { recursive: true, force: true });
      await sleep(1000);
    }
  }
  try {
    return await fn();
  } finally {
    fs.rmSync(lock, { recursive: true, force: true });
  }
}

/** Whether a running process names this folder on its command line (Linux' /proc; else: assume so). */
function inUse(dir: string): boolean {
  let pids: string[];
  try {
    pids = fs.readdirSync('/proc').filter((p) => /^\d+$/.test(p));
  } catch {
    return true;
  }
  return pids.some((pid) => {
    try {
      return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(`${dir}/`);
    } catch {
      return false;
    }
  });
}

/** Older builds of a version, once no process (a driver, an executor) runs from them. */
function removeOldBuilds(version: string, keep: string): void {
  const old = new RegExp(`^${version.replace(/[.]/g, '\\.')}-[0-9a-f]{12}$`);
  for (const name of fs.readdirSync(TARGET_DIR)) {
    const dir = path.join(TARGET_DIR, name);
    if (dir !== keep && old.test(name) && !inUse(dir)) fs.rmSync(dir, { recursive: true, force: true });
  }
}

function buildOf(version: string, home: string): SparkBuild {
  return {
    version,
    home,
    jars: path.join(home, 'jars'),
    appsJar: path.join(home, 'yss-spark-apps.jar'),
  };
}

/**
 * What a build's spark-defaults.conf holds: Spark's jars as local files for the containers (no
 * upload to HDFS per app), and the UI on a free port (several drivers may run on one machine).
 */
export function sparkDefaults(jars: string): string {
  return [
    '# Written by hadoop/spark.ts for this build.',
    `spark.yarn.jars local:${jars}/*`,
    'spark.ui.port 0',
    '',
  ].join('\n');
}

/**
 * Spark's jars and the programs for a Spark version, built by Maven unless a build of the same
 * sources is there: hadoop/spark/target/VERSION-HASH/ (git-ignored; Maven's downloads stay in
 * ~/.m2: about 190 MB the first time for 3.5.6).
 */
export async function ensureSpark(
  version: string = process.env[SPARK_VERSION_ENV] || DEFAULT_SPARK_VERSION,
  log: (message: string) => void = () => {},
): Promise<SparkBuild> {
  if (!/^[0-9][0-9A-Za-z.-]*$/.test(version)) {
    throw new HadoopLauncherError('BUILD_FAILED', `not a Spark version: ${version}`);
  }
  checkTools();
  const home = path.join(TARGET_DIR, `${version}-${sourceStamp(version)}`);
  const build = buildOf(version, home);
  if (fs.existsSync(path.join(home, 'conf', 'spark-defaults.conf'))) return build;
  return withBuildLock(version, async () => {
    if (fs.existsSync(path.join(home, 'conf', 'spark-defaults.conf'))) return build;
    const cached = fs.existsSync(
      path.join(os.homedir(), '.m2', 'repository', 'org', 'apache', 'spark', 'spark-core_2.12', version),
    );
    log(
      `building Spark ${version}` +
        (cached
          ? " (jars from Maven's cache in ~/.m2)..."
          : ' (first time: downloads ~190 MB from Maven Central)...'),
    );
    const building = `${home}.building`;
    fs.rmSync(building, { recursive: true, force: true });
    const output: string[] = [];
    const code = await new Promise<number>((resolve, reject) => {
      const mvn = spawn(
        'mvn',
        ['-B', '-q', `-Dspark.version=${version}`, `-Dspark.build.directory=${building}`, 'package'],
        { cwd: SPARK_DIR, stdio: ['ignore', 'pipe', 'pipe'] },
      );
      const keep = (chunk: Buffer): void => {
        output.push(chunk.toString());
        if (output.length > 200) output.splice(0, output.length - 200);
      };
      mvn.stdout.on('data', keep);
      mvn.stderr.on('data', keep);
      mvn.on('error', reject);
      mvn.on('close', (c) => resolve(c ?? 1));
    });
    if (code !== 0 || !fs.existsSync(path.join(building, 'yss-spark-apps.jar'))) {
      throw new HadoopLauncherError(
        'BUILD_FAILED',
        `mvn package failed for Spark ${version} (exit ${code})`,
        output.join('').split('\n').slice(-40).join('\n'),
      );
    }
    // Maven's own work files are not part of a SPARK_HOME.
    for (const name of ['classes', 'generated-sources', 'maven-archiver', 'maven-status'])
      fs.rmSync(path.join(building, name), { recursive: true, force: true });
    fs.renameSync(building, home);
    fs.mkdirSync(path.join(home, 'conf'), { recursive: true });
    fs.writeFileSync(path.join(home, 'conf', 'spark-defaults.conf'), sparkDefaults(build.jars));
    removeOldBuilds(version, home);
    log(`built ${path.relative(process.cwd(), home)}`);
    return build;
  });
}

if (require.main === module) {
  const [command] = process.argv.slice(2);
  if (command !== 'home') {
    process.stderr.write(
      'usage: tsx hadoop/spark.ts home   (builds Spark if needed, prints its SPARK_HOME)\n',
    );
    process.exit(2);
  }
  ensureSpark(undefined, (m) => process.stderr.write(`${m}\n`)).then(
    (b) => process.stdout.write(`${b.home}\n`),
    (e: unknown) => {
      process.stderr.write(`spark: ${e instanceof Error ? e.message : String(e)}\n`);
      process.exit(e instanceof HadoopLauncherError && e.code === 'TOOLS_MISSING' ? 2 : 1);
    },
  );
}
