import type { Command } from 'commander'
import { openStore } from '../sidecar/index.js'
import { verifyAuditChain } from '../store/index.js'
import type { CommandIo } from './io.js'
import { prepareCommand } from './sidecar-command.js'
import { UsageCommand } from './usage-command.js'

/** `bankrec audit verify`: walks the hash chain. Exit 0 when intact, 1 with the first broken entry. */
export function auditCommand(io: CommandIo): Command {
  const audit = new UsageCommand('audit').description('The append-only, hash-chained audit log of matching')
  audit
    .command('verify')
    .description(
      'Recompute every entry of the audit log chain; exit 1 at the first entry that does not match',
    )
    .action(async () => {
      const { config, logger } = prepareCommand(io)
      const store = await openStore(config, logger)
      try {
        const result = await verifyAuditChain(store.db)
        if (result.ok) {
          io.stdout.write(`audit log intact: ${result.entries} entries\n`)
          return
        }
        io.stdout.write(`audit log broken at seq ${result.brokenSeq}: ${result.reason}\n`)
        throw Object.assign(new Error(`audit log broken at seq ${result.brokenSeq}`), { exitCode: 1 })
      } finally {
        await store.close()
      }
    })
  return audit
}
