/**
 * Normalizes a bank portal URL into the connection anchor: https only, lower-case host, no default port, no
 * credentials, query or fragment, no trailing slash. Returns null for anything that is not an https URL.
 */
export function normalizePortalUrl(raw: string): string | null {
  let url: URL
  try {
    url = new URL(raw.trim())
  } catch {
    return null
  }
  if (url.protocol !== 'https:' || !url.hostname) return null
  // URL already lower-cases the host and drops :443; the path keeps its case, as servers may care.
  const path = url.pathname.replace(/\/+$/, '')
  return `https://${url.host}${path}`
}

/** The host of a normalized portal URL (with a non-default port, if any). */
export function portalHost(normalized: string): string {
  return new URL(normalized).host
}
