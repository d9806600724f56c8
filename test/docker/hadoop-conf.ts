import { XMLParser, XMLValidator } from 'fast-xml-parser';

/**
 * Reading Hadoop's `<configuration><property><name/><value/></property>...` files, and the
 * checks the Capacity Scheduler makes at start that matter to the sidecar: every parent queue's
 * children add up to 100 % of it, in the default partition and in each labelled partition
 * the children can reach (CapacityScheduler.md, NodeLabel.md).
 */

export type HadoopConf = ReadonlyMap<string, string>;

/** Parse one Hadoop configuration file; throws on malformed XML or a property named twice. */
export function parseHadoopConf(xml: string, file = '(xml)'): HadoopConf {
  const valid = XMLValidator.validate(xml);
  if (valid !== true) {
    throw new Error(`${file}: not well-formed XML: ${valid.err.msg} (line ${valid.err.line})`);
  }
  const parser = new XMLParser({
    ignoreAttributes: true,
    // Values are kept verbatim: a single space is meaningful (accessible-node-labels " ").
    trimValues: false,
    parseTagValue: false,
    isArray: (name) => name === 'property',
  });
  const doc = parser.parse(xml) as Record<string, unknown>;
  if (!('configuration' in doc)) throw new Error(`${file}: no <configuration> root`);
  // An empty <configuration/> parses to '' rather than an object.
  const root = doc['configuration'];
  const properties =
    typeof root === 'object' && root !== null
      ? ((root as { property?: Array<{ name?: unknown; value?: unknown }> }).property ?? [])
      : [];
  const conf = new Map<string, string>();
  for (const p of properties) {
    if (typeof p.name !== 'string' || p.name.trim() === '')
      throw new Error(`${file}: a property without a name`);
    const name = p.name.trim();
    if (conf.has(name)) throw new Error(`${file}: property ${name} is defined twice`);
    conf.set(name, p.value === undefined ? '' : String(p.value));
  }
  return conf;
}

const CS = 'yarn.scheduler.capacity.';

/** Child queue paths of `path` (e.g. `root` -> `root.realtime`, ...). */
export function childQueues(conf: HadoopConf, path: string): string[] {
  const raw = conf.get(`${CS}${path}.queues`);
  if (raw === undefined) return [];
  return raw
    .split(',')
    .map((q) => q.trim())
    .filter((q) => q.length > 0)
    .map((q) => `${path}.${q}`);
}

/** Every queue path under root, root included, parents before children. */
export function allQueues(conf: HadoopConf): string[] {
  const out: string[] = [];
  const visit = (path: string): void => {
    out.push(path);
    for (const c of childQueues(conf, path)) visit(c);
  };
  visit('root');
  return out;
}

/**
 * Labels a queue can reach: its own `accessible-node-labels`, else its parent's (inherited);
 * root with nothing set reaches every label (`*`); a single space means none (NodeLabel.md).
 */
export function accessibleLabels(conf: HadoopConf, path: string): string[] {
  const raw = conf.get(`${CS}${path}.accessible-node-labels`);
  if (raw === undefined) {
    const at = path.lastIndexOf('.');
    return at < 0 ? ['*'] : accessibleLabels(conf, path.slice(0, at));
  }
  return raw
    .split(',')
    .map((l) => l.trim())
    .filter((l) => l.length > 0);
}

export function reaches(conf: HadoopConf, path: string, label: string): boolean {
  const labels = accessibleLabels(conf, path);
  return labels.includes('*') || labels.includes(label);
}

/** A queue's capacity in percent, in the default partition (label '') or a labelled one. */
export function capacityOf(conf: HadoopConf, path: string, label = ''): number {
  const key =
    label === '' ? `${CS}${path}.capacity` : `${CS}${path}.accessible-node-labels.${label}.capacity`;
  const raw = conf.get(key);
  if (raw === undefined) return 0;
  const n = Number(raw.trim());
  if (!Number.isFinite(n)) throw new Error(`${key}: not a number: '${raw}'`);
  return n;
}

/** Every parent whose children do not add up to 100 %, per partition; empty when all is well. */
export function capacityProblems(conf: HadoopConf, labels: readonly string[]): string[] {
  const problems: string[] = [];
  for (const parent of allQueues(conf)) {
    const children = childQueues(conf, parent);
    if (children.length === 0) continue;
    for (const label of ['', ...labels]) {
      const reaching = label === '' ? children : children.filter((c) => reaches(conf, c, label));
      if (reaching.length === 0) continue;
      const sum = reaching.reduce((s, c) => s + capacityOf(conf, c, label), 0);
      if (Math.abs(sum - 100) > 1e-9) {
        const partition = label === '' ? 'default partition' : `partition ${label}`;
        problems.push(`${parent}: children's capacities in the ${partition} add up to ${sum}, not 100`);
      }
    }
  }
  return problems;
}
