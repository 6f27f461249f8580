import { randomBytes } from 'node:crypto'
import type { Request, Response } from 'express'
import type { SidecarContext } from '../context.js'
import { renderPage, type PageShell } from './layout.js'

const FLASH_COOKIE = 'bankrec_flash'

export type Flash = { kind: 'ok' | 'error'; text: string }

/**
 * Sends a dashboard page under a CSP that lets it load nothing but its own nonce'd style and script: no CDN, no
 * font, no image from anywhere else.
 */
export function sendPage(
  req: Request,
  res: Response,
  context: SidecarContext,
  page: Omit<PageShell, 'nonce' | 'sandbox' | 'notice'>,
  status = 200,
  notice?: Flash,
): void {
  const nonce = randomBytes(16).toString('base64')
  res
    .status(status)
    .set({
      'content-security-policy': [
        "default-src 'none'",
        `script-src 'nonce-${nonce}'`,
        `style-src 'nonce-${nonce}'`,
        "connect-src 'self'",
        "img-src 'self' data:",
        "form-action 'self'",
        "base-uri 'none'",
        "frame-ancestors 'none'",
      ].join('; '),
      'cache-control': 'no-store',
      'referrer-policy': 'same-origin',
      'x-content-type-options': 'nosniff',
    })
    .type('html')
    .send(
      renderPage({
        ...page,
        nonce,
        sandbox: context.bank.sandbox !== undefined,
        // Only behind the sign-in: how the deployment is configured is nobody else's business.
        warnings: status < 400 ? context.warnings : [],
        notice: notice ?? takeFlash(req, res),
      }),
    )
}

/** The outcome of an action, shown once by the page the action redirects to. */
export function redirectWithFlash(res: Response, to: string, flash: Flash): void {
  res.cookie(FLASH_COOKIE, JSON.stringify(flash), {
    httpOnly: true,
    sameSite: 'strict',
    path: '/',
    maxAge: 60_000,
  })
  res.redirect(303, to)
}

function takeFlash(req: Request, res: Response): Flash | null {
  const raw = (req.headers.cookie ?? '')
    .split(';')
    .map((part) => part.trim())
    .find((part) => part.startsWith(`${FLASH_COOKIE}=`))
  if (!raw) return null
  res.clearCookie(FLASH_COOKIE, { path: '/' })
  try {
    const value = JSON.parse(decodeURIComponent(raw.slice(FLASH_COOKIE.length + 1))) as Partial<Flash>
    return (value.kind === 'ok' || value.kind === 'error') && typeof value.text === 'string'
      ? { kind: value.kind, text: value.text.slice(0, 500) }
      : null
  } catch {
    return null
  }
}
