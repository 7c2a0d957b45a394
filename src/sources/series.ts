/**
 * What is left of the seam's old vocabulary module: KairosDB's service_index as the metadata API and roll-ups reach it
 * through a source. Everything else every layer speaks lives in src/model/.
 */
export type { Claim, ServiceIndex, ServiceValue } from '../store/store.js';
/** The service_index partition the stores keep their tag index markers in (read-only through the metadata API). */
export { COVERAGE_SERVICE } from '../store/tag-index.js';
