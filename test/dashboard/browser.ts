import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { chromium, type BrowserContext } from 'playwright-core'

/** Debian's Chromium; `.ci/run` installs it when missing. Playwright never downloads a browser here. */
export const CHROMIUM_PATH = '/usr/bin/chromium'

/** Set BANKREC_SKIP_BROWSER_TESTS=1 to skip the browser tests on a machine without Chromium; they never skip silently. */
export const skipBrowserTests = process.env.BANKREC_SKIP_BROWSER_TESTS === '1'

export type Browser = { context: BrowserContext; requests: string[]; close(): Promise<void> }

/**
 * Headless Chromium with a fresh profile and every background service off, so the only traffic is the pages'
 * own; `requests` records every URL the pages asked for.
 */
export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(
      `No Chromium at ${CHROMIUM_PATH}: apt-get install chromium (.ci/run does), or set BANKREC_SKIP_BROWSER_TESTS=1.`,
    )
  }
  const profile = mkdtempSync(join(tmpdir(), 'bankrec-chromium-'))
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    viewport: { width: 1360, height: 900 },
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  })
  const requests: string[] = []
  context.on('request', (request) => requests.push(request.url()))
  return {
    context,
    requests,
    async close() {
      await context.close()
      rmSync(profile, { recursive: true, force: true })
    },
  }
}
