import { it, expect } from 'vitest'
import { startCluster } from '../support/chaos/cluster.js'
import { connectReadyBank } from '../support/sandbox-harness.js'
import { mirrorDifferences } from '../support/chaos/mirror-check.js'
import { waitUntil } from '../support/chaos/wait-until.js'

it('smoke', async () => {
  const t0 = Date.now()
  const cluster = await startCluster({ label: 'smoke', queue: (process.env.Q as any) ?? 'redis', workers: 2 })
  console.log('started in', Date.now() - t0)
  try {
    const { connection } = await connectReadyBank(cluster.sandbox)
    await waitUntil(
      'mirror',
      async () => {
        const truth = (await cluster.sandbox.request('GET', '/_sandbox/state')).body
        const d = await mirrorDifferences(cluster.database.db, truth, [connection.id])
        return d.length === 0 ? true : (console.log(d.slice(0, 3)), false)
      },
      { timeoutMs: 30000, intervalMs: 1000 },
    )
    console.log('mirrored in', Date.now() - t0)
    const s = Date.now()
    await cluster.killWorker(0)
    await cluster.startWorker(0)
    console.log('restart', Date.now() - s)
    console.log(await cluster.queueCounts())
  } catch (e) {
    console.log(cluster.logTails())
    throw e
  } finally {
    await cluster.close()
  }
}, 120000)
