import { once } from 'node:events'
import type { Kysely } from 'kysely'
import { streamTransactionPages, type Database, type MirroredTransaction } from '../store/index.js'
import { csvRecord } from './csv-field.js'

export type MirrorExportFormat = 'jsonl' | 'csv'

/** The exported columns, in order (the CSV header and the JSON keys). */
export const MIRROR_EXPORT_COLUMNS = [
  'id',
  'accountId',
  'postedDate',
  'amount',
  'currency',
  'status',
  'paymentReference',
  'description',
  'updatedAt',
] as const

export type MirrorExportRecord = Record<(typeof MIRROR_EXPORT_COLUMNS)[number], string | null>

export function exportRecord(row: MirroredTransaction): MirrorExportRecord {
  return {
    id: row.id,
    accountId: row.account_id,
    postedDate: row.posted_date,
    amount: row.amount,
    currency: row.currency,
    status: row.status,
    paymentReference: row.payment_reference,
    description: row.description,
    updatedAt: row.updated_at?.toISOString() ?? null,
  }
}

function formatPage(rows: readonly MirroredTransaction[], format: MirrorExportFormat): string {
  let text = ''
  for (const row of rows) {
    const record = exportRecord(row)
    text +=
      format === 'csv'
        ? csvRecord(MIRROR_EXPORT_COLUMNS.map((column) => record[column]))
        : `${JSON.stringify(record)}\n`
  }
  return text
}

/**
 * Writes one connection's mirrored transactions to `out` in id order, as JSON lines or CSV with a header,
 * reading `pageSize` rows a query and waiting for `out` to drain, so memory stays flat at any size.
 */
export async function exportMirror(
  db: Kysely<Database>,
  options: { connectionId: string; format: MirrorExportFormat; pageSize?: number },
  out: NodeJS.WritableStream,
): Promise<{ rows: number }> {
  let rows = 0
  const write = async (text: string) => {
    if (!out.write(text)) await once(out, 'drain')
  }
  if (options.format === 'csv') await write(csvRecord(MIRROR_EXPORT_COLUMNS))
  for await (const page of streamTransactionPages(
    db,
    { connectionId: options.connectionId },
    options.pageSize,
  )) {
    await write(formatPage(page, options.format))
    rows += page.length
  }
  return { rows }
}
