import { hash, timingSafeEqual } from 'node:crypto';

export interface NamedToken {
  name: string;
  token: string;
}

/**
 * Bearer-token check for the write API. Each configured token is compared in constant time
 * (over SHA-256 digests, so tokens of different lengths take the same time too), and every
 * token is compared, so the time taken does not tell which one nearly matched.
 */
export class TokenAuthenticator {
  private readonly digests: Array<{ name: string; digest: Buffer }>;

  constructor(tokens: readonly NamedToken[]) {
    this.digests = tokens.map((t) => ({ name: t.name, digest: sha256(t.token) }));
  }

  get enabled(): boolean {
    return this.digests.length > 0;
  }

  /** The name of the token in an `Authorization: Bearer ...` header, or undefined. */
  authenticate(authorization: string | undefined): string | undefined {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
    if (!match) return undefined;
    const presented = sha256(match[1]!);
    let found: string | undefined;
    for (const { name, digest } of this.digests) {
      if (timingSafeEqual(presented, digest) && found === undefined) found = name;
    }
    return found;
  }
}

function sha256(text: string): Buffer {
  return hash('sha256', text, 'buffer');
}
