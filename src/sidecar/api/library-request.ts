import express, { type RequestHandler, type Response } from 'express'
import { InvoiceError, type InvoiceCsvRowError } from '../../invoices/index.js'
import { SidecarApiError } from '../api-error.js'
import { refuseLargeBody } from '../refuse-large-body.js'
import { unstorableLine } from './refuse-unstorable-text.js'

/** CSV bodies are read whole before anything is written; 50 MB holds several hundred thousand invoices. */
const CSV_BODY_LIMIT = 50 * 1024 * 1024
const CSV_TYPES = ['text/csv', 'text/plain', 'application/csv']

/** Library errors become API errors whose paths say where the field was: params, body or query. */
export function libraryError(error: unknown, where: (path: string) => string): unknown {
  if (!(error instanceof InvoiceError)) return error
  const details = error.details?.map((detail) => ({ path: where(detail.path), message: detail.message }))
  const message = details
    ? details.map((detail) => `${detail.path} ${detail.message}`).join('; ')
    : error.message
  return new SidecarApiError(error.status, error.code, message, details)
}

export const inBody = (path: string) => (path === 'id' ? 'params.id' : path ? `body.${path}` : 'body')
export const inQuery = (path: string) => `query.${path}`

export function rejectImport(res: Response, rows: number, errors: InvoiceCsvRowError[]): void {
  const details = errors.flatMap((row) =>
    row.reasons.map((reason) => ({
      path: reason.field ? `line.${row.line}.${reason.field}` : `line.${row.line}`,
      message: reason.message,
    })),
  )
  res.status(400).json({
    error: {
      code: 'invalid_csv',
      message: `${errors.length} ${errors.length === 1 ? 'row is' : 'rows are'} invalid (of ${rows}); nothing was imported.`,
      requestId: String(res.locals.requestId ?? ''),
      details,
      rows: errors,
    },
  })
}

/** The middleware that reads a CSV import body: text/csv (or JSON `{ csv }`), refused whole when too large. */
export function csvBody(): RequestHandler[] {
  return [
    refuseLargeBody(CSV_BODY_LIMIT, CSV_TYPES),
    express.text({ type: CSV_TYPES, limit: CSV_BODY_LIMIT }),
  ]
}

/** The CSV text of an import body; 400 when it is neither, or holds what PostgreSQL cannot store. */
export function csvOf(body: unknown): string {
  const csv =
    typeof body === 'string'
      ? body
      : typeof body === 'object' && body !== null && typeof (body as { csv?: unknown }).csv === 'string'
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
