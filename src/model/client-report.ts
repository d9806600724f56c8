import { z } from 'zod';
import { ValidationError, zodIssues } from '../errors/validation';

/**
 * PUT /api/v1/jobs/{id}/client: what a ticket's client (`run`) reports of itself. `running` when
 * it starts and then now and again (a heartbeat), with the id of an app it submitted once its
 * output names one; `exited` with its exit code once it ended. A
 * job whose client reported itself is judged once the client has exited, on its last app
 * (src/loop/job-apps.ts).
 */
export const clientReportSchema = z
  .discriminatedUnion('state', [
    z.strictObject({
      state: z.literal('running'),
      appId: z
        .string()
        .max(64)
        .regex(/^application_\d+_\d+$/, 'must be a YARN application id, application_<cluster>_<n>')
        .optional()
        .describe(
          "an app the client submitted (from its output): read from the RM at once and bound to the ticket if it carries the ticket's tag, without waiting for the next poll",
        ),
    }),
    z.strictObject({
      state: z.literal('exited'),
      exitCode: z
        .int()
        .min(0)
        .max(255)
        .describe("the client's exit code (128 + n when a signal n stopped it)"),
    }),
  ])
  .describe(
    "What a ticket's client reports of itself: running (when it starts, then at least once per tickets.ttlSeconds), then exited with its code",
  );

export type ClientReport = z.infer<typeof clientReportSchema>;

export function parseClientReport(body: unknown): ClientReport {
  const parsed = clientReportSchema.safeParse(body);
  if (!parsed.success) throw new ValidationError(zodIssues(parsed.error, { noun: 'field', whole: '(body)' }));
  return parsed.data;
}
