export { createLogger, silentLogger } from './logger.js'
export { redactSecrets, isSecretKey } from './redact.js'
export type { Logger, LoggerOptions } from './logger.js'
