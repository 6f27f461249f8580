import { randomUUID } from 'node:crypto'
import type { Connection } from '../../src/api-client/index.js'
import type { OpenBank } from '../../src/sidecar/index.js'

/**
 * Onboards a catalog bank through a sandbox-mode sidecar's client (create → credentials → setupCompletion),
 * advances the sandbox past activation and its initial sync, and delivers the webhooks that followed.
 */
export async function onboardSandboxConnection(
  bank: OpenBank,
  entityId: string = randomUUID(),
): Promise<Connection> {
  const { client, sandbox } = bank
  if (!sandbox) throw new Error('onboardSandboxConnection needs a sidecar in sandbox mode')
  const created = await client.connections.create({ entityId, institutionId: 'ins_harbor_national' })
  await client.connections.submitCredentials(created.id, {
    bankUsername: 'delegate',
    password: 'correct horse',
  })
  await client.connections.completeSetup(created.id)
  await sandbox.advance(60)
  await sandbox.flushWebhooks()
  return created
}

/** Onboards a connection as above and answers the id of its USD checking account (what transfers move from). */
export async function onboardUsdCheckingAccount(bank: OpenBank): Promise<string> {
  const connection = await onboardSandboxConnection(bank)
  const accounts = await bank.client.accounts.list({ connectionId: connection.id })
  const checking = accounts.data.find((a) => a.currency === 'USD' && a.type === 'checking')
  if (!checking) throw new Error(`connection ${connection.id} has no USD checking account`)
  return checking.id
}
