import { buildConfig } from '../../src/config/load';
import { issueLines } from '../validation-issues';

/** admission.estimateModel, the per-task floors and admission.learning (docs/estimates.md). */
describe('estimate model configuration', () => {
  it('defaults: floored, no floor written (5 s applied by the sidecar), learning 16 MB / 2x / 100 jobs', () => {
    const a = buildConfig({}).admission;
    expect(a.estimateModel).toBe('floored');
    expect(a.initialEstimates).toEqual({ eta: 1, mapSecondsPerMb: 0.5, reduceSecondsPerMb: 0.5 });
    expect(a.learning).toEqual({ tinyTaskMb: 16, maxGrowthPerJob: 2, windowJobs: 100 });
  });

  it('floors per class under floored', () => {
    const a = buildConfig({
      admission: { classEstimates: { etl: { mapTaskSeconds: 12, reduceTaskSeconds: 0 } } },
    }).admission;
    expect(a.classEstimates.etl).toMatchObject({ mapTaskSeconds: 12, reduceTaskSeconds: 0 });
  });

  it('a floor under the papers’ model, and learning out of range, are refused with their paths', () => {
    expect(
      issueLines(() =>
        buildConfig({
          admission: {
            estimateModel: 'paper',
            initialEstimates: { mapTaskSeconds: 3 },
            classEstimates: { etl: { reduceTaskSeconds: 1 } },
          },
        }),
      ),
    ).toEqual([
      "admission.initialEstimates.mapTaskSeconds: is a per-task floor, which estimateModel 'paper' does not have",
      "admission.classEstimates.etl.reduceTaskSeconds: is a per-task floor, which estimateModel 'paper' does not have",
    ]);
    const lines = issueLines(() =>
      buildConfig({
        admission: {
          estimateModel: 'ideal',
          initialEstimates: { mapTaskSeconds: -1 },
          learning: { maxGrowthPerJob: 0.5, windowJobs: 2.5, tinyTaskMb: -1, decay: true },
        },
      }),
    );
    expect(lines.map((l) => l.split(':')[0])).toEqual(
      expect.arrayContaining([
        'admission.estimateModel',
        'admission.initialEstimates.mapTaskSeconds',
        'admission.learning.maxGrowthPerJob',
        'admission.learning.windowJobs',
        'admission.learning.tinyTaskMb',
        'admission.learning',
      ]),
    );
  });
});
