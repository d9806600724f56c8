/**
 * Worst-case estimates per workload class in the live sidecar: a compute-bound class learns
 * alone and no longer locks admission for every other job; a submission's answer names the class
 * it was judged with; the ledger keeps the figures per class, and a ledger holding the single
 * cluster-wide triple of before still loads, as the default.
 */
import { parseSubmission } from '../../src/model/deadline-submission';
import { ValidationError } from '../../src/errors/validation';
import { decodeTags, encodeTags } from '../../src/yarn/tags';
import { SqliteLedger } from '../../src/store/ledger';
import { learningSidecar, T0 } from './learning-harness';

const MB = 1024 * 1024;
const LIGHT = { eta: 1, mapCostMax: 0.1, reduceCostMax: 0.1 };

function setup(ledger: SqliteLedger, admission: Record<string, unknown> = {}) {
  return learningSidecar(ledger, {
    admission: {
      // The papers' estimate model: a class learns the seconds per MB of every task.
      estimateModel: 'paper',
      initialEstimates: { eta: 1, mapSecondsPerMb: 0.1, reduceSecondsPerMb: 0.1 },
      ...admission,
    },
  });
}

/** md-run of examples/: 60 KB over 4 maps of a fixed 240 s each; a 10 s reduce. */
const MD_RUN = { maps: 4, inputBytes: 61440, jobType: 'adaptive', workloadClass: 'md-run' };
const MD_MAP_COST = 240 / (61440 / MB / 4); // 16,384 s/MB
/** A CPU job with real input: 8 maps of 128 MB. */
const REPORT = { maps: 8, inputBytes: 1024 * MB, deadline: 600 };

