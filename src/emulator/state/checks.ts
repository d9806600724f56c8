import { remoteRejection } from '../../errors/emulated-rm-rejection';
import { MAX_TAG_LENGTH, MAX_TAGS } from '../../yarn/tags';

/** The RM's own checks of what a client sends it (ids, tags, times), with the refusals it answers. */

export const pad4 = (n: number) => String(n).padStart(4, '0');

export function positiveInt(text: string): number | undefined {
  if (!/^\d+$/.test(text)) return undefined;
  const n = Number(text);
  return Number.isSafeInteger(n) && n > 0 ? n : undefined;
}

/**
 * A deadline tag's value. Tags arrive lower-cased (YARN lower-cases every tag), so
 * `2030-01-01t10:00:00z` must read as 2030-01-01T10:00:00Z.
 */
export function parseDeadlineTag(value: string): number | undefined {
  const text = value.toUpperCase();
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:?\d{2})$/.test(text))
    return undefined;
  const ms = Date.parse(text.replace(/([+-]\d{2})(\d{2})$/, '$1:$2'));
  return Number.isFinite(ms) ? ms : undefined;
}

/**
 * ApplicationId.fromString's refusals, as the web services answer them (400 BadRequestException
 * wrapping the IllegalArgumentException; measured on 3.4.3).
 */
export function checkAppId(appId: string): void {
  const bad = (m: string) =>
    remoteRejection(400, 'BadRequestException', `java.lang.IllegalArgumentException: ${m}`);
  if (!appId.startsWith('application_'))
    throw bad(
      `Invalid ApplicationId prefix: ${appId}. The valid ApplicationId should start with prefix application`,
    );
  if (!/^application_\d+_\d+$/.test(appId)) throw bad(`Invalid ApplicationId: ${appId}`);
}

/** Where java.time would stop parsing `yyyy-MM-dd'T'HH:mm:ss.SSSZ` in this text. */
export function parseFailureIndex(text: string): number {
  const pattern = 'dddd-dd-ddTdd:dd:dd.ddd';
  for (let i = 0; i < pattern.length; i++) {
    const c = text[i];
    const p = pattern[i]!;
    if (c === undefined) return i;
    if (p === 'd' ? !/\d/.test(c) : c !== p) return i;
  }
  return pattern.length;
}

/** YarnConfiguration.APPLICATION_MAX_TAGS and APPLICATION_MAX_TAG_LENGTH, stated once in src/yarn/tags.ts. */
export const RM_MAX_APPLICATION_TAGS = MAX_TAGS;
export const RM_MAX_TAG_LENGTH = MAX_TAG_LENGTH;

/**
 * The RM's own check of an app's tags (ApplicationSubmissionContextPBImpl.checkTags): at most
 * 10, each at most 100 printable ASCII characters. Its IllegalArgumentException reaches the REST
 * answer as the submission's 400 BadRequestException, its text wrapped twice (measured on 3.4.3:
 * `java.lang.Exception: java.lang.IllegalArgumentException: Too many applicationTags, …`).
 */
export function checkApplicationTags(tags: readonly string[]): void {
  const illegal = (m: string) =>
    remoteRejection(
      400,
      'BadRequestException',
      `java.lang.Exception: java.lang.IllegalArgumentException: ${m}`,
    );
  if (tags.length > RM_MAX_APPLICATION_TAGS)
    throw illegal(`Too many applicationTags, a maximum of only ${RM_MAX_APPLICATION_TAGS} are allowed!`);
  for (const t of tags) {
    if (t.length > RM_MAX_TAG_LENGTH)
      throw illegal(`Tag ${t} is too long, maximum allowed length of a tag is ${RM_MAX_TAG_LENGTH}`);
    if (!/^[\x20-\x7e]*$/.test(t)) throw illegal(`A tag can only have ASCII characters! Invalid tag - ${t}`);
  }
}
