export { createLogger, silentLogger, REDACTED_PATHS } from './logger.js'
export type { Logger, LoggerOptions } from './logger.js'
