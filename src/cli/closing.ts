import { Option, type Command } from 'commander'
import { systemClock } from '../clock/index.js'
import { DomainError } from '../errors/index.js'
import { runMatching } from '../matching/index.js'
import {
  DispositionRequestSchema,
  InvoiceWriteOffRequestSchema,
  INVOICE_WRITE_OFF_REASONS,
  presentDisposition,
  decideDisposition,
  disposeException,
  giveBackTransaction,
  undoDisposition,
  writeOffInvoice,
} from '../closing/index.js'
import { type DispositionKind } from '../matcher/index.js'
import { controlsOf, matchConfigOf, openStore, type OpenStore } from '../sidecar/index.js'
import { listDispositions, type DispositionRow } from '../store/index.js'
import { roleAllows, type Actor } from '../users/index.js'
import type { BankrecEnv } from '../config/index.js'
import type { Logger } from '../observability/index.js'
import type { CommandIo } from './io.js'
import { prepareCommand } from './sidecar-command.js'
import { cliActor } from './users.js'
import { UsageCommand } from './usage-command.js'

const failure = (message: string, exitCode: number) => Object.assign(new Error(message), { exitCode })

const DISPOSITION_KINDS: DispositionKind[] = ['write_off', 'clearing', 'refund', 'on_account', 'ignore']
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
const STATUSES = ['pending_approval', 'active', 'declined', 'undone']
const DISPOSITION_ID = /^\d{1,18}$/

type Session = { config: BankrecEnv; logger: Logger; store: OpenStore; actor: Actor }

/**
 * Opens the store and runs one closing action as the CLI's actor (BANKREC_USER_TOKEN's user, else the built-in
 * admin), who must be a clerk; the engine then matches what the action changed, as the sidecar does after it.
 * A refusal of the library exits 1 with its message (2 when the input itself was bad).
 */
async function asClerk<T>(io: CommandIo, run: (session: Session) => Promise<T>): Promise<T> {
  const { config, logger } = prepareCommand(io)
  const store = await openStore(config, logger)
  try {
    const actor = await cliActor(config, store)
    if (!roleAllows(actor.role, 'clerk')) {
      throw failure(`closing actions need the clerk role; ${actor.name} is a ${actor.role}`, 1)
    }
    const result = await run({ config, logger, store, actor })
    await runMatching({
      db: store.db,
      lockNamespace: store.schema,
      clock: systemClock,
      logger,
      config: matchConfigOf(config),
      autoApply: config.MATCH_AUTO_APPLY,
    })
    return result
  } catch (error) {
    if (error instanceof DomainError) {
      throw failure(`${error.code}: ${error.message}`, error.kind === 'invalid' ? 2 : 1)
    }
    throw error
  } finally {
    await store.close()
  }
}

const personDeps = ({ store, actor, config }: Session) => ({
  db: store.db,
  lockNamespace: store.schema,
  now: systemClock.now(),
  actor,
  controls: controlsOf(config),
})

function describe(row: ReturnType<typeof presentDisposition>): string {
  return (
    [
      row.id,
      row.status,
      row.kind,
      `${row.amount} ${row.currency}`,
      row.account,
      row.exceptionKey ?? `invoice:${row.invoiceId}`,
      row.madeBy,
    ].join('\t') + `\t${row.reason}\n`
  )
}

