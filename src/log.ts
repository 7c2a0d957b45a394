/**
 * The process logger: structured JSON lines (pino), one per event, with the request id where there is one.
 */
import { pino, type Logger } from 'pino';
import type { LogLevel } from './config.js';

export type { Logger };

export function createLogger(level: LogLevel): Logger {
  return pino({ level, base: { service: 'kairograph' } });
}
