import { timingSafeEqual } from 'node:crypto'
import type { RequestHandler } from 'express'

/** The cookie the dashboard sets so a browser can open /admin pages, which cannot send a Bearer header. */
export const ADMIN_COOKIE = 'bankrec_admin'

export function tokenMatches(given: string | undefined, expected: string): boolean {
  const a = Buffer.from(given ?? '')
  const b = Buffer.from(expected)
  return a.length === b.length && a.length > 0 && timingSafeEqual(a, b)
}

export function bearerOf(header: string | undefined): string | undefined {
  return /^Bearer\s+(\S+)$/i.exec(header ?? '')?.[1]
}

function cookieOf(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const [key, ...value] = part.trim().split('=')
    if (key === name) return decodeURIComponent(value.join('='))
  }
  return undefined
}

/** KIT_API_TOKEN as a Bearer header or the dashboard's admin cookie; a browser without either is sent to the dashboard. */
export function requireAdminToken(token: string): RequestHandler {
  return (req, res, next) => {
    const given = bearerOf(req.headers.authorization) ?? cookieOf(req.headers.cookie, ADMIN_COOKIE)
    if (tokenMatches(given, token)) return next()
    res
      .status(401)
      .type('html')
      .send(
        '<!doctype html><meta charset="utf-8"><title>bankrec: sign in</title>' +
          '<p>The queue board needs the API token. Open the <a href="/">dashboard</a>, save the token there, ' +
          'then follow its "Queues" link.</p>',
      )
  }
}
