import iconv from 'iconv-lite'
import type { Kysely } from 'kysely'
import { loadJournalRows, type Database } from '../store/index.js'
import {
  DEFAULT_JOURNAL_ACCOUNTS,
  journalEntries,
  type JournalAccounts,
  type JournalEntry,
} from './journal-entries.js'
import { renderJournal, type JournalFormat } from './journal-formats.js'
import type { JournalRequest } from './journal-period.js'

/** Which entries a request keeps: one bank account's (entries with no bank line have none), one currency's. */
export type JournalFilter = { account?: string; currency?: string }

/** The journal of a period as entries (`GET /api/journal`, `bankrec journal`). */
export async function readJournal(
  db: Kysely<Database>,
  period: { from: Date; to: Date } & JournalFilter,
  accounts: JournalAccounts = DEFAULT_JOURNAL_ACCOUNTS,
): Promise<JournalEntry[]> {
  return journalEntries(await loadJournalRows(db, period), period, accounts).filter(
    (entry) =>
      (period.account === undefined || entry.bankAccountId === period.account) &&
      (period.currency === undefined || entry.currency === period.currency),
  )
}

/** How each format travels: its media type and file name ending. DATEV reads Windows-1252 (its spec). */
export const JOURNAL_FILES: Record<JournalFormat, { contentType: string; extension: string }> = {
  json: { contentType: 'application/json', extension: 'json' },
  csv: { contentType: 'text/csv; charset=utf-8', extension: 'csv' },
  'qbo-csv': { contentType: 'text/csv; charset=utf-8', extension: 'csv' },
  'xero-csv': { contentType: 'text/csv; charset=utf-8', extension: 'csv' },
  'qbo-payments': { contentType: 'text/csv; charset=utf-8', extension: 'csv' },
  'xero-payments': { contentType: 'text/csv; charset=utf-8', extension: 'csv' },
  datev: { contentType: 'text/csv; charset=windows-1252', extension: 'csv' },
}

/**
 * The journal of a period rendered in a format, with how many entries it holds. A single-currency format over
 * days of several currencies is refused (`journal_mixed_currencies`), never split or mixed.
 */
export async function exportJournal(
  db: Kysely<Database>,
  request: JournalRequest,
  options: { accounts?: JournalAccounts; now?: Date } = {},
): Promise<{ body: Buffer; entries: number }> {
  const accounts = options.accounts ?? DEFAULT_JOURNAL_ACCOUNTS
  const entries = await readJournal(db, request, accounts)
  const text = renderJournal(entries, request.format, accounts.bank, {
    deposit: request.depositAccount,
    datev: request.datev && {
      ...request.datev,
      period: request,
      created: options.now ?? new Date(),
    },
  })
  const body = request.format === 'datev' ? iconv.encode(text, 'win1252') : Buffer.from(text, 'utf8')
  return { body, entries: entries.length }
}
