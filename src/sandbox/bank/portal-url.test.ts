import { describe, expect, it } from 'vitest'
import { normalizePortalUrl, portalHost } from './portal-url.js'

describe('normalizePortalUrl', () => {
  it('lower-cases the host and drops the trailing slash', () => {
    expect(normalizePortalUrl('https://Business.HarborNational.EXAMPLE/')).toBe(
      'https://business.harbornational.example',
    )
  })

  it('drops the default port, the query and the fragment', () => {
    expect(normalizePortalUrl('https://bank.example:443/login/?next=/home#top')).toBe(
      'https://bank.example/login',
    )
  })

  it('keeps a non-default port and the path case', () => {
    expect(normalizePortalUrl('https://bank.example:8443/Corporate/')).toBe(
      'https://bank.example:8443/Corporate',
    )
  })

  it('drops user info', () => {
    expect(normalizePortalUrl('https://user:pw@bank.example/a')).toBe('https://bank.example/a')
  })

  it('rejects anything that is not an https URL', () => {
    expect(normalizePortalUrl('http://bank.example')).toBeNull()
    expect(normalizePortalUrl('not a url')).toBeNull()
    expect(normalizePortalUrl('ftp://bank.example')).toBeNull()
  })

  it('gives the host of a normalized portal', () => {
    expect(portalHost('https://bank.example:8443/x')).toBe('bank.example:8443')
  })
})
