import { createRequire } from 'node:module'
import { pino, type DestinationStream, type Logger as PinoLogger } from 'pino'
import { redactSecrets } from './redact.js'
import { traceLogFields } from './tracing.js'

export type Logger = Pick<PinoLogger, 'debug' | 'info' | 'warn' | 'error' | 'child'>

export type LoggerOptions = {
  /** @defaultValue 'info' */
  level?: string
  /** Where JSON lines go. @defaultValue stdout */
  destination?: NodeJS.WritableStream
  /** Human-readable lines instead of JSON (for a terminal), when pino-pretty is installed. @defaultValue false */
  pretty?: boolean
}

type PrettyFactory = (options: {
  destination: NodeJS.WritableStream
  colorize: boolean
  sync: boolean
}) => DestinationStream

/**
 * pino-pretty is a development dependency: a clone (`npm ci`) has it and a terminal gets readable lines; a
 * production install (`npm ci --omit=dev`, the Docker image) does not, and logs stay JSON.
 */
function prettyFactory(): PrettyFactory | undefined {
  try {
    return createRequire(import.meta.url)('pino-pretty') as PrettyFactory
  } catch {
    return undefined
  }
}

/** pino JSON logs with secrets redacted at any depth, in a line's object and in a child logger's bindings. */
export function createLogger(options: LoggerOptions = {}): Logger {
  const logger = pino(
    {
      level: options.level ?? 'info',
      formatters: { log: redactSecrets, bindings: redactSecrets },
      base: { service: 'bankrec' },
      // trace_id and span_id of the active span on every line (nothing when tracing is off).
      mixin: traceLogFields,
    },
    (options.pretty ? prettyFactory() : undefined)?.({
      destination: options.destination ?? process.stdout,
      colorize: true,
      sync: true,
    }) ??
      options.destination ??
      process.stdout,
  )
  // pino applies formatters.bindings to the root's bindings only; children (which inherit this method through
  // their prototype) get theirs redacted here.
  const child = logger.child
  logger.child = function redactedChild(this: PinoLogger, bindings, childOptions) {
    return child.call(this, redactSecrets(bindings), childOptions)
  } as PinoLogger['child']
  return logger
}

/** A logger that drops everything (library default). */
export const silentLogger: Logger = pino({ level: 'silent' })
