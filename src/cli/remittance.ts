import { createReadStream } from 'node:fs'
import { access, open, readFile } from 'node:fs/promises'
import { Option, type Command } from 'commander'
import { systemClock } from '../clock/index.js'
import { importRefusalMessage } from '../csv-rows/index.js'
import { runMatching } from '../matching/index.js'
import {
  camt054Advice,
  importRemittance,
  looksLikeXml,
  ClosingRequestError,
  parseRemittanceCsv,
  type Camt054AdviceOf,
  type RemittanceAdvice,
} from '../closing/index.js'
import { controlsOf, matchConfigOf, openStore } from '../sidecar/index.js'
import { roleAllows } from '../users/index.js'
import { csvRowLine } from './csv-row-line.js'
import type { CommandIo } from './io.js'
import { prepareCommand } from './sidecar-command.js'
import { UsageCommand } from './usage-command.js'
import { cliActor } from './users.js'

const failure = (message: string, exitCode: number) => Object.assign(new Error(message), { exitCode })

type ImportOptions = {
  transaction: string
  feeReason?: 'bank_fee' | 'psp_fee'
  format?: 'csv' | 'camt054'
  entry?: string
}

/** The file's format as asked, else by its content: a document starting with `<` is camt.054. */
async function formatOf(file: string, asked: ImportOptions['format']): Promise<'csv' | 'camt054'> {
  if (asked) return asked
  const handle = await open(file)
  try {
    const { buffer, bytesRead } = await handle.read(Buffer.alloc(256), 0, 256, 0)
    return looksLikeXml(buffer.subarray(0, bytesRead).toString('utf8')) ? 'camt054' : 'csv'
  } finally {
    await handle.close()
  }
}

/** The problems of a refused request on stdout, and the failure to exit with. */
/** A refusal's details and message; exit 2 for a bad request unless `exitCode` says otherwise (a bad file is 1). */
function refused(io: CommandIo, error: unknown, exitCode?: number): never {
  if (!(error instanceof ClosingRequestError)) throw error
  for (const detail of error.details ?? []) io.stdout.write(`${detail.path}: ${detail.message}\n`)
  throw failure(error.message, exitCode ?? (error.kind === 'invalid' ? 2 : 1))
}

/** The advice in the file: a camt.054 notification (parsed whole), or CSV rows (streamed). */
async function readAdvice(
  io: CommandIo,
  file: string,
  options: ImportOptions,
): Promise<RemittanceAdvice | Camt054AdviceOf> {
  if ((await formatOf(file, options.format)) === 'camt054') {
    const xml = await readFile(file, 'utf8')
    try {
      return await camt054Advice(xml, { feeReason: options.feeReason, entry: options.entry })
    } catch (error) {
      return refused(io, error, 1)
    }
  }
  const parsed = await parseRemittanceCsv(createReadStream(file), options.feeReason)
  if (!parsed.ok) {
    for (const row of parsed.errors) io.stdout.write(csvRowLine(row))
    throw failure(importRefusalMessage(parsed), 1)
  }
  if (parsed.advice.lines.length === 0) throw failure(`${file} has no invoiceNumber,amount rows`, 1)
  return parsed.advice
}

async function importFile(io: CommandIo, file: string, options: ImportOptions): Promise<void> {
  await access(file).catch((error: NodeJS.ErrnoException) => {
    throw failure(`cannot read ${file}: ${error.code ?? error.message}`, 2)
  })
  const { config, logger } = prepareCommand(io)
  const store = await openStore(config, logger)
  try {
    const actor = await cliActor(config, store)
    if (!roleAllows(actor.role, 'clerk'))
      throw failure(`importing an advice needs the clerk role; ${actor.name} is a ${actor.role}`, 1)
    const advice = await readAdvice(io, file, options)
    const matchConfig = matchConfigOf(config)
    const result = await importRemittance(
      {
        db: store.db,
        lockNamespace: store.schema,
        now: systemClock.now(),
        actor,
        config: matchConfig,
        controls: controlsOf(config),
      },
      options.transaction,
      advice,
    ).catch((error: unknown) => refused(io, error))
    // Like the API: the matches take effect through a matching run before the answer.
    await runMatching({
      db: store.db,
      lockNamespace: store.schema,
      clock: systemClock,
      logger,
      config: matchConfig,
      autoApply: config.MATCH_AUTO_APPLY,
    })
    if (result.status === 'pending_approval') {
      io.stdout.write(
        `remittance import ${result.importId} of ${options.transaction} waits for an approver: ` +
          `${result.writeOff} to write off (nothing applied yet)\n`,
      )
      return
    }
    for (const match of result.matches) {
      const writeOff = match.writeOff ? `, ${match.writeOff} written off` : ''
      io.stdout.write(`invoice ${match.invoiceId}: ${match.amount}${writeOff}\n`)
    }
    io.stdout.write(
      `settled transaction ${options.transaction} from ${file}: ${result.matches.length} invoices, ` +
        `${result.writeOff} written off (difference ${result.difference})\n`,
    )
  } finally {
    await store.close()
  }
}

/**
 * `bankrec remittance import --transaction ID FILE.csv|FILE.xml`: settles a bank line by its remittance advice (as POST
 * /api/transactions/{id}/remittance does). Exit 0 settled, 1 refused (bad rows, lines or an advice that does not
 * add up: nothing applied), 2 usage.
 */
export function remittanceCommand(io: CommandIo): Command {
  const remittance = new UsageCommand('remittance').description(
    'Settle a lump-sum bank line (payout, lockbox deposit) by its remittance advice',
  )
  remittance
    .command('import')
    .description(
      'Import a remittance advice or payout report (CSV invoiceNumber, amount, optional fee; or a camt.054 ' +
        'notification, its payments named by their references) against a bank line: ' +
        'its invoices less the fee must be the line’s amount (or short of it within the fee tolerance); then ' +
        'each invoice is matched and the fee written off, otherwise nothing is applied',
    )
    .requiredOption('--transaction <id>', 'the bank line (transaction id)')
    .addOption(
      new Option('--fee-reason <reason>', 'what the fee is booked as').choices(['bank_fee', 'psp_fee']),
    )
    .addOption(
      new Option(
        '--format <format>',
        'the file’s format (default: camt054 when it is XML, else csv)',
      ).choices(['csv', 'camt054']),
    )
    .option('--entry <ref>', 'camt.054: the entry (NtryRef or AcctSvcrRef) when several fit the bank line')
    .argument('<file>', 'the CSV file (UTF-8, header row first) or camt.054 XML notification')
    .action(async (file: string, options: ImportOptions) => importFile(io, file, options))
  return remittance
}
