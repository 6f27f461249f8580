import type { Account, AccountBalance, Connection, SyncPageRead, Transaction } from '../api-client/index.js'

/**
 * What a connection sync needs from the bank. The worker passes an adapter over the API client; keeping the port
 * this small lets the sync logic be read and tested on its own.
 */
export type SyncSource = {
  /** GET /v1/transactions/sync for one connection's stream; no cursor initialises the stream head. */
  syncPage(params: { connectionId: string; cursor?: string; limit: number }): Promise<SyncPageRead>
  /** Every transaction of the connection, a page at a time (the list endpoint, for the no-gap backfill). */
  transactionPages(connectionId: string): AsyncIterable<Transaction[]>
  /** One transaction as the bank has it now; null when it no longer exists (settles a quarantined event). */
  getTransaction(id: string): Promise<Transaction | null>
  getConnection(connectionId: string): Promise<Connection>
  accounts(connectionId: string): Promise<Account[]>
  /** Daily balance rows of the connection from `dateGte` (inclusive) on, a page at a time. */
  balancePages(connectionId: string, dateGte: string | undefined): AsyncIterable<AccountBalance[]>
}

/** The bank said the cursor is too old (seed: 90 days): the stream starts over from a new head. */
export class CursorExpiredSignal extends Error {}
/** The bank refused the cursor as malformed or for other filters: a bug or tampering; start over and alert. */
export class InvalidCursorSignal extends Error {}
