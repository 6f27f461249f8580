import { BankApiError, type BankClient } from '../../../src/api-client/index.js'
import type { SandboxHarness } from '../sandbox-harness.js'
import type { SeededRandom } from './seeded-random.js'

export type ChangeKind =
  'add' | 'modify' | 'settle' | 'remove' | 'reauthRequired' | 'reactivate' | 'bankSync' | 'bankSyncRefused'

type TruthTransaction = { id: string; connectionId: string; status: string; paymentReference?: string | null }

export type BankChangesOptions = {
  /** Which existing transactions may be settled, modified or removed. @defaultValue every one */
  eligible?(transaction: TruthTransaction): boolean
}

/**
 * Seeded changes at the bank, through the sandbox's control API (and PUT /v1/connections/{id}/sync for the
 * bank's own syncs): what a live bank does to a mirror. `counts` says what was done, for the run's summary.
 */
export function createBankChanges(
  sandbox: SandboxHarness,
  bank: BankClient,
  random: SeededRandom,
  options: BankChangesOptions = {},
) {
  const counts: Record<ChangeKind, number> = {
    add: 0,
    modify: 0,
    settle: 0,
    remove: 0,
    reauthRequired: 0,
    reactivate: 0,
    bankSync: 0,
    bankSyncRefused: 0,
  }
  const control = async (method: string, path: string, body?: unknown) => {
    const answer = await sandbox.request(method, path, body === undefined ? {} : { body })
    if (answer.status >= 300)
      throw new Error(`${method} ${path} answered ${answer.status}: ${JSON.stringify(answer.body)}`)
    return answer.body
  }
  const transactionsOf = async (connectionId: string): Promise<TruthTransaction[]> =>
    (
      (await control('GET', `/_sandbox/state?connectionId=${connectionId}`))
        .transactions as TruthTransaction[]
    ).filter((t) => options.eligible?.(t) ?? true)

  const amount = () => {
    const cents = random.int(1, 2_500_000)
    return `${random.chance(0.5) ? '-' : ''}${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`
  }
  const reference = () => `INV-${random.int(10_000, 99_999)}`

  async function transactionChange(connectionId: string): Promise<ChangeKind> {
    const transactions = await transactionsOf(connectionId)
    const pending = transactions.filter((t) => t.status === 'pending')
    const roll = random.next()
    if (roll < 0.4 || transactions.length === 0) {
      await control('POST', `/_sandbox/connections/${connectionId}/transactions`, {
        amount: amount(),
        status: random.chance(0.4) ? 'pending' : 'posted',
        paymentReference: reference(),
        counterpartyName: random.pick(['Acme Corp', 'Globex GmbH', 'Initech Ltd', 'Umbrella plc']),
      })
      return 'add'
    }
    if (roll < 0.55 && pending.length > 0) {
      await control('PATCH', `/_sandbox/transactions/${random.pick(pending).id}`, { status: 'posted' })
      return 'settle'
    }
    if (roll < 0.8) {
      const change = random.pick<Record<string, unknown>>([
        { amount: amount() },
        { description: `Adjusted ${reference()}` },
        { paymentReference: reference() },
        { counterpartyName: 'Renamed Counterparty', category: 'income' },
      ])
      await control('PATCH', `/_sandbox/transactions/${random.pick(transactions).id}`, change)
      return 'modify'
    }
    await control('DELETE', `/_sandbox/transactions/${random.pick(transactions).id}`)
    return 'remove'
  }

  return {
    counts,
    /** Adds, modifies, settles (pending → posted) or removes one transaction of the connection. */
    async transaction(connectionId: string): Promise<void> {
      counts[await transactionChange(connectionId)]++
    },
    /** Sends an active connection to reauthRequired, or brings a reauthRequired one back to active. */
    async toggleStatus(connectionId: string): Promise<void> {
      const connection = await bank.connections.get(connectionId)
      const status = connection.status === 'active' ? 'reauthRequired' : 'active'
      await control('POST', `/_sandbox/connections/${connectionId}/status`, { status })
      counts[status === 'active' ? 'reactivate' : 'reauthRequired']++
    },
    /**
     * The bank's own sync (new activity, pending lines settling or voided): moves the clock past the cooldown,
     * requests it through the API and lets it finish. A connection that cannot sync now is counted as refused.
     */
    async bankSync(connectionId: string): Promise<void> {
      const settings = sandbox.sandbox.ctx.settings
      await sandbox.sandbox.advance(settings.syncCooldownSeconds)
      try {
        await bank.connections.requestSync(connectionId)
        counts.bankSync++
      } catch (error) {
        if (!(error instanceof BankApiError)) throw error
        counts.bankSyncRefused++
      }
      await sandbox.sandbox.advance(settings.syncDurationSeconds)
    },
  }
}

export type BankChanges = ReturnType<typeof createBankChanges>
