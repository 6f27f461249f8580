import { createHmac } from 'node:crypto'
import type { Request, RequestHandler, Response } from 'express'
import { bearerOf, tokenMatches } from '../token-matches.js'

export { bearerOf, tokenMatches }

/** The dashboard's session cookie: HttpOnly, SameSite=Strict, for the whole origin. */
export const SESSION_COOKIE = 'bankrec_session'

function cookieOf(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const [key, ...value] = part.trim().split('=')
    if (key === name) {
      try {
        return decodeURIComponent(value.join('='))
      } catch {
        return undefined
      }
    }
  }
  return undefined
}

/**
 * The cookie holds a value derived from KIT_API_TOKEN, never the token: a leaked cookie opens the dashboard but
 * is no Bearer token for /api, and changing the token ends every session.
 */
export function sessionValue(token: string): string {
  return createHmac('sha256', token).update('bankrec dashboard session v1').digest('base64url')
}

/** KIT_API_TOKEN as a Bearer header, or the session cookie the sign-in form set. */
export function isSignedIn(req: Request, token: string): boolean {
  if (token.length === 0) return false
  if (tokenMatches(bearerOf(req.headers.authorization), token)) return true
  return tokenMatches(cookieOf(req.headers.cookie, SESSION_COOKIE), sessionValue(token))
}

export function openSession(req: Request, res: Response, token: string): void {
  res.cookie(SESSION_COOKIE, sessionValue(token), {
    httpOnly: true,
    sameSite: 'strict',
    path: '/',
    secure: req.secure,
  })
}

export function closeSession(res: Response): void {
  res.clearCookie(SESSION_COOKIE, { path: '/' })
}

/** A signed-in request, else a 401 page that points to the dashboard's sign-in (the /admin pages' guard). */
export function requireAdminToken(token: string): RequestHandler {
  return (req, res, next) => {
    if (isSignedIn(req, token)) return next()
    res
      .status(401)
      .type('html')
      .send(
        '<!doctype html><meta charset="utf-8"><title>bankrec: sign in</title>' +
          '<p>The queue board needs the API token. <a href="/">Sign in to the dashboard</a> first.</p>',
      )
  }
}
