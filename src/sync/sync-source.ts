import {
  BankNotFoundError,
  type Account,
  type AccountBalance,
  type BankClient,
  type Connection,
  type SyncPageRead,
  type Transaction,
} from '../api-client/index.js'

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

/** The SyncSource a worker uses: the API client, 500 rows a page (the seed's maximum). */
export function bankSyncSource(client: BankClient): SyncSource {
  return {
    syncPage: ({ connectionId, cursor, limit }) =>
      client.transactions.sync({ connectionId, limit, ...(cursor ? { cursor } : {}) }),
    async *transactionPages(connectionId) {
      for await (const page of client.transactions.listPages({
        connectionId,
        limit: 500,
        sort: 'updatedAt',
      })) {
        yield page.data
      }
    },
    getTransaction: (id) =>
      client.transactions.get(id).catch((error: unknown) => {
        if (error instanceof BankNotFoundError) return null
        throw error
      }),
    getConnection: (connectionId) => client.connections.get(connectionId),
    async accounts(connectionId) {
      const accounts: Account[] = []
      for await (const account of client.accounts.listAll({ connectionId, limit: 500 }))
        accounts.push(account as Account)
      return accounts
    },
    async *balancePages(connectionId, dateGte) {
      for await (const page of client.balances.listPages({
        connectionId,
        limit: 500,
        ...(dateGte ? { dateGte } : {}),
      })) {
        yield page.data
      }
    },
  }
}
