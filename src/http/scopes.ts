/**
 * The rights a request can have: reading series, writing points, deleting them, and the operations endpoints
 * (/metrics). One list, so configuration, credentials and the checks cannot name different ones.
 */
export const SCOPES = ['read', 'write', 'delete', 'admin'] as const;

export type Scope = (typeof SCOPES)[number];

export function isScope(value: unknown): value is Scope {
  return typeof value === 'string' && (SCOPES as readonly string[]).includes(value);
}
