import { describe, expect, it } from 'vitest'
import { Institution } from '../api-client/index.js'
import { buildInstitutionCatalog } from './catalog.js'

const catalog = buildInstitutionCatalog()

describe('the institution catalog', () => {
  it('holds at least 20 fictional banks, each a valid Institution with a unique id', () => {
    expect(catalog.length).toBeGreaterThanOrEqual(20)
    for (const institution of catalog) expect(Institution.strict().safeParse(institution).success).toBe(true)
    expect(new Set(catalog.map((i) => i.institutionId)).size).toBe(catalog.length)
  })

  it('has live and pending institutions, several with more than one portal, logos or null', () => {
    expect(catalog.some((i) => i.status === 'live')).toBe(true)
    expect(catalog.some((i) => i.status === 'pending')).toBe(true)
    expect(catalog.filter((i) => i.additionalPortalUrls.length > 0).length).toBeGreaterThanOrEqual(3)
    expect(catalog.some((i) => i.logoUrl === null)).toBe(true)
    expect(catalog.some((i) => i.logoUrl !== null)).toBe(true)
  })

  it('uses https URLs only, on the reserved .example domain', () => {
    for (const i of catalog) {
      for (const url of [
        i.canonicalPortalUrl,
        ...i.additionalPortalUrls,
        i.setupGuideUrl,
        ...(i.logoUrl ? [i.logoUrl] : []),
      ]) {
        expect(url).toMatch(/^https:\/\/[^/]+\.example(\/|$)/)
      }
    }
  })

  it('includes Harbor National Bank, live, which the test harness onboards', () => {
    expect(catalog.find((i) => i.institutionId === 'ins_harbor_national')).toMatchObject({ status: 'live' })
  })

  it('is ordered by name', () => {
    const names = catalog.map((i) => i.name)
    expect(names).toEqual([...names].sort((a, b) => a.localeCompare(b)))
  })
})
