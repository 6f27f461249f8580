import { describe, expect, it } from 'vitest'
import { ReadyConnection, SetupConnection } from '../../api-client/index.js'
import type { ConnectionRecord } from '../state.js'
import { presentConnection } from './present-connection.js'

const base: ConnectionRecord = {
  id: '00000000-0000-4000-8000-00000000000a',
  orgId: 'org_main',
  entityId: '00000000-0000-4000-8000-00000000000b',
  kind: 'setup',
  status: 'draft',
  institutionId: null,
  institutionName: null,
  portalUrl: 'https://bank.example',
  errorCode: null,
  errorMessage: null,
  metadata: {},
  createdAt: new Date('2026-03-02T09:00:00Z'),
  updatedAt: new Date('2026-03-02T09:00:00Z'),
  setup: {
    instructions: {
      firstName: 'Avery',
      lastName: 'Vance',
      address: '1 Delegate Way',
      email: 'avery@example.test',
      username: 'bcs_avery',
      phoneNumber: '+13025550100',
      emailProvisioningStatus: 'pending',
      phoneNumberProvisioningStatus: 'pending',
    },
    credentialsPresent: false,
    nextAction: 'createDelegatedUser',
    actionRequiredBy: 'service',
  },
  syncStatus: 'idle',
  lastSyncedAt: null,
  lastSyncStartedAt: null,
  passwordRejected: true,
}

describe('presentConnection', () => {
  it('shapes a setup-stage record as kind=setup with its setup details and nothing of the ready variant', () => {
    const shaped = presentConnection(base)
    expect(SetupConnection.strict().safeParse(shaped).success).toBe(true)
    expect(shaped).not.toHaveProperty('syncStatus')
  })

  it('shapes a ready record as kind=ready with syncStatus and lastSyncedAt and no setup', () => {
    const shaped = presentConnection({
      ...base,
      kind: 'ready',
      status: 'active',
      institutionId: 'ins_x',
      lastSyncedAt: new Date('2026-03-02T10:00:00Z'),
    })
    expect(ReadyConnection.strict().safeParse(shaped).success).toBe(true)
    expect(shaped).toMatchObject({ syncStatus: 'idle', lastSyncedAt: '2026-03-02T10:00:00.000Z' })
    expect(shaped).not.toHaveProperty('setup')
  })

  it('never shows whether the password was the rejected one', () => {
    expect(JSON.stringify(presentConnection(base))).not.toContain('passwordRejected')
  })
})
