import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildConfig, ENV_OVERRIDES, loadConfigFile } from '../../src/config/load';
import { configSchema } from '../../src/config/schema';
import { ValidationError } from '../../src/errors/validation';
import { issueLines, issuesOf } from '../validation-issues';

const root = join(__dirname, '..', '..');

describe('configuration', () => {
  it('loads the shipped default file, frozen, with the documented values', () => {
    const config = loadConfigFile(join(root, 'config', 'default.yaml'));
    expect(config.rm.addresses).toEqual(['http://127.0.0.1:8088']);
    expect(config.yarn.realtimeQueue).toBe('realtime');
    expect(config.admission.slotModel).toBe('unified');
    expect(config.enforcement.shadow).toBe(false);
    expect(Object.isFrozen(config.rm)).toBe(true);
    expect(() => {
      (config.rm as { timeoutMs: number }).timeoutMs = 1;
    }).toThrow(TypeError);
  });

  it("says in the comment above enforcement.shadow what the shipped files' value does", () => {
    /** The comment lines right above `key:` in a YAML file, joined. */
    const commentAbove = (file: string, key: string): string => {
      const lines = readFileSync(join(root, 'config', file), 'utf8').split('\n');
      const at = lines.findIndex((l) => l.trim().startsWith(`${key}:`));
      const comment: string[] = [];
      for (let i = at - 1; i >= 0 && lines[i]!.trim().startsWith('#'); i--) comment.unshift(lines[i]!.trim());
      return comment.join(' ');
    };
    const shipped = loadConfigFile(join(root, 'config', 'default.yaml'));
    expect(shipped.enforcement.shadow).toBe(false);
    expect(commentAbove('default.yaml', 'shadow')).toMatch(/^# false: the sidecar enforces/);
    const docker = loadConfigFile(join(root, 'config', 'docker.yaml'));
    expect(docker.enforcement.shadow).toBe(true);
    expect(commentAbove('docker.yaml', 'shadow')).toMatch(/^# Shadow first:/);
  });

  it('fills defaults for an empty document and equals the shipped file', () => {
    const fromFile = loadConfigFile(join(root, 'config', 'default.yaml'));
    expect(buildConfig({})).toEqual(fromFile);
  });

  it('rejects unknown keys, naming them with their path', () => {
    expect(issueLines(() => buildConfig({ rm: { adresses: ['http://x:1'] }, colour: 'red' }))).toEqual([
      'rm: unknown key(s) adresses',
      '(root): unknown key(s) colour',
    ]);
  });

  it('collects every wrong value at once', () => {
    const issues = issueLines(() =>
      buildConfig({
        rm: { addresses: ['ftp://rm:21'], timeoutMs: 5 },
        server: { port: 70000 },
        admission: { slotModel: 'slots' },
      }),
    );
    expect(issues.map((i) => i.split(':')[0])).toEqual([
      'rm.addresses.0',
      'rm.timeoutMs',
      'admission.slotModel',
      'server.port',
    ]);
  });

  it('checks fields against each other and against the known policies', () => {
    const issues = issueLines(() =>
      buildConfig(
        {
          yarn: { realtimeQueue: 'rt', besteffortQueue: 'rt' },
          loop: { pollCron: 'every minute' },
          auth: {
            protectReads: false,
            tokens: [
              { name: 'ci', token: 'aaaaaaaaaaaaaaaa' },
              { name: 'ci', token: 'aaaaaaaaaaaaaaaa' },
            ],
          },
          admission: { policy: 'rtmr-fast' },
        },
        { knownAdmissionPolicies: ['rtmr', 'dc'], knownPlacementPolicies: ['efh'] },
      ),
    );
    expect(issues).toEqual([
      'yarn.besteffortQueue: must differ from yarn.realtimeQueue',
      "loop.pollCron: not a valid cron expression: 'every minute'",
      "auth.tokens.1.name: duplicate name 'ci'",
      'auth.tokens.1.token: duplicate token',
      "admission.policy: unknown policy 'rtmr-fast'; known: rtmr, dc",
    ]);
  });

  it('applies environment overrides, typed, and names a bad one', () => {
    const config = buildConfig(
      {},
      {
        env: {
          YSS_RM_ADDRESSES: 'http://rm1:8088, http://rm2:8088',
          YSS_SHADOW: 'true',
          YSS_PORT: '9090',
          YSS_TOKENS: 'alice:0123456789abcdef0123,bob:fedcba9876543210fedc',
        },
      },
    );
    expect(config.rm.addresses).toEqual(['http://rm1:8088', 'http://rm2:8088']);
    expect(config.enforcement.shadow).toBe(true);
    expect(config.server.port).toBe(9090);
    expect(config.auth.tokens.map((t) => t.name)).toEqual(['alice', 'bob']);
    expect(
      issueLines(() => buildConfig({}, { env: { YSS_SHADOW: 'maybe', YSS_TOKENS: 'x:short' } })),
    ).toEqual([
      'enforcement.shadow: Invalid input: expected boolean, received string',
      'auth.tokens.0.token: must be at least 16 characters',
    ]);
  });

  it('selects a PostgreSQL ledger by URL, from the file or YSS_LEDGER_*, never echoing a bad URL', () => {
    expect(buildConfig({}).ledger).toEqual({
      path: './data/ledger.db',
      poolSize: 4,
      flushTimeoutMs: 5_000,
      retention: { enabled: true, archiveAfterDays: 30, batchJobs: 200, intervalSeconds: 60 },
    });
    const config = buildConfig(
      { ledger: { url: 'postgres://yss:pw-in-file@db:5432/yss' } },
      {
        env: {
          YSS_LEDGER_URL: 'postgresql://yss:pw-in-env@db2:5432/yss',
          YSS_LEDGER_POOL_SIZE: '8',
          YSS_LEDGER_FLUSH_TIMEOUT_MS: '2500',
        },
      },
    );
    expect(config.ledger).toMatchObject({
      url: 'postgresql://yss:pw-in-env@db2:5432/yss',
      poolSize: 8,
      flushTimeoutMs: 2_500,
    });
    const bad = issueLines(() =>
      buildConfig({}, { env: { YSS_LEDGER_URL: 'mysql://yss:secret-pw@db/yss', YSS_LEDGER_POOL_SIZE: '0' } }),
    );
    expect(bad).toEqual([
      'ledger.url: must be a postgres:// (or postgresql://) URL: postgres://user:password@host:port/database',
      'ledger.poolSize: Too small: expected number to be >=1',
    ]);
    expect(bad.join('\n')).not.toContain('secret-pw');
  });

  it('names the environment variable, not the file, for a bad value a variable set', () => {
    const file = join(root, 'config', 'default.yaml');
    const short = issuesOf(() =>
      loadConfigFile(file, { env: { YSS_TOKENS: 'ops:short', YSS_PORT: '8081' } }),
    );
    expect(short).toEqual([
      { path: 'auth.tokens.0.token', message: 'must be at least 16 characters', env: 'YSS_TOKENS' },
    ]);
    expect(ValidationError.describe(short)).toBe(
      'environment variable YSS_TOKENS: auth.tokens.0.token: must be at least 16 characters',
    );
    // The cross-field checks too.
    const twice = 'ops:0123456789abcdef0123,ops:fedcba9876543210fedc';
    expect(issuesOf(() => loadConfigFile(file, { env: { YSS_TOKENS: twice } }))).toEqual([
      { path: 'auth.tokens.1.name', message: "duplicate name 'ops'", env: 'YSS_TOKENS' },
    ]);
    // A key wrong in the file stays the file's while a variable sets another.
    expect(
      issuesOf(() =>
        buildConfig({ server: { port: 70000 } }, { file, env: { YSS_TOKENS: twice.slice(0, 24) } }),
      ),
    ).toEqual([{ path: 'server.port', message: expect.stringMatching(/65535/), file }]);
  });

  it('reads per-queue default deadlines, in seconds, by queue name, path or *', () => {
    const config = buildConfig({
      admission: {
        queueDefaults: {
          realtime: { deadlineSeconds: 3600 },
          'root.adhoc': { deadlineSeconds: 1.5 },
          '*': { deadlineSeconds: 86400 },
        },
      },
    });
    expect(config.admission.queueDefaults).toEqual({
      realtime: { deadlineSeconds: 3600 },
      'root.adhoc': { deadlineSeconds: 1.5 },
      '*': { deadlineSeconds: 86400 },
    });
    expect(Object.isFrozen(config.admission.queueDefaults.realtime)).toBe(true);
    expect(buildConfig({}).admission.queueDefaults).toEqual({});
  });

  it('names every bad queue default: a duration with a unit, zero, negative, too long, unknown keys', () => {
    expect(
      issueLines(() =>
        buildConfig({
          admission: {
            queueDefaults: {
              a: { deadlineSeconds: '2h' },
              b: { deadlineSeconds: 0 },
              c: { deadlineSeconds: -60 },
              d: { deadlineSeconds: 400 * 24 * 3600 },
              e: { deadline: 3600 },
              f: 3600,
            },
          },
        }),
      ),
    ).toEqual([
      'admission.queueDefaults.a.deadlineSeconds: must be a number of seconds (e.g. 7200 for two hours)',
      'admission.queueDefaults.b.deadlineSeconds: must be more than 0 seconds',
      'admission.queueDefaults.c.deadlineSeconds: must be more than 0 seconds',
      'admission.queueDefaults.d.deadlineSeconds: must be at most a year (31622400 seconds)',
      'admission.queueDefaults.e.deadlineSeconds: must be a number of seconds (e.g. 7200 for two hours)',
      'admission.queueDefaults.e: unknown key(s) deadline',
      'admission.queueDefaults.f: Invalid input: expected object, received number',
    ]);
  });

  it('takes per-queue default deadlines from YSS_QUEUE_DEFAULT_DEADLINES, replacing the file’s map', () => {
    const config = buildConfig(
      { admission: { queueDefaults: { old: { deadlineSeconds: 5 } } } },
      { env: { YSS_QUEUE_DEFAULT_DEADLINES: 'realtime:3600, root.adhoc:7200,*:86400' } },
    );
    expect(config.admission.queueDefaults).toEqual({
      realtime: { deadlineSeconds: 3600 },
      'root.adhoc': { deadlineSeconds: 7200 },
      '*': { deadlineSeconds: 86400 },
    });
    expect(
      issueLines(() => buildConfig({}, { env: { YSS_QUEUE_DEFAULT_DEADLINES: 'realtime:2h,adhoc' } })),
    ).toEqual([
      'admission.queueDefaults.realtime.deadlineSeconds: must be a number of seconds (e.g. 7200 for two hours)',
      'admission.queueDefaults.adhoc.deadlineSeconds: must be a number of seconds (e.g. 7200 for two hours)',
    ]);
  });

  it('reads the cores of a node (admission.nodeCores), per label over it, unset by default', () => {
    expect(buildConfig({}).admission.nodeCores).toBeUndefined();
    expect(buildConfig({}).admission.nodeCoresByLabel).toEqual({});
    const config = buildConfig({
      admission: { containerVcores: 2, nodeCores: 2, nodeCoresByLabel: { gpu: 8 } },
    });
    expect(config.admission).toMatchObject({ nodeCores: 2, nodeCoresByLabel: { gpu: 8 } });
  });

  it('names every bad node cores value: not a whole number, out of range, below a container, the empty label', () => {
    const lines = (admission: Record<string, unknown>) => issueLines(() => buildConfig({ admission }));
    expect(lines({ nodeCores: 0 })).toEqual(['admission.nodeCores: Too small: expected number to be >=1']);
    expect(lines({ nodeCores: 2.5 })).toEqual([
      'admission.nodeCores: Invalid input: expected int, received number',
    ]);
    expect(lines({ nodeCores: 2000 })).toEqual([
      'admission.nodeCores: Too big: expected number to be <=1024',
    ]);
    expect(lines({ nodeCores: 1, containerVcores: 2, nodeCoresByLabel: { gpu: 1, big: 4 } })).toEqual([
      'admission.nodeCores: 1 is below admission.containerVcores (2): no container would count on such a node',
      'admission.nodeCoresByLabel.gpu: 1 is below admission.containerVcores (2): no container would count on such a node',
    ]);
    expect(lines({ nodeCoresByLabel: { '': 2, gpu: 'eight' } })).toEqual([
      'admission.nodeCoresByLabel.gpu: Invalid input: expected number, received string',
    ]);
    expect(lines({ nodeCoresByLabel: { '': 2 } })).toEqual([
      "admission.nodeCoresByLabel: names the empty label: the default partition's nodes take admission.nodeCores",
    ]);
  });

  it('reports a YAML syntax error with its file and line, and a missing file', () => {
    const err = (() => {
      try {
        loadConfigFile(join(root, 'test', 'config', 'broken.yaml.txt'));
      } catch (e) {
        return e as ValidationError;
      }
      throw new Error('expected an error');
    })();
    expect(err.issues[0]).toMatchObject({ path: '(yaml)', line: 3 });
    expect(issueLines(() => loadConfigFile('no-such-file.yaml'))[0]).toMatch(/^\(file\): cannot read/);
  });

  it('documents every key and every environment variable in docs/configuration.md', () => {
    const doc = readFileSync(join(root, 'docs', 'configuration.md'), 'utf8');
    const shape = configSchema.shape;
    for (const [section, schema] of Object.entries(shape)) {
      const inner = (schema as unknown as { def: { innerType: { shape: Record<string, unknown> } } }).def
        .innerType.shape;
      for (const key of Object.keys(inner)) expect(doc).toContain(`\`${section}.${key}\``);
    }
    for (const o of ENV_OVERRIDES) expect(doc).toContain(`\`${o.env}\``);
  });
});
