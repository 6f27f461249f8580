import { setTimeout as delay } from 'node:timers/promises'
import { createRandom } from '../sandbox/index.js'
import type { SidecarContext } from '../sidecar/index.js'
import { connectDemoEntity } from './connect-demo-entity.js'
import {
  DEFAULT_DEMO_SEED,
  planDemoStory,
  type DemoPayment,
  type DemoPlan,
  type DemoStep,
} from './demo-plan.js'
import { loadDemoInvoices, readDemoInvoices } from './load-demo-invoices.js'
import { sandboxControl, type ControlAccount, type ControlTransaction } from './sandbox-control.js'

export type DemoContext = Pick<SidecarContext, 'bank' | 'store' | 'clock' | 'logger' | 'matching'>

export type DemoPace =
  /** Payments over time, as a payer would make them (npm start). */
  | { kind: 'live'; minDelayMs: number; maxDelayMs: number }
  /**
   * Every payment at once, then the settlements (bankrec demo). `beforeSettling` gets the ids of the pending
   * payments, so a caller can wait until they were seen pending before they post.
   */
  | { kind: 'fast'; beforeSettling?: (transactionIds: string[]) => Promise<void> }

export type DemoStoryOptions = {
  /** @defaultValue DEFAULT_DEMO_SEED */
  seed?: number
  pace: DemoPace
  signal?: AbortSignal
  /** One line per thing that happens, for a person watching. */
  say?: (line: string) => void
}

export type DemoRun = {
  connectionId: string
  plan: DemoPlan
  /** The bank's transaction id of each payment made so far, by payment key. */
  transactionIds: Map<string, string>
  invoices: { created: number; present: number }
}

/** The live pace of npm start: a payment every few seconds. */
export const LIVE_PACE: DemoPace = { kind: 'live', minDelayMs: 1500, maxDelayMs: 4500 }

/** The bank reference that marks a story payment in the bank, so a restarted story knows it was made. */
export function demoMarker(payment: DemoPayment): string {
  return `DEMO-${payment.key}`
}

/** The demo entity's id: the same for the same seed, so a restarted story finds its connection. */
export function demoEntityId(seed: number): string {
  return createRandom(seed).fork('demo-entity').uuid()
}

/** Payments go to the account in their currency, else to the operating (first USD checking) account. */
function accountFor(accounts: readonly ControlAccount[], currency: string): ControlAccount {
  const checking = accounts.filter((a) => a.type === 'checking')
  const account =
    checking.find((a) => a.currency === currency) ?? checking.find((a) => a.currency === 'USD') ?? accounts[0]
  if (!account) throw new Error('the demo connection has no accounts')
  return account
}

/**
 * The demo story in sandbox mode: connects the demo entity through the full setup flow, loads the fixture
 * invoices, then a payer pays them through the sandbox's control API (docs/demo.md). Everything it does is found
 * again in the bank and the store, so a run after a restart carries on where the last one stopped.
 */
export async function runDemoStory(context: DemoContext, options: DemoStoryOptions): Promise<DemoRun> {
  const sandbox = context.bank.sandbox
  if (!sandbox?.url) throw new Error('the demo story runs only in sandbox mode (BANK_API_URL unset)')
  const seed = options.seed ?? DEFAULT_DEMO_SEED
  const say = options.say ?? (() => undefined)
  const { signal } = options
  const connection = await connectDemoEntity(demoEntityId(seed), {
    client: context.bank.client,
    sandbox,
    signal,
    onStep: (step) => say(`demo: ${step}`),
  })
  say(`demo: entity ${connection.entityId} connected to ${connection.institutionName} (${connection.id})`)
  const invoices = await readDemoInvoices()
  const loaded = await loadDemoInvoices(context, invoices)
  say(`demo: ${loaded.created} invoices loaded, ${loaded.present} already there`)
  const plan = planDemoStory(invoices, seed)

  const control = sandboxControl(sandbox.url)
  const bank = await control.state(connection.id)
  const byMarker = new Map<string, ControlTransaction>()
  for (const transaction of bank.transactions)
    if (transaction.bankReference) byMarker.set(transaction.bankReference, transaction)
  const transactionIds = new Map<string, string>()
  for (const payment of plan.payments) {
    const made = byMarker.get(demoMarker(payment))
    if (made) transactionIds.set(payment.key, made.id)
  }
  const remaining = plan.steps.filter((step) => !isDone(step, byMarker))
  if (remaining.length < plan.steps.length)
    say(
      `demo: resuming: ${plan.steps.length - remaining.length} of ${plan.steps.length} steps were done before`,
    )

  const perform = async (step: DemoStep): Promise<void> => {
    signal?.throwIfAborted()
    const { payment } = step
    if (step.kind === 'settle') {
      await control.postTransaction(transactionIds.get(payment.key)!)
      say(`demo: ${payment.key} settled: ${payment.amount} ${payment.currency} is posted now`)
      return
    }
    const made = await control.addTransaction(connection.id, {
      accountId: accountFor(bank.accounts, payment.currency).id,
      amount: payment.amount,
      currency: payment.currency,
      status: payment.pendingFirst ? 'pending' : 'posted',
      rail: payment.rail,
      counterpartyName: payment.counterpartyName,
      bankReference: demoMarker(payment),
      paymentReference: payment.paymentReference,
      customerReference: payment.customerReference,
      ...(payment.description ? { description: payment.description } : {}),
    })
    transactionIds.set(payment.key, made.id)
    const pending = payment.pendingFirst ? ' (pending)' : ''
    say(
      `demo: ${payment.key} ${payment.counterpartyName} ${payment.label}: ${payment.amount} ${payment.currency}${pending}`,
    )
  }

  if (options.pace.kind === 'live') {
    const random = createRandom(seed).fork('demo-pace')
    const { minDelayMs, maxDelayMs } = options.pace
    for (const step of remaining) {
      await perform(step)
      // What the payer did is on disk before the next step: a crash cannot make the story pay twice.
      await sandbox.saveState()
      await delay(random.int(minDelayMs, maxDelayMs), undefined, { signal })
    }
  } else {
    for (const step of remaining) if (step.kind === 'pay') await perform(step)
    await sandbox.flushWebhooks()
    const settling = remaining.filter((step) => step.kind === 'settle')
    await options.pace.beforeSettling?.(settling.map((step) => transactionIds.get(step.payment.key)!))
    for (const step of settling) await perform(step)
    await sandbox.flushWebhooks()
  }
  return { connectionId: connection.id, plan, transactionIds, invoices: loaded }
}

function isDone(step: DemoStep, byMarker: ReadonlyMap<string, ControlTransaction>): boolean {
  const made = byMarker.get(demoMarker(step.payment))
  return step.kind === 'pay' ? made !== undefined : made?.status === 'posted'
}
