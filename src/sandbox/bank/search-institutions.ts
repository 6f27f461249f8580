import type { Institution } from '../../api-client/index.js'
import { normalizePortalUrl, portalHost } from './portal-url.js'
import { portalsOf } from './resolve-bank.js'

/**
 * Catalog search (seed: by name, identifier, portal URL or portal domain; alternative names are for search
 * matching). Case-insensitive. A URL query matches an institution listing that portal or one on its host; any
 * other query matches a substring of the name, an alternative name, the id or a portal's host. An empty query
 * matches everything.
 */
export function searchInstitutions(
  catalog: readonly Institution[],
  query: string | undefined,
): Institution[] {
  const needle = (query ?? '').trim().toLowerCase()
  if (!needle) return [...catalog]
  const asUrl = /^https?:\/\//.test(needle) ? normalizePortalUrl(needle.replace(/^http:/, 'https:')) : null
  return catalog.filter((institution) => {
    const portals = portalsOf(institution)
    const hosts = portals.map(portalHost)
    if (asUrl) return portals.includes(asUrl) || hosts.includes(portalHost(asUrl))
    return (
      institution.name.toLowerCase().includes(needle) ||
      institution.institutionId.toLowerCase().includes(needle) ||
      institution.alternativeNames.some((name) => name.toLowerCase().includes(needle)) ||
      hosts.some((host) => host.includes(needle))
    )
  })
}
