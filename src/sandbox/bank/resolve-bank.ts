import type { Institution } from '../../api-client/index.js'
import { normalizePortalUrl, portalHost } from './portal-url.js'

export type ResolvedBank = { institution: Institution | null; portalUrl: string }

/** The normalized portals of an institution, canonical first. */
export function portalsOf(institution: Institution): string[] {
  return [institution.canonicalPortalUrl, ...institution.additionalPortalUrls]
    .map(normalizePortalUrl)
    .filter((url): url is string => url !== null)
}

/**
 * The catalog institution behind a normalized portal URL: one listing exactly that portal, else one with a
 * portal on the same host (a deep link into a known portal), else none (an unlisted bank).
 */
export function institutionForPortal(catalog: readonly Institution[], portalUrl: string): Institution | null {
  const exact = catalog.find((institution) => portalsOf(institution).includes(portalUrl))
  if (exact) return exact
  const host = portalHost(portalUrl)
  return catalog.find((institution) => portalsOf(institution).some((p) => portalHost(p) === host)) ?? null
}
