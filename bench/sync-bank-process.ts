/**
 * The simulated bank of `bench:sync`, in a process of its own so that the bench's process measures the mirror:
 * the sandbox holds every transaction in its heap (about 2.4 GB at 1,000,000), and a real bank is not in the
 * sidecar's process either. Started by bench/sync.ts with `fork`; answers its requests over IPC.
 */
import { randomUUID } from 'node:crypto'
import { createBankClient, type Transaction } from '../src/api-client/index.js'
import { createVirtualClock } from '../src/clock/index.js'
import { createSandbox } from '../src/sandbox/index.js'
import { addTransaction } from '../src/sandbox/ledger.js'

export type BankRequest =
  | { id: number; kind: 'ready' }
  | { id: number; kind: 'seed'; count: number }
  | { id: number; kind: 'transactions'; from: number; to: number }
  | { id: number; kind: 'cpu' }
export type BankAnswer =
  | { id: number; kind: 'ready'; url: string; apiKey: string; connectionId: string; accountId: string }
  | { id: number; kind: 'seeded'; seconds: number }
  | { id: number; kind: 'transactions'; rows: Array<{ transaction: Transaction; eventId: string }> }
  | { id: number; kind: 'cpu'; seconds: number }
  | { id: number; kind: 'failed'; message: string }

const clock = createVirtualClock({ start: new Date('2026-03-02T09:00:00Z'), followRealTime: false })
const sandbox = createSandbox({ clock, scheduledSyncIntervalSeconds: 0 })
const url = await sandbox.listen({ port: 0, host: '127.0.0.1' })
const client = createBankClient({ baseUrl: url, apiKey: sandbox.apiKey })
let connection: { id: string; accountId: string } | undefined
const seeded: string[] = []

async function readyConnection(): Promise<{ id: string; accountId: string }> {
  const created = await client.connections.create({
    entityId: randomUUID(),
    institutionId: 'ins_harbor_national',
  })
  await client.connections.submitCredentials(created.id, { bankUsername: 'delegate', password: 'bench' })
  await client.connections.completeSetup(created.id)
  await sandbox.advance(sandbox.ctx.settings.activationSeconds + sandbox.ctx.settings.syncDurationSeconds)
  const accounts = await client.accounts.list({ connectionId: created.id })
  return { id: created.id, accountId: accounts.data[0]!.id }
}

/** N new transactions at the bank, straight into the ledger (no webhooks: the bench drives the sync). */
function seed(count: number): void {
  if (!connection) throw new Error('seed before ready')
  for (let n = 0; n < count; n++) {
    const i = seeded.length
    const id = randomUUID()
    const cents = (i % 100_000) + 1
    addTransaction(
      sandbox.ctx,
      {
        id,
        connectionId: connection.id,
        accountId: connection.accountId,
        postedDate: `2026-0${1 + (i % 2)}-${String(1 + (i % 28)).padStart(2, '0')}`,
        amount: `${i % 3 === 0 ? '-' : ''}${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`,
        currency: 'USD',
        description: `Bench payment ${i}, "quoted"`,
        rawDescription: `ACH CREDIT BENCH ${i}`,
        customerReference: `CUST-${i}`,
        bankReference: `BR${i}`,
        paymentReference: `INV-${100_000 + i}`,
        baiCode: '195',
        category: 'income',
        subcategory: 'invoice',
        mcc: null,
        merchantName: null,
        counterpartyName: 'Bench Customer Ltd',
        counterpartyAccountMasked: '••4321',
        status: i % 10 === 0 ? 'pending' : 'posted',
        entryType: i % 3 === 0 ? 'debit' : 'credit',
        rail: 'ach',
      },
      { notify: false },
    )
    seeded.push(id)
  }
}

/** The seeded transactions from..to as the bank presents them, for the baseline's upserts. */
function seededTransactions(from: number, to: number): Array<{ transaction: Transaction; eventId: string }> {
  return seeded.slice(from, to).map((id) => {
    const { orgId, entityId, createdSeq, seq, eventId, eventAt, ...transaction } =
      sandbox.ctx.state.transactions.get(id)!
    void [orgId, entityId, createdSeq, seq, eventAt]
    return { transaction: transaction as Transaction, eventId }
  })
}

async function answer(request: BankRequest): Promise<BankAnswer> {
  switch (request.kind) {
    case 'ready':
      connection = await readyConnection()
      return {
        id: request.id,
        kind: 'ready',
        url,
        apiKey: sandbox.apiKey,
        connectionId: connection.id,
        accountId: connection.accountId,
      }
    case 'seed': {
      const started = Date.now()
      seed(request.count)
      return { id: request.id, kind: 'seeded', seconds: (Date.now() - started) / 1000 }
    }
    case 'transactions':
      return { id: request.id, kind: 'transactions', rows: seededTransactions(request.from, request.to) }
    case 'cpu': {
      const used = process.cpuUsage()
      return { id: request.id, kind: 'cpu', seconds: (used.user + used.system) / 1e6 }
    }
  }
}

process.on('message', (request: BankRequest) => {
  answer(request)
    .catch((error: unknown): BankAnswer => ({ id: request.id, kind: 'failed', message: String(error) }))
    .then((reply) => process.send!(reply))
})
process.on('disconnect', () => {
  void sandbox.close().finally(() => process.exit(0))
})
