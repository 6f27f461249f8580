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
