import { BankNotFoundError, type Account, type BankClient } from '../api-client/index.js'
import type { SyncSource } from './sync-source.js'

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
