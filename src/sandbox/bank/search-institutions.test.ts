import { describe, expect, it } from 'vitest'
import { buildInstitutionCatalog } from '../catalog.js'
import { institutionForPortal } from './resolve-bank.js'
import { searchInstitutions } from './search-institutions.js'

const catalog = buildInstitutionCatalog()
const ids = (query: string | undefined) => searchInstitutions(catalog, query).map((i) => i.institutionId)

describe('searchInstitutions', () => {
  it('returns the whole catalog without a query', () => {
    expect(ids(undefined)).toHaveLength(catalog.length)
    expect(ids('  ')).toHaveLength(catalog.length)
  })

  it('matches a part of the name, case-insensitively', () => {
    expect(ids('harbor nat')).toEqual(['ins_harbor_national'])
  })

  it('matches an alternative name', () => {
    expect(ids('Rhein')).toEqual(['ins_rhine_handelsbank'])
  })

  it('matches the institution id', () => {
    expect(ids('ins_granite_trust')).toEqual(['ins_granite_trust'])
  })

  it('matches an additional portal URL given in any case, with a trailing slash', () => {
    expect(ids('HTTPS://Treasury.HarborNational.example/')).toEqual(['ins_harbor_national'])
  })

  it('matches a portal domain', () => {
    expect(ids('meridiancommerce.example')).toEqual(['ins_meridian_commerce'])
  })

  it('matches nothing for an unknown bank', () => {
    expect(ids('zzz no such bank')).toEqual([])
  })
})

describe('institutionForPortal', () => {
  it('finds the institution listing a portal, or one on the same host, or none', () => {
    expect(institutionForPortal(catalog, 'https://wires.summitpacific.example')?.institutionId).toBe(
      'ins_summit_pacific',
    )
    expect(
      institutionForPortal(catalog, 'https://wires.summitpacific.example/deep/link')?.institutionId,
    ).toBe('ins_summit_pacific')
    expect(institutionForPortal(catalog, 'https://unlisted-bank.example')).toBeNull()
  })
})
