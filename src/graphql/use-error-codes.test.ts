/**
 * The table of GraphQL error codes and statuses in docs/graphql.md is the contract; the plugin's table must say the
 * same.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { GRAPHQL_ERROR_STATUS } from './use-error-codes.js';

it("agrees with docs/graphql.md's table of codes and statuses", () => {
  const page = readFileSync(fileURLToPath(new URL('../../docs/graphql.md', import.meta.url)), 'utf8');
  const rows = [...page.matchAll(/^\| `([A-Z_]+)` \| (\d{3}) \|/gm)].map(
    ([, code, status]) => [code!, Number(status)] as const,
  );
  // BAD_REQUEST keeps yoga's status (400, or 405 for methods), so it is documented twice and absent from the table.
  expect(rows.filter(([code]) => code === 'BAD_REQUEST').map(([, status]) => status)).toEqual([400, 405]);
  const documented = Object.fromEntries(rows.filter(([code]) => code !== 'BAD_REQUEST'));
  expect(documented).toEqual(GRAPHQL_ERROR_STATUS);
});
