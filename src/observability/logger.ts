import { pino, type Logger as PinoLogger } from 'pino'

export type Logger = Pick<PinoLogger, 'debug' | 'info' | 'warn' | 'error' | 'child'>

/** Paths whose values never reach a log line, wherever they appear in a logged object. */
export const REDACTED_PATHS = [
  'apiKey',
  '*.apiKey',
  'secret',
  '*.secret',
  'secrets',
  '*.secrets',
  'password',
  '*.password',
  'authorization',
  '*.authorization',
  'headers.authorization',
  '*.headers.authorization',
  'headers["service-signature"]',
  'webhookSecrets',
  '*.webhookSecrets',
]

export type LoggerOptions = {
  /** @defaultValue 'info' */
  level?: string
  /** Where JSON lines go. @defaultValue stdout */
  destination?: NodeJS.WritableStream
}

/** pino JSON logs with secrets redacted. */
export function createLogger(options: LoggerOptions = {}): Logger {
  return pino(
    {
      level: options.level ?? 'info',
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      base: { service: 'bankrec' },
    },
    options.destination ?? process.stdout,
  )
}

/** A logger that drops everything (library default). */
export const silentLogger: Logger = pino({ level: 'silent' })
