import type { BankClient, Connection } from '../api-client/index.js'
import type { Sandbox } from '../sandbox/index.js'

export const DEMO_INSTITUTION = 'ins_harbor_national'
/** The delegated user's bank password in the story; any but the sandbox's rejected one works. */
const DEMO_PASSWORD = 'demo-delegate-password'
/** Setup steps tried before giving up: create, credentials, completion, then the waits for activation. */
const MAX_SETUP_ROUNDS = 20

export type ConnectDeps = {
  client: BankClient
  sandbox: Sandbox
  signal?: AbortSignal
  onStep?: (step: string) => void
}

/**
 * Connects the demo entity through the full setup flow of the seed, resuming wherever a previous run left it:
 * create (or find) the connection, submit the delegated user's credentials, mark setup complete, then let the
 * bank's clock run until the connection is kind=ready and active (the sandbox activates it, then runs the
 * initial sync).
 */
export async function connectDemoEntity(entityId: string, deps: ConnectDeps): Promise<Connection> {
  const { client, sandbox } = deps
  const step = deps.onStep ?? (() => undefined)
  const existing = await client.connections.list({ entityId })
  let connection: Connection =
    existing.data[0] ?? (await client.connections.create({ entityId, institutionId: DEMO_INSTITUTION }))
  if (!existing.data[0]) step(`created connection ${connection.id} (kind=${connection.kind})`)
  for (let round = 0; round < MAX_SETUP_ROUNDS; round++) {
    deps.signal?.throwIfAborted()
    if (connection.kind === 'ready') {
      if (connection.status === 'active' && connection.syncStatus === 'idle') return connection
      if (connection.status !== 'active') {
        throw new Error(
          `the demo connection ${connection.id} is ${connection.status}: ${connection.errorMessage}`,
        )
      }
      await sandbox.advance(sandbox.ctx.settings.syncDurationSeconds)
    } else if (!connection.setup.credentialsPresent) {
      connection = await client.connections.submitCredentials(connection.id, {
        bankUsername: connection.setup.instructions.username,
        password: DEMO_PASSWORD,
      })
      step('submitted the delegated user’s credentials')
      continue
    } else if (connection.status === 'draft') {
      connection = await client.connections.completeSetup(connection.id)
      step(`marked setup complete (status ${connection.status})`)
      continue
    } else if (connection.status === 'pendingActivation') {
      await sandbox.advance(sandbox.ctx.settings.activationSeconds)
    } else {
      throw new Error(`the demo connection ${connection.id} is stuck in setup: ${connection.status}`)
    }
    const wasSetup = connection.kind === 'setup'
    connection = await client.connections.get(connection.id)
    if (wasSetup && connection.kind === 'ready') step(`connection ready (status ${connection.status})`)
  }
  throw new Error(`the demo connection did not become ready after ${MAX_SETUP_ROUNDS} setup rounds`)
}
