import { createReadStream } from 'node:fs'
import { stat } from 'node:fs/promises'
import cliProgress from 'cli-progress'
import type { Command } from 'commander'
import { systemClock } from '../clock/index.js'
import { importRefusalMessage } from '../csv-rows/index.js'
import { createInvoices } from '../invoices/index.js'
import { openStore } from '../sidecar/index.js'
import { enqueueMatches } from '../store/index.js'
import { csvRowLine } from './csv-row-line.js'
import type { CommandIo } from './io.js'
import { invoiceWriteOffCommand } from './closing.js'
import { prepareCommand } from './sidecar-command.js'
import { UsageCommand } from './usage-command.js'

/** A progress report per phase: a bar on a terminal, a line per tenth otherwise (logs, CI). */
type Progress = { update(done: number): void; stop(): void }

function progress(io: CommandIo, label: string, total: number, unit: string): Progress {
  if (io.isTerminal) {
    const bar = new cliProgress.SingleBar(
      {
        stream: io.stderr as NodeJS.WritableStream & { isTTY: boolean },
        format: `${label.padEnd(9)} [{bar}] {percentage}% | {value}/{total} ${unit}`,
        hideCursor: true,
        clearOnComplete: false,
      },
      cliProgress.Presets.shades_classic,
    )
    bar.start(total, 0)
    return { update: (done) => bar.update(done), stop: () => bar.stop() }
  }
  let reported = -1
  return {
    update(done) {
      const tenth = total === 0 ? 10 : Math.floor((done / total) * 10)
      if (tenth <= reported) return
      reported = tenth
      io.stderr.write(`${label}: ${tenth * 10}% (${done} of ${total} ${unit})\n`)
    },
    stop: () => undefined,
  }
}

async function importFile(io: CommandIo, file: string): Promise<void> {
  const size = await stat(file).then(
    (info) => info.size,
    (error: NodeJS.ErrnoException) => {
      throw Object.assign(new Error(`cannot read ${file}: ${error.code ?? error.message}`), { exitCode: 2 })
    },
  )
  const { config, logger } = prepareCommand(io)
  const store = await openStore(config, logger)
  try {
    // No sidecar runs in this command: the written ids go to the matching outbox in the import's transaction,
    // and a running worker matches them on its next scheduled run.
    const invoices = createInvoices({
      store,
      clock: systemClock,
      logger,
      matching: { invoicesWritten: (trx, ids) => enqueueMatches(trx, 'invoice', ids) },
    })
    const checking = progress(io, 'checking', size, 'bytes')
    let writing: Progress | undefined
    const result = await invoices
      .import(createReadStream(file), {
        onBytes: (bytes) => checking.update(bytes),
        onWritten: (written, total) => {
          if (!writing) {
            checking.stop()
            writing = progress(io, 'importing', total, 'invoices')
          }
          writing.update(written)
        },
      })
      .finally(() => {
        checking.stop()
        writing?.stop()
      })
    if (!result.ok) {
      for (const row of result.errors) io.stdout.write(csvRowLine(row))
      throw Object.assign(new Error(importRefusalMessage(result)), { exitCode: 1 })
    }
    io.stdout.write(
      `imported ${result.rows} invoices from ${file}: ${result.created} created, ${result.updated} updated, ` +
        `${result.unchanged} unchanged\n`,
    )
  } finally {
    await store.close()
  }
}

/** `bankrec invoices import FILE.csv`: all or nothing; exit 0 imported, 1 bad rows (the first 100 listed), 2 usage. */
export function invoicesCommand(io: CommandIo): Command {
  const invoices = new UsageCommand('invoices').description('Manage the invoices payments are matched to')
  invoices
    .command('import')
    .description(
      'Import invoices from a CSV file (id, number, amount, currency, customerName, customerAliases, issueDate, ' +
        'dueDate, entityId, accountId, metadata): every row is valid and all are imported, or none is and the ' +
        'first 100 bad rows are listed with their reasons',
    )
    .argument('<file>', 'the CSV file, UTF-8, header row first')
    .action(async (file: string) => importFile(io, file))
  invoices.addCommand(invoiceWriteOffCommand(io))
  return invoices
}
