import { PassThrough } from 'node:stream'
import { afterAll, describe, expect, it } from 'vitest'
import { runCli, type CommandIo } from '../../src/cli/index.js'
import { REDIS_URL, SECRET, inspectQueue, signed, testEvent, uniquePrefix } from './deliveries.js'

const prefix = uniquePrefix('cli')
const view = inspectQueue(prefix)

afterAll(() => view.close())

function testIo(env: Record<string, string>) {
  const stdout = new PassThrough()
  const stderr = new PassThrough()
  let out = ''
  let err = ''
  stdout.on('data', (chunk) => (out += chunk))
  stderr.on('data', (chunk) => (err += chunk))
  let stop: () => void = () => undefined
  const stopped = new Promise<void>((resolve) => (stop = resolve))
  const io: CommandIo = { stdout, stderr, env, untilStopped: () => stopped }
  return { io, stop, out: () => out, err: () => err }
}

describe('bankrec receiver', () => {
  it('serves signed deliveries into the queue named by the environment until stopped', async () => {
    const t = testIo({ WEBHOOK_SECRETS: `whsec_next,${SECRET}`, REDIS_URL, PORT: '0', QUEUE_PREFIX: prefix })
    const exit = runCli(['receiver'], t.io)
    const url = await new Promise<string>((resolve) => {
      const onData = () => {
        const match = /"url":"([^"]+)"/.exec(t.out())
        if (!match) return
        t.io.stdout.off('data', onData)
        resolve(match[1]!)
      }
      t.io.stdout.on('data', onData)
    })
    const event = testEvent()
    const { body, headers } = signed(JSON.stringify(event))
    expect((await fetch(url, { method: 'POST', body, headers })).status).toBe(202)
    expect(await view.queue.getJob(event.id as string)).toBeDefined()
    t.stop()
    expect(await exit).toBe(0)
    expect(t.out()).not.toContain(SECRET)
  })

  it('refuses to start with every configuration problem listed', async () => {
    const t = testIo({ PORT: 'eighty', WEBHOOK_SECRETS: 'whsec_x,' })
    expect(await runCli(['receiver'], t.io)).toBe(1)
    expect(t.err()).toMatch(/PORT must be a whole number/)
    expect(t.err()).toMatch(/WEBHOOK_SECRETS must not contain an empty secret/)
    expect(t.err()).toMatch(/REDIS_URL is required/)
    expect(t.err()).not.toContain('whsec_x')
  })
})
