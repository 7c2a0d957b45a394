/**
 * Who a request acts as, and the rights it can have: reading series, writing points, deleting them, and the
 * operations endpoints (/metrics). One list, so configuration, credentials and the checks cannot name different ones.
 */
export const SCOPES = ['read', 'write', 'delete', 'admin'] as const;

export type Scope = (typeof SCOPES)[number];

export function isScope(value: unknown): value is Scope {
  return typeof value === 'string' && (SCOPES as readonly string[]).includes(value);
}

/** Who a request acts as. Only the name ever reaches logs and metrics, never a secret. */
export interface Principal {
  /** A token's or user's name from CREDENTIALS_FILE; `anonymous` without credentials; `trusted-client` for TRUSTED_CLIENT_TOKENS. */
  readonly name: string;
  /** False for requests without credentials: a missing scope is then 401 (send credentials), not 403. */
  readonly authenticated: boolean;
  readonly scopes: ReadonlySet<Scope>;
  /** The sources it may read, write or delete in; undefined for every source. */
  readonly sources?: ReadonlySet<string>;
}

/** Everything may be done: what tools and tests get when they open a request scope without a gateway. */
export const UNRESTRICTED: Principal = { name: 'internal', authenticated: true, scopes: new Set(SCOPES) };
