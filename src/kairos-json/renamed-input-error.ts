/**
 * The re-homing of an InputError under the field path a KairosDB JSON client sent
 * (`[1].datapoints[0].value`) for the REST API's writes.
 */
import { InputError } from '../model/errors.js';

/**
 * The same error, its field renamed: the message keeps its reason and value, only the leading field changes, so
 * the engine's `aggregators[0].percentile …` reads `query.metric[2].aggregators[0].percentile …` over REST.
 */
export function renamedInputError(error: InputError, field: string): InputError {
  const renamed = new InputError(field, error.value, '');
  renamed.message = error.message.startsWith(error.field)
    ? field + error.message.slice(error.field.length)
    : `${field}: ${error.message}`;
  return renamed;
}
