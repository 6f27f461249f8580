import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runCli } from '../../src/cli/index.js'
import { ConfigError, loadConfig } from '../../src/config/index.js'
import { testIo } from '../cli/test-io.js'
import { startTestSidecar } from '../sidecar/sidecar-fixture.js'

/**
 * Issue 26: TRUST_PROXY=true (then a documented value) believed every X-Forwarded-For address, so a client sending
 * a new one with each guess was a new client to the failed-token throttle. It is refused at start-up now; a hop
 * count or the proxies' addresses make the address the proxy saw the one throttled.
 */
describe('TRUST_PROXY', () => {
  it('refuses true at start-up with a hint (exit 2), in any case', async () => {
    for (const value of ['true', 'TRUE', ' True ']) {
      expect(() => loadConfig({ TRUST_PROXY: value })).toThrow(ConfigError)
      const t = testIo({ TRUST_PROXY: value })
      expect(await runCli(['start', '--no-demo'], t.io)).toBe(2)
      expect(t.err()).toContain('TRUST_PROXY must not be true')
      expect(t.err()).toContain('number of proxies in front of bankrec (1) or their addresses')
    }
  })

  it('takes a hop count, false, or addresses and subnets (control)', () => {
    expect(loadConfig({ TRUST_PROXY: '1' }).TRUST_PROXY).toBe(1)
    expect(loadConfig({ TRUST_PROXY: 'false' }).TRUST_PROXY).toBe(false)
    expect(loadConfig({ TRUST_PROXY: '10.0.0.0/8, loopback' }).TRUST_PROXY).toEqual([
      '10.0.0.0/8',
      'loopback',
    ])
    expect(() => loadConfig({ TRUST_PROXY: 'yes' })).toThrow(/TRUST_PROXY must be a hop count/)
  })
})

describe('the failed-token throttle behind one proxy (TRUST_PROXY=1)', () => {
  let sidecar: Awaited<ReturnType<typeof startTestSidecar>>

  beforeAll(async () => {
    sidecar = await startTestSidecar('trust_proxy', ['api'], {
      TRUST_PROXY: '1',
      AUTH_FAILURE_BURST: '3',
      AUTH_FAILURE_REFILL_SECONDS: '3600',
    })
  })

  afterAll(async () => {
    await sidecar?.close()
    await sidecar?.drop()
  })

  /** A guess as the proxy forwards it: whatever the client wrote, then the address the proxy saw. */
  const guess = (claimed: string, seenByProxy: string) =>
    fetch(`${sidecar.url}/api/overview`, {
      headers: { authorization: 'Bearer wrong-token', 'x-forwarded-for': `${claimed}, ${seenByProxy}` },
    })

  it('throttles the address the proxy saw, whatever X-Forwarded-For the client wrote before it', async () => {
    for (let i = 0; i < 3; i++) expect((await guess(`203.0.113.${i}`, '198.51.100.7')).status).toBe(401)
    for (let i = 3; i < 8; i++) expect((await guess(`203.0.113.${i}`, '198.51.100.7')).status).toBe(429)
    // Control: another client behind the same proxy has its own bucket.
    expect((await guess('203.0.113.99', '198.51.100.8')).status).toBe(401)
  })
})
