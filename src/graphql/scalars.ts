/**
 * Custom scalars. `Time` only checks the JSON shape here; resolvers read it with `parseTime`, where the argument's
 * name is known (graphql-js error messages for literals would not name it) and every field shares one "now".
 */
import { GraphQLError, GraphQLScalarType, Kind, type ValueNode } from 'graphql';
import { isEpochMs } from '../lib/epoch-ms.js';
import { formatTime, type TimeInput } from '../model/time.js';

export const TimeScalar = new GraphQLScalarType<TimeInput, string>({
  name: 'Time',
  serialize(value) {
    // The engine keeps answers' times within the one time rule; anything else would make toISOString throw.
    if (!isEpochMs(value)) throw new GraphQLError(`Time cannot serialize ${String(value)}`);
    return formatTime(value);
  },
  parseValue(value) {
    if (typeof value === 'number' || typeof value === 'string') return value;
    throw new GraphQLError(
      'Time must be epoch milliseconds (a number or numeric string), ISO-8601 text or a relative time such as now-6h',
    );
  },
  parseLiteral(ast) {
    if (ast.kind === Kind.INT || ast.kind === Kind.FLOAT) return Number(ast.value);
    if (ast.kind === Kind.STRING) return ast.value;
    throw new GraphQLError(
      'Time must be epoch milliseconds (a number or numeric string), ISO-8601 text or a relative time such as now-6h',
    );
  },
});

export const LongScalar = new GraphQLScalarType<number | bigint, number | string>({
  name: 'Long',
  serialize(value) {
    if (typeof value === 'bigint') return value >= -MAX_SAFE && value <= MAX_SAFE ? Number(value) : value.toString();
    if (typeof value === 'number' && Number.isInteger(value)) return value;
    throw new GraphQLError(`Long cannot serialize ${String(value)}`);
  },
  parseValue(value) {
    return parseLong(value);
  },
  parseLiteral(ast) {
    return parseLong(ast.kind === Kind.INT || ast.kind === Kind.STRING ? ast.value : undefined);
  },
});

/** Kept as the client wrote it; `validateWrite` reads it against the series type and names the field on error. */
export const PointValueScalar = new GraphQLScalarType<number | string, number | string>({
  name: 'PointValue',
  serialize(value) {
    if (typeof value === 'number' || typeof value === 'string') return value;
    throw new GraphQLError(`PointValue cannot serialize ${String(value)}`);
  },
  parseValue(value) {
    if (typeof value === 'number' || typeof value === 'string') return value;
    throw new GraphQLError('PointValue must be a number or a string');
  },
  parseLiteral(ast: ValueNode) {
    // An integer literal beyond ±2^53 stays text so a 64-bit long keeps every digit.
    if (ast.kind === Kind.INT) return Number.isSafeInteger(Number(ast.value)) ? Number(ast.value) : ast.value;
    if (ast.kind === Kind.FLOAT) return Number(ast.value);
    if (ast.kind === Kind.STRING) return ast.value;
    throw new GraphQLError('PointValue must be a number or a string');
  },
});

function parseLong(value: unknown): number | bigint {
  let integer: bigint | undefined;
  if (typeof value === 'number' && Number.isSafeInteger(value)) return value;
  if (typeof value === 'string' && /^-?\d+$/.test(value)) integer = BigInt(value);
  if (integer === undefined || integer < -(2n ** 63n) || integer > 2n ** 63n - 1n) {
    throw new GraphQLError(
      `Long must be a 64-bit integer, as a number or a decimal string (got ${JSON.stringify(value)})`,
    );
  }
  return integer >= -MAX_SAFE && integer <= MAX_SAFE ? Number(integer) : integer;
}

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
