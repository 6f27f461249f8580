import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { API_TOKEN, startTestSidecar } from '../sidecar/sidecar-fixture.js'
import { launchBrowser, skipBrowserTests, type Browser } from './browser.js'

/**
 * Issue 26 (login CSRF): the sign-in page's `#token=` link signed a signed-out browser in as whoever made the link,
 * so a link from someone else made a person work, unaware, as them. The page now says whose token the link holds
 * and signs in only when the person presses the button.
 */
let sidecar: Awaited<ReturnType<typeof startTestSidecar>>
let malloryToken = ''

beforeAll(async () => {
  sidecar = await startTestSidecar('signin_link', ['api'], {
    AUTH_FAILURE_BURST: '3',
    AUTH_FAILURE_REFILL_SECONDS: '3600',
  })
  const created = await fetch(`${sidecar.url}/api/users`, {
    method: 'POST',
    headers: { authorization: `Bearer ${API_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'mallory', role: 'clerk' }),
  })
  malloryToken = ((await created.json()) as { token: string }).token
})

afterAll(async () => {
  await sidecar?.close()
  await sidecar?.drop()
})

const holder = (body: string, headers: Record<string, string> = {}) =>
  fetch(`${sidecar.url}/dashboard/login/holder`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: sidecar.url, ...headers },
    body,
  })

describe('POST /dashboard/login/holder', () => {
  it('names the token’s holder without opening a session', async () => {
    const answer = await holder(new URLSearchParams({ token: malloryToken }).toString())
    expect(answer.status).toBe(200)
    expect(await answer.json()).toEqual({ name: 'mallory', role: 'clerk' })
    expect(answer.headers.get('set-cookie')).toBeNull()
  })

  it('refuses a cross-origin call, a missing token and a wrong one (a failed attempt, throttled like the form)', async () => {
    const cross = await holder(new URLSearchParams({ token: malloryToken }).toString(), {
      origin: 'http://evil.example',
    })
    expect(cross.status).toBe(403)
    expect((await holder('')).status).toBe(401)
    expect((await holder('next=%2F')).status).toBe(401)
    for (let i = 0; i < 3; i++) expect((await holder(`token=wrong-${i}`)).status).toBe(401)
    const throttled = await holder(new URLSearchParams({ token: malloryToken }).toString())
    expect(throttled.status).toBe(429)
    expect(throttled.headers.get('retry-after')).toBe('3600')
  })
})

describe.skipIf(skipBrowserTests)('the sign-in link in Chromium', () => {
  let browser: Browser
  let fresh: Awaited<ReturnType<typeof startTestSidecar>>
  let token = ''

  beforeAll(async () => {
    // A sidecar of its own: the other tests here used up this client's failed attempts.
    fresh = await startTestSidecar('signin_link_browser', ['api'])
    const created = await fetch(`${fresh.url}/api/users`, {
      method: 'POST',
      headers: { authorization: `Bearer ${API_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'mallory', role: 'clerk' }),
    })
    token = ((await created.json()) as { token: string }).token
    browser = await launchBrowser()
  }, 60_000)

  afterAll(async () => {
    await browser?.close()
    await fresh?.close()
    await fresh?.drop()
  })

  it('asks before it signs anyone in: shows whose link it is, and signs in only on the button', async () => {
    const page = await browser.context.newPage()
    await page.goto(`${fresh.url}/#token=${token}`)
    await page.waitForSelector('#signin-link:not([hidden])')
    expect(await page.textContent('#signin-link [data-holder=name]')).toBe('mallory')
    expect(await page.textContent('#signin-link [data-holder=role]')).toBe('clerk')
    expect(await page.textContent('#signin-button')).toBe('Sign in as mallory')
    // Nothing signed in yet: no session cookie, still the sign-in page, and the token is out of the address.
    expect(await browser.context.cookies()).toEqual([])
    expect(await page.$('#signin-form')).not.toBeNull()
    expect(page.url()).not.toContain(token)
    await page.click('#signin-button')
    await page.waitForSelector('#signin-form', { state: 'detached' })
    expect((await browser.context.cookies()).map((cookie) => cookie.name)).toContain('bankrec_session')
    expect(await page.textContent('body')).toContain('mallory')
  }, 60_000)

  it('says so when the link’s token is refused, and signs nobody in (control)', async () => {
    await browser.context.clearCookies()
    const page = await browser.context.newPage()
    await page.goto(`${fresh.url}/#token=not-anybodys-token`)
    await page.waitForSelector('#signin-link.error:not([hidden])')
    expect(await page.textContent('#signin-link')).toContain('refused')
    expect(await page.inputValue('#signin-form input[name=token]')).toBe('')
    expect(await browser.context.cookies()).toEqual([])
  }, 60_000)
})
