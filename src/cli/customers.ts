import { createReadStream } from 'node:fs'
import { stat } from 'node:fs/promises'
import type { Command } from 'commander'
import { systemClock } from '../clock/index.js'
import { importRefusalMessage } from '../csv-rows/index.js'
import { CUSTOMER_CSV_COLUMNS, createCustomers, type Customer } from '../customers/index.js'
import { openStore } from '../sidecar/index.js'
import { csvRowLine } from './csv-row-line.js'
import type { CommandIo } from './io.js'
import { prepareCommand } from './sidecar-command.js'
import { UsageCommand } from './usage-command.js'

async function readableSize(file: string): Promise<number> {
  return stat(file).then(
    (info) => info.size,
    (error: NodeJS.ErrnoException) => {
      throw Object.assign(new Error(`cannot read ${file}: ${error.code ?? error.message}`), { exitCode: 2 })
    },
  )
}

async function withCustomers<T>(
  io: CommandIo,
  run: (customers: ReturnType<typeof createCustomers>) => Promise<T>,
) {
  const { config, logger } = prepareCommand(io)
  const store = await openStore(config, logger)
  try {
    // No sidecar runs here: changed customers queue their payers' payments in the write's transaction, and a
    // running worker matches them on its next scheduled run.
    return await run(createCustomers({ store, clock: systemClock }))
  } finally {
    await store.close()
  }
}

async function importFile(io: CommandIo, file: string): Promise<void> {
  await readableSize(file)
  await withCustomers(io, async (customers) => {
    const result = await customers.import(createReadStream(file))
    if (!result.ok) {
      for (const row of result.errors) io.stdout.write(csvRowLine(row))
      throw Object.assign(new Error(importRefusalMessage(result)), { exitCode: 1 })
    }
    io.stdout.write(
      `imported ${result.rows} customers from ${file}: ${result.created} created, ${result.updated} updated, ` +
        `${result.unchanged} unchanged\n`,
    )
  })
}

function customerLine(customer: Customer): string {
  const learned = customer.learned.length > 0 ? `, ${customer.learned.length} learned` : ''
  return `${customer.id}\t${customer.name}\t${customer.bankAccounts.length} accounts${learned}\n`
}

async function list(io: CommandIo, options: { name?: string; json?: boolean }): Promise<void> {
  await withCustomers(io, async (customers) => {
    let cursor: string | undefined
    do {
      const page = await customers.list({ name: options.name, cursor, limit: 500 })
      for (const customer of page.data) {
        io.stdout.write(options.json ? `${JSON.stringify(customer)}\n` : customerLine(customer))
      }
      cursor = page.pagination.nextCursor ?? undefined
    } while (cursor)
  })
}

/** `bankrec customers import FILE.csv` (all or nothing; exit 0 imported, 1 bad rows, 2 usage) and `list`. */
export function customersCommand(io: CommandIo): Command {
  const customers = new UsageCommand('customers').description(
    'Manage the customer master payers are recognised by',
  )
  customers
    .command('import')
    .description(
      `Import customers from a CSV file (${CUSTOMER_CSV_COLUMNS.join(', ')}; aliases and bank accounts separated ` +
        'by |): every row is valid and all are imported, or none is and the first 100 bad rows are listed',
    )
    .argument('<file>', 'the CSV file, UTF-8, header row first')
    .action(async (file: string) => importFile(io, file))
  customers
    .command('list')
    .description(
      'List customers with their bank accounts and what matches taught (one per line, or JSON lines)',
    )
    .option(
      '--name <text>',
      'only customers with this name or alias (compared as payer names are: accents, legal forms, connectors)',
    )
    .option('--json', 'one JSON object per line')
    .action(async (options: { name?: string; json?: boolean }) => list(io, options))
  return customers
}
