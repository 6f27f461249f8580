import { buildInstitutionCatalog } from './catalog.js'
import type { Random } from './random.js'
import { SCOPES, createEmptyState, type ApiKeyRecord, type SandboxState, type Scope } from './state.js'

export type SeedOptions = {
  /** The full-scope test key of the main organization (`--api-key`). */
  apiKey?: string
  now: Date
}

const READ_SCOPES: Scope[] = [
  'connections:read',
  'accounts:read',
  'transactions:read',
  'transfers:read',
  'webhooks:read',
]

/**
 * The sandbox's starting state: two organizations (to prove isolation), their keys and the institution catalog.
 * Keys derive from the seed so a restart with the same seed keeps them.
 */
export function seedState(random: Random, options: SeedOptions): SandboxState {
  const state = createEmptyState()
  const keys = random.fork('api-keys')
  state.organizations.set('org_main', { id: 'org_main', name: 'Sandbox Holdings' })
  state.organizations.set('org_other', { id: 'org_other', name: 'Other Org' })
  const add = (record: ApiKeyRecord) => state.apiKeys.set(record.key, record)
  add({
    key: options.apiKey ?? `sk_test_${keys.hex(16)}`,
    orgId: 'org_main',
    environment: 'test',
    scopes: [...SCOPES],
    expiresAt: null,
    label: 'full access',
  })
  add({
    key: `sk_test_${keys.hex(16)}`,
    orgId: 'org_main',
    environment: 'test',
    scopes: READ_SCOPES,
    expiresAt: null,
    label: 'read only',
  })
  add({
    key: `sk_test_${keys.hex(16)}`,
    orgId: 'org_main',
    environment: 'test',
    scopes: [...SCOPES],
    expiresAt: new Date(options.now.getTime() - 1000),
    label: 'expired',
  })
  add({
    key: `sk_test_${keys.hex(16)}`,
    orgId: 'org_other',
    environment: 'test',
    scopes: [...SCOPES],
    expiresAt: null,
    label: 'other organization',
  })
  state.institutions = buildInstitutionCatalog()
  return state
}
