import { describe, expect, it } from 'vitest'
import { safeBack } from './dashboard-actions.js'

describe('safeBack', () => {
  it('keeps dashboard paths', () => {
    for (const path of [
      '/',
      '/dashboard',
      '/dashboard/exceptions?type=suggested_match',
      '/dashboard/invoices/a%2Fb',
    ]) {
      expect(safeBack(path)).toBe(path)
    }
  })

  it('sends anything else to the overview: other sites, other paths, odd characters', () => {
    for (const path of [
      '//evil.example/dashboard',
      'https://evil.example/',
      '/\\evil.example',
      '/dashboardx',
      '/api/invoices',
      '/dashboard/\nx',
      '/dashboard /x',
      undefined,
      42,
    ]) {
      expect(safeBack(path)).toBe('/dashboard')
    }
  })
})
