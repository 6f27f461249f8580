import type { Kysely } from 'kysely'
import { loadJournalRows, type Database } from '../store/index.js'
import {
  DEFAULT_JOURNAL_ACCOUNTS,
  journalEntries,
  type JournalAccounts,
  type JournalEntry,
} from './journal-entries.js'
import { renderJournal, type JournalFormat } from './journal-formats.js'

/** The journal of a period as entries (`GET /api/journal`, `bankrec journal`). */
export async function readJournal(
  db: Kysely<Database>,
  period: { from: Date; to: Date },
  accounts: JournalAccounts = DEFAULT_JOURNAL_ACCOUNTS,
): Promise<JournalEntry[]> {
  return journalEntries(await loadJournalRows(db, period), period, accounts)
}

/** The journal of a period rendered in a format, with how many entries it holds. */
export async function exportJournal(
  db: Kysely<Database>,
  request: { from: Date; to: Date; format: JournalFormat },
  accounts: JournalAccounts = DEFAULT_JOURNAL_ACCOUNTS,
): Promise<{ body: string; entries: number }> {
  const entries = await readJournal(db, request, accounts)
  return { body: renderJournal(entries, request.format, accounts.bank), entries: entries.length }
}
