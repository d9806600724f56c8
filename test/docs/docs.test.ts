import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { SidecarMetrics } from '../../src/metrics';
import { buildProgram } from '../../src/cli/main';
import { defaultRegistry } from '../../src/core/registry';

/**
 * The README and docs/ against the code: links and repository paths resolve, and the names an
 * operator types or scrapes (commands, flags, policies, metrics) are the ones the code has.
 * docs/configuration.md's keys are checked against the schema in test/config.
 */
const root = join(__dirname, '..', '..');
const docFiles = ['README.md', ...readdirSync(join(root, 'docs')).map((f) => join('docs', f))].filter((f) =>
  f.endsWith('.md'),
);
const read = (file: string) => readFileSync(join(root, file), 'utf8');

/** GitHub's heading anchor: lower case, punctuation dropped, spaces to hyphens. */
function anchor(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\w\- ]/g, '')
    .replace(/ /g, '-');
}

describe('docs', () => {
  it('anchor() follows the GitHub rule on a heading with punctuation', () => {
    expect(anchor('3. What was verified here, and what to check on first run')).toBe(
      '3-what-was-verified-here-and-what-to-check-on-first-run',
    );
  });

  it.each(docFiles)('%s: every relative link resolves, anchors included', (file) => {
    const broken: string[] = [];
    for (const m of read(file).matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = m[1]!;
      if (/^[a-z]+:/.test(target)) continue;
      const [path, hash] = target.split('#') as [string, string | undefined];
      const resolved = path === '' ? file : normalize(join(dirname(file), path));
      if (!existsSync(join(root, resolved))) {
        broken.push(target);
        continue;
      }
      if (hash !== undefined && resolved.endsWith('.md')) {
        const headings = [...read(resolved).matchAll(/^#+\s+(.*)$/gm)].map((h) => anchor(h[1]!));
        if (!headings.includes(hash)) broken.push(target);
      }
    }
    expect(broken).toEqual([]);
  });

  it.each(docFiles)('%s: every repository path it names exists', (file) => {
    const missing = [
      ...read(file).matchAll(
        /(?<![\w/.:-])((?:src|test|docs|docker|config|examples|bench|bin|\.ci)\/[\w./-]*)/g,
      ),
    ]
      .map((m) => m[1]!.replace(/[.,]+$/, ''))
      .filter((p) => !existsSync(join(root, p)));
    expect(missing).toEqual([]);
  });

  it('the README lists every sub-command, and the commands it shows exist', () => {
    const readme = read('README.md');
    const names = buildProgram().commands.map((c) => c.name());
    for (const n of names) expect(readme).toContain(`\`yarn-sched-sidecar ${n}`);
    const shown = [...readme.matchAll(/`yarn-sched-sidecar ([a-z-]+)/g)].map((m) => m[1]!);
    expect(shown.filter((n) => !names.includes(n))).toEqual([]);
  });

  it.each([
    ['emulator', 'docs/emulator.md'],
    ['simulate', 'docs/simulator.md'],
  ])('every flag of `%s` is in %s', (command, file) => {
    const doc = read(file);
    const cmd = buildProgram().commands.find((c) => c.name() === command)!;
    const flags = cmd.options.map((o) => o.long!);
    expect(flags.length).toBeGreaterThan(5);
    expect(flags.filter((f) => !doc.includes(f))).toEqual([]);
  });

  it('the admission and placement docs name every registered policy', () => {
    const registry = defaultRegistry();
    const admission = read('docs/admission.md');
    const configuration = read('docs/configuration.md');
    for (const n of registry.names('admission')) {
      expect(admission).toContain(`| \`${n}\``);
      expect(configuration).toContain(`\`${n}\``);
    }
    const placement = read('docs/placement.md');
    for (const n of registry.names('placement')) expect(placement).toMatch(new RegExp(`\\| [^|]*\`${n}\``));
  });

  it("docs/deploy.md names every one of the sidecar's own metrics", async () => {
    const deploy = read('docs/deploy.md');
    const names = (await new SidecarMetrics().registry.getMetricsAsJSON()).map((m) => m.name);
    expect(names.length).toBeGreaterThanOrEqual(12);
    expect(names.filter((n) => !deploy.includes(`\`${n}`))).toEqual([]);
  });

  it('docs/deploy.md gives each of its own metrics with its exact label names', () => {
    const deploy = read('docs/deploy.md');
    const registry = new SidecarMetrics().registry;
    const written = registry.getMetricsAsArray().map((m) => {
      const labels = (m as unknown as { labelNames?: readonly string[] }).labelNames ?? [];
      return `\`${m.name}${labels.length > 0 ? `{${labels.join(',')}}` : ''}\``;
    });
    expect(written).toContain('`yss_task_unit_cost_seconds{stage,class,unit}`');
    expect(written.filter((w) => !deploy.includes(w))).toEqual([]);
  });
});
