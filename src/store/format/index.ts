// KairosDB's Cassandra storage format, as codecs both stores share: row keys, tags, row times, column names, values.
export * from './column-name.js';
export * from './data-types.js';
export * from './modified-utf8.js';
export * from './row-key.js';
export * from './row-time.js';
export * from './tags.js';
export * from './values.js';
