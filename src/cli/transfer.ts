import { Command } from 'commander'
import { createBankClient } from '../api-client/index.js'
import { systemClock } from '../clock/index.js'
import { openStore } from '../sidecar/index.js'
import {
  createTransfer,
  retryTransfer,
  type TransferContext,
  type TransferRecord,
} from '../transfers/index.js'
import type { CommandIo } from './io.js'
import { prepareCommand } from './sidecar-command.js'

function usageError(message: string): Error {
  return Object.assign(new Error(message), { exitCode: 2 })
}

function describeTransfer(transfer: TransferRecord): string {
  const bank = transfer.bankTransferId ? `bank transfer ${transfer.bankTransferId}` : 'no bank transfer yet'
  return (
    `transfer ${transfer.id}: ${transfer.status} (${bank}), ${transfer.amount.value} ${transfer.amount.currency} ` +
    `reference ${transfer.clientReference}, idempotency key ${transfer.idempotencyKey}\n`
  )
}

/**
 * Opens the store and the bank for one transfer operation. The bank must be BANK_API_URL: a sandbox started
 * inside this short-lived command would be a bank of its own, without the accounts of the running sidecar.
 */
async function withTransferContext<T>(io: CommandIo, run: (ctx: TransferContext) => Promise<T>): Promise<T> {
  const { config, logger } = prepareCommand(io)
  if (!config.BANK_API_URL) {
    throw usageError(
      'bankrec transfer calls the bank directly: set BANK_API_URL and BANK_API_KEY (for a local sandbox, the URL ' +
        'and key `bankrec sandbox` prints), or use POST /api/transfers of a running sidecar.',
    )
  }
  const client = createBankClient({ baseUrl: config.BANK_API_URL, apiKey: config.BANK_API_KEY! })
  const store = await openStore(config, logger)
  try {
    return await run({ db: store.db, client, clock: systemClock, logger })
  } finally {
    await store.close()
  }
}

function print(io: CommandIo, transfer: TransferRecord, json: boolean): void {
  io.stdout.write(json ? `${JSON.stringify(transfer, null, 2)}\n` : describeTransfer(transfer))
}

/**
 * `bankrec transfer create|retry`: the same calls as POST /api/transfers and POST /api/transfers/{id}/retry. The
 * request and its idempotency key are stored before the bank is called; a running worker tracks the outcome.
 */
export function transferCommand(io: CommandIo): Command {
  const create = new Command('create')
    .description('Create an internal transfer between two connected accounts')
    .requiredOption('--from <accountId>', 'source account id')
    .requiredOption('--to <accountId>', 'destination account id')
    .requiredOption('--amount <decimal>', 'amount, e.g. 12.34')
    .requiredOption('--currency <code>', 'currency, e.g. USD')
    .requiredOption('--reference <text>', 'clientReference sent with the payment (1–140 characters)')
    .option('--memo <text>', 'memo (up to 500 characters)')
    .option(
      '--idempotency-key <key>',
      'your key for this request; repeat it to retry without a second transfer',
    )
    .option('--json', 'print the whole record as JSON', false)
    .action(
      async (options: {
        from: string
        to: string
        amount: string
        currency: string
        reference: string
        memo?: string
        idempotencyKey?: string
        json: boolean
      }) => {
        const result = await withTransferContext(io, (ctx) =>
          createTransfer(
            ctx,
            {
              type: 'internal',
              amount: { type: 'money', value: options.amount, currency: options.currency },
              sourceAccountId: options.from,
              destination: { type: 'account', accountId: options.to },
              transferType: 'internal',
              clientReference: options.reference,
              ...(options.memo === undefined ? {} : { memo: options.memo }),
            },
            { idempotencyKey: options.idempotencyKey },
          ),
        )
        if (result.replayed && !options.json) io.stdout.write('this idempotency key was already used: ')
        print(io, result.transfer, options.json)
      },
    )
  const retry = new Command('retry')
    .description(
      'Retry a failed or returned transfer with a new idempotency key, or resume a request the bank never ' +
        'answered with its stored key',
    )
    .argument('<id>', "bankrec's transfer id or the bank's")
    .option('--json', 'print the whole record as JSON', false)
    .action(async (id: string, options: { json: boolean }) => {
      const transfer = await withTransferContext(io, (ctx) => retryTransfer(ctx, id))
      print(io, transfer, options.json)
    })
  return new Command('transfer')
    .description('Create and retry transfers; the key is stored before the bank is called')
    .addCommand(create)
    .addCommand(retry)
}