/** `bankrec dispositions list`: the dispositions, newest first (GET /api/dispositions). */
export function dispositionsCommand(io: CommandIo): Command {
  const command = new UsageCommand('dispositions').description(
    'Dispositions of what exceptions hold of payments (docs/closing.md)',
  )
  command
    .command('list')
    .description(
      'List dispositions, newest first: id, status, kind, amount, account, exception (invoice:ID for a ' +
        'write-off of an invoice’s rest), maker, reason',
    )
    .addOption(new Option('--status <status>', 'only those in this status').choices(STATUSES))
    .option('--transaction <id>', 'only those of this payment')
    .option('--invoice <id>', 'only the write-offs of this invoice’s rest')
    .option('--limit <count>', 'how many (1–1000, default 100)', (value) => Number(value), 100)
    .option('--json', 'one JSON object per line, as the API answers')
    .action(
      async (options: {
        status?: string
        transaction?: string
        invoice?: string
        limit: number
        json?: boolean
      }) => {
        if (options.transaction !== undefined && !UUID.test(options.transaction)) {
          throw failure('--transaction must be a transaction id (a UUID)', 2)
        }
        if (!Number.isInteger(options.limit) || options.limit < 1 || options.limit > 1000) {
          throw failure('--limit must be a whole number from 1 to 1000', 2)
        }
        const { config, logger } = prepareCommand(io)
        const store = await openStore(config, logger)
        try {
          const rows = await listDispositions(
            store.db,
            {
              status: options.status as DispositionRow['status'] | undefined,
              transactionId: options.transaction,
              invoiceId: options.invoice,
            },
            null,
            options.limit,
          )
          for (const row of rows.map(presentDisposition)) {
            io.stdout.write(options.json ? `${JSON.stringify(row)}\n` : describe(row))
          }
        } finally {
          await store.close()
        }
      },
    )
  for (const decision of ['approve', 'decline'] as const) {
    const sub = command
      .command(decision)
      .description(
        decision === 'approve'
          ? 'Approve a disposition waiting for approval: a second named person (BANKREC_USER_TOKEN) with the approver role puts it in force'
          : 'Decline a disposition waiting for approval (an approver, or its maker withdrawing it; BANKREC_USER_TOKEN)',
      )
      .argument('<id>', 'the disposition id (dispositions list)')
    if (decision === 'decline') sub.option('--note <text>', 'why, for the audit log (up to 500 characters)')
    sub.action(async (id: string, options: { note?: string }) => {
      if (!DISPOSITION_ID.test(id)) throw failure(`disposition id ${JSON.stringify(id)} is not a number`, 2)
      if ((options.note ?? '').length > 500) throw failure('--note: at most 500 characters', 2)
      const row = await asClerk(io, (session) => {
        // A decision is a named person's: the built-in admin is whoever holds KIT_API_TOKEN (issue 26).
        if (session.actor.kind === 'token') {
          throw failure(
            `${decision === 'approve' ? 'approving' : 'declining'} needs a named user: set BANKREC_USER_TOKEN to your user's token (bankrec users add)`,
            1,
          )
        }
        return decideDisposition(personDeps(session), id, decision, options.note?.trim() || undefined)
      })
      io.stdout.write(
        `disposition ${row.id} ${row.status === 'active' ? 'approved' : 'declined'}: ${summary(row)}\n`,
      )
    })
  }
  command
    .command('undo')
    .description(
      'Undo a disposition in force (its amount is open again) or withdraw one waiting for approval',
    )
    .argument('<id>', 'the disposition id (dispositions list)')
    .action(async (id: string) => {
      if (!DISPOSITION_ID.test(id)) throw failure(`disposition id ${JSON.stringify(id)} is not a number`, 2)
      const row = await asClerk(io, (session) => undoDisposition(personDeps(session), id))
      io.stdout.write(
        `disposition ${row.id} ${row.status === 'undone' ? 'undone' : 'withdrawn'}: ${summary(row)}\n`,
      )
    })
  return command
}

/** What a disposition did, in one line. */
function summary(row: DispositionRow): string {
  const of = row.invoice_id === null ? '' : ` of invoice ${row.invoice_id}`
  return `${row.kind} ${row.amount} ${row.currency}${of} to ${row.account}`
}

/**
 * `bankrec invoices write-off ID --reason R [--amount A] [--account X] [--note N]` (POST
 * /api/invoices/{id}/write-off): a person writes off (part of) an invoice's open rest.
 */
