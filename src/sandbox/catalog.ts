import type { Institution } from '../api-client/index.js'

export function buildInstitutionCatalog(): Institution[] {
  return []
}