describe('workload classes in the live sidecar', () => {
  let ledger: SqliteLedger;
  beforeEach(() => {
    ledger = SqliteLedger.open(':memory:');
  });
  afterEach(() => ledger.close());

  it('a compute-bound class learns alone: CPU jobs are still judged with their own figures', async () => {
    const s = setup(ledger);
    await s.sidecar.runOnce();
    await s.runJob(MD_RUN, [240, 240, 240, 240], [10]);
    const view = s.sidecar.taskCosts();
    expect(view.classes.map((c) => c.workloadClass)).toEqual(['*', 'md-run']);
    const md = view.classes[1]!;
    expect(md.mapSecondsPerMb).toBeCloseTo(MD_MAP_COST, 6);
    expect(view.classes[0]).toMatchObject({
      workloadClass: '*',
      eta: 1,
      mapSecondsPerMb: 0.1,
      reduceSecondsPerMb: 0.1,
      jobs: 0,
    });
    // Each class's distribution is drawn against its own worst case, not the largest one.
    expect(md.map.learnedWorstCase).toBeCloseTo(MD_MAP_COST, 6);
    expect(view.classes[0]!.map.learnedWorstCase).toBe(0.1);

    const cpu = await s.submit(REPORT);
    expect(cpu.status).toBe(201);
    expect(cpu.body).toMatchObject({ decision: 'admitted', workloadClass: 'cpu', estimates: LIGHT });
    // The same job judged as md-run: each 128 MB map at 16,384 s/MB, refused.
    const asMd = await s.submit({ ...REPORT, workloadClass: 'md-run' });
    expect(asMd.body).toMatchObject({ decision: 'rejected', workloadClass: 'md-run' });
    expect((asMd.body.estimates as { mapCostMax: number }).mapCostMax).toBeCloseTo(MD_MAP_COST, 6);
    // The decision keeps the class and figures too; the learning decision names its class.
    expect(ledger.decisionsOf(cpu.body.id)[0]!.detail).toMatchObject({
      workloadClass: 'cpu',
      estimates: LIGHT,
    });
    const cluster = s.sidecar.cluster() as {
      admission: { estimates: { default: unknown; classes: Record<string, { mapCostMax: number }> } };
    };
    expect(cluster.admission.estimates.default).toEqual(LIGHT);
    expect(Object.keys(cluster.admission.estimates.classes)).toEqual(['md-run']);
    // The ledger holds what was learned, per class, and no configured figure.
    expect(ledger.getValue<{ default?: unknown; classes: object }>('estimates')).toEqual({
      classes: { 'md-run': expect.objectContaining({ eta: 1 }) },
    });
  });

  it('the ledger figures outlive a restart; configured classes start from their entry', async () => {
    const a = setup(ledger);
    await a.sidecar.runOnce();
    await a.runJob(MD_RUN, [240, 240, 240, 240], [10]);
    const b = setup(ledger, {
      classEstimates: { gpu: { eta: 2, mapSecondsPerMb: 0.3, reduceSecondsPerMb: 0.4 } },
    });
    const classes = b.sidecar.taskCosts().classes;
    expect(classes.map((c) => c.workloadClass)).toEqual(['*', 'gpu', 'md-run']);
    expect(classes[1]).toMatchObject({
      workloadClass: 'gpu',
      eta: 2,
      mapSecondsPerMb: 0.3,
      reduceSecondsPerMb: 0.4,
    });
    expect(classes[2]!.mapSecondsPerMb).toBeCloseTo(MD_MAP_COST, 6);
  });

  it('migration: a ledger with the single triple of before loads as the default class', async () => {
    // What one md-run job taught the cluster-wide triple before there were classes.
    const old = { eta: 1, mapCostMax: MD_MAP_COST, reduceCostMax: 2000 };
    ledger.setValue('estimates', old);
    const s = setup(ledger, {
      classEstimates: { cpu: { eta: 1, mapSecondsPerMb: 0.1, reduceSecondsPerMb: 0.1 } },
    });
    await s.sidecar.runOnce();
    expect(s.sidecar.taskCosts().classes[0]).toMatchObject({
      workloadClass: '*',
      eta: 1,
      mapSecondsPerMb: MD_MAP_COST,
      reduceSecondsPerMb: 2000,
    });
    // A class with a configured entry is judged with it; the others with the old triple.
    const cpu = await s.submit(REPORT);
    expect(cpu.body).toMatchObject({ decision: 'admitted', workloadClass: 'cpu', estimates: LIGHT });
    const gpu = await s.submit({ ...REPORT, jobType: 'adaptive' });
    expect(gpu.body).toMatchObject({ decision: 'rejected', workloadClass: 'adaptive', estimates: old });
    // Learning a class keeps the old default beside it, in the new shape, and reloads the same.
    await s.runJob({ maps: 2, inputBytes: 256 * MB }, [25.6, 12.8], [12.8]);
    const saved = ledger.getValue<{ default: unknown; classes: Record<string, { mapCostMax: number }> }>(
      'estimates',
    )!;
    expect(saved.default).toEqual(old);
    expect(saved.classes.cpu!.mapCostMax).toBeCloseTo(0.2, 9);
    const again = setup(ledger);
    expect(again.sidecar.taskCosts().classes).toEqual(s.sidecar.taskCosts().classes);
  });

  it('an app found on the RM with a class: tag is judged with that class', async () => {
    ledger.setValue('estimates', { classes: { etl: { eta: 1, mapCostMax: 1000, reduceCostMax: 1000 } } });
    const s = setup(ledger);
    const tags = ['deadline:2026-11-22T09:00:00.000Z', 'maps:4', 'reduces:1', `input-bytes:${512 * MB}`];
    const plain = s.rm.external(tags, 'default', T0);
    const etl = s.rm.external([...tags, 'class:ETL'], 'default', T0);
    await s.sidecar.runOnce();
    expect(ledger.getJobByAppId(plain)).toMatchObject({ decision: 'admitted' });
    const job = ledger.getJobByAppId(etl)!;
    expect(job).toMatchObject({
      decision: 'rejected',
      spec: expect.objectContaining({ workloadClass: 'etl' }),
    });
  });

  it('the class travels as an RM tag, lower case, and a bad one is refused or ignored', () => {
    const base = {
      sidecarId: 'dl-1',
      deadlineMs: T0,
      maps: 1,
      reduces: 1,
      inputBytes: 1,
      jobType: 'cpu' as const,
    };
    expect(encodeTags(base)).not.toContainEqual(expect.stringMatching(/^class:/));
    expect(encodeTags({ ...base, workloadClass: 'md-run' })).toContain('class:md-run');
    expect(decodeTags(['class:MD-Run']).workloadClass).toBe('md-run');
    expect(decodeTags(['class:has space']).workloadClass).toBeUndefined();
    let err: unknown;
    try {
      parseSubmission(
        {
          name: 'x',
          user: 'u',
          maps: 1,
          reduces: 1,
          inputBytes: 1,
          deadline: 60,
          workloadClass: 'MD Run',
          dryRun: true,
        },
        T0,
      );
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).issues.map((i) => i.path)).toEqual(['workloadClass']);
  });
});