export function invoiceWriteOffCommand(io: CommandIo): Command {
  return new UsageCommand('write-off')
    .description(
      'Write off (part of) an invoice’s open rest; when the approval policy says so it waits for an approver',
    )
    .argument('<id>', 'the invoice id')
    .addOption(
      new Option('--reason <reason>', 'why').choices(INVOICE_WRITE_OFF_REASONS).makeOptionMandatory(),
    )
    .option('--amount <amount>', 'how much (a decimal; default: the whole open rest)')
    .option('--account <account>', 'the ledger account (default: MATCH_WRITE_OFF_ACCOUNT(S) for the reason)')
    .option('--note <text>', 'a note (up to 500 characters)')
    .action(
      async (id: string, options: { reason: string; amount?: string; account?: string; note?: string }) => {
        const parsed = InvoiceWriteOffRequestSchema.safeParse(options)
        if (!parsed.success) {
          throw failure(parsed.error.issues.map((i) => `--${i.path.join('.')}: ${i.message}`).join('; '), 2)
        }
        const row = await asClerk(io, (session) =>
          writeOffInvoice({ ...personDeps(session), config: matchConfigOf(session.config) }, id, parsed.data),
        )
        io.stdout.write(
          row.status === 'pending_approval'
            ? `write-off ${row.id} waits for an approver (${row.amount} ${row.currency} of invoice ${id})\n`
            : `write-off ${row.id}: ${row.amount} ${row.currency} of invoice ${id} to ${row.account} (${row.reason})\n`,
        )
      },
    )
}

/** `bankrec exceptions dispose KEY --as KIND --reason TEXT [--account A]` (POST /api/exceptions/{key}/dispose). */
export function exceptionsCommand(io: CommandIo): Command {
  const command = new UsageCommand('exceptions').description(
    'Close what open exceptions hold (docs/closing.md)',
  )
  command
    .command('dispose')
    .description(
      'Dispose of the amount an open exception holds of a payment; when the approval policy says so it waits for an approver',
    )
    .argument('<key>', 'the exception key (GET /api/exceptions, the dashboard)')
    .addOption(
      new Option('--as <kind>', 'what happens to the amount')
        .choices(DISPOSITION_KINDS)
        .makeOptionMandatory(),
    )
    .requiredOption('--reason <text>', 'why (up to 500 characters)')
    .option(
      '--account <account>',
      'an account of the chart for the kind (LEDGER_ACCOUNTS; default its first)',
    )
    .option('--customer <id>', 'on_account: whose credit it is')
    .action(
      async (key: string, options: { as: string; reason: string; account?: string; customer?: string }) => {
        const parsed = DispositionRequestSchema.safeParse({
          kind: options.as,
          reason: options.reason,
          account: options.account,
          customerId: options.customer,
        })
        if (!parsed.success) {
          throw failure(parsed.error.issues.map((i) => `--${i.path.join('.')}: ${i.message}`).join('; '), 2)
        }
        const row = await asClerk(io, (session) => disposeException(personDeps(session), key, parsed.data))
        io.stdout.write(
          row.status === 'pending_approval'
            ? `disposition ${row.id} waits for an approver (${row.kind} ${row.amount} ${row.currency})\n`
            : `disposition ${row.id}: ${row.kind} ${row.amount} ${row.currency} to ${row.account}\n`,
        )
      },
    )
  return command
}

/** `bankrec transactions give-back ID` (POST /api/transactions/{id}/give-back). */
export function transactionsCommand(io: CommandIo): Command {
  const command = new UsageCommand('transactions').description(
    'Payments a person has taken over (docs/closing.md)',
  )
  command
    .command('give-back')
    .description("Remove every person's match of a payment: the engine matches it again")
    .argument('<id>', 'the transaction id')
    .action(async (id: string) => {
      if (!UUID.test(id)) throw failure(`transaction id ${JSON.stringify(id)} is not a UUID`, 2)
      const done = await asClerk(io, (session) => giveBackTransaction(personDeps(session), id))
      io.stdout.write(`gave ${id} back to the engine: ${done.removed} person's matches removed\n`)
    })
  return command
}
