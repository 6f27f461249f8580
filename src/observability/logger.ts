import { pino, type Logger as PinoLogger } from 'pino'
import pretty from 'pino-pretty'

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
  /** Human-readable lines instead of JSON (for a terminal). @defaultValue false */
  pretty?: boolean
}

/** pino JSON logs with secrets redacted. */
export function createLogger(options: LoggerOptions = {}): Logger {
  return pino(
    {
      level: options.level ?? 'info',
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      base: { service: 'bankrec' },
    },
    options.pretty
      ? pretty({ destination: options.destination ?? process.stdout, colorize: true, sync: true })
      : (options.destination ?? process.stdout),
  )
}

/** A logger that drops everything (library default). */
export const silentLogger: Logger = pino({ level: 'silent' })
