import type { Request, RequestHandler, Response } from 'express'
import { importRefusalMessage, type CsvInput, type CsvRowsRefusal } from '../../csv-rows/index.js'
import { DomainError } from '../../errors/index.js'
import { SidecarApiError } from '../api-error.js'
import { refuseLargeBody } from '../refuse-large-body.js'
import { csvBodyStream, discardRest } from './csv-body.js'
import { unstorableLine } from './refuse-unstorable-text.js'

/** CSV bodies are streamed and validated before anything is written; 50 MB holds several hundred thousand invoices. */
const CSV_BODY_LIMIT = 50 * 1024 * 1024
const CSV_TYPES = ['text/csv', 'text/plain', 'application/csv']

/** A library refusal whose field paths say where in the request the field was: params, body or query. */
export function libraryError(error: unknown, where: (path: string) => string): unknown {
  if (!(error instanceof DomainError) || !error.details) return error
  const details = error.details.map((detail) => ({ path: where(detail.path), message: detail.message }))
  const message = details.map((detail) => `${detail.path} ${detail.message}`).join('; ')
  return new DomainError(error.kind, error.code, message, details)
}

export const inBody = (path: string) => (path === 'id' ? 'params.id' : path ? `body.${path}` : 'body')
export const inQuery = (path: string) => `query.${path}`

/** A refused import: 400 with the first bad rows, how many there are and where checking stopped. */
export function rejectImport(res: Response, result: CsvRowsRefusal): void {
  const { errors, badRows, stoppedAtLine } = result
  const details = errors.flatMap((row) =>
    row.reasons.map((reason) => ({
      path: reason.field ? `line.${row.line}.${reason.field}` : `line.${row.line}`,
      message: reason.message,
    })),
  )
  res.status(400).json({
    error: {
      code: 'invalid_csv',
      message: `${importRefusalMessage(result)}.`,
      requestId: String(res.locals.requestId ?? ''),
      details,
      rows: errors,
      badRows,
      stoppedAtLine,
    },
  })
}

/** The guard in front of a CSV import route: a body declared larger than the limit is refused whole. */
export function csvBody(): RequestHandler {
  return refuseLargeBody(CSV_BODY_LIMIT, CSV_TYPES)
}

/**
 * Runs an import over the request's CSV: a text/csv body streamed (never held as one string), or JSON `{ csv }`.
 * When it ends before the body does (refused, or checking stopped), the rest is drained unparsed and the
 * connection closed, so the client gets the answer instead of a cut upload.
 */
export async function importCsvBody<R extends { ok: boolean }>(
  req: Request,
  res: Response,
  run: (input: CsvInput) => Promise<R>,
): Promise<R> {
  const stream = req.is(CSV_TYPES) ? csvBodyStream(req, CSV_BODY_LIMIT) : undefined
  const result = await run(stream ?? csvOfJson(req.body)).catch((error: unknown) => {
    if (!req.complete) res.setHeader('connection', 'close')
    throw error
  })
  if (!result.ok) {
    if (stream && !req.complete) await discardRest(stream)
    if (!req.complete) res.setHeader('connection', 'close')
  }
  return result
}

/** The CSV of a JSON `{ csv }` body (parsed by the /api JSON parser); 400 when absent or unstorable. */
function csvOfJson(body: unknown): string {
  const csv =
    typeof body === 'object' && body !== null && typeof (body as { csv?: unknown }).csv === 'string'
      ? (body as { csv: string }).csv
      : undefined
  if (csv === undefined) {
    throw new SidecarApiError(
      400,
      'validation_error',
      'body must be the CSV file (Content-Type: text/csv) or JSON { "csv": "<the file>" }.',
      [{ path: 'body', message: 'must be a CSV text or JSON { "csv": string }' }],
    )
  }
  const line = unstorableLine(csv)
  if (line !== undefined) {
    const message = 'must not contain U+0000 or an unpaired surrogate'
    throw new SidecarApiError(400, 'invalid_csv', `line ${line} ${message}; nothing was imported.`, [
      { path: `line.${line}`, message },
    ])
  }
  return csv
}

/** A PUT body: a JSON object whose `id`, if given, is the path's. */
export function objectBody(body: unknown, id: string, what: string): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new SidecarApiError(400, 'validation_error', `body must be a JSON object (${what}).`, [
      { path: 'body', message: 'must be a JSON object' },
    ])
  }
  const given = (body as { id?: unknown }).id
  if (given !== undefined && given !== id) {
    throw new SidecarApiError(400, 'validation_error', 'body.id must equal the id in the path.', [
      { path: 'body.id', message: 'must equal the id in the path' },
    ])
  }
  return body as Record<string, unknown>
}
