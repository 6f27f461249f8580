import type { Request, Response } from 'express'

/** The dashboard's session cookie: HttpOnly, SameSite=Strict, for the whole origin. */
export const SESSION_COOKIE = 'bankrec_session'

export function cookieOf(header: string | undefined, name: string): string | undefined {
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

export function sessionCookieOf(req: Request): string | undefined {
  return cookieOf(req.headers.cookie, SESSION_COOKIE)
}

export function openSession(req: Request, res: Response, value: string): void {
  res.cookie(SESSION_COOKIE, value, {
    httpOnly: true,
    sameSite: 'strict',
    path: '/',
    secure: req.secure,
  })
}

export function closeSession(res: Response): void {
  res.clearCookie(SESSION_COOKIE, { path: '/' })
}
