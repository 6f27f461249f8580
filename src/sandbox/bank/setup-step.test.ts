import { describe, expect, it } from 'vitest'
import { setupStep } from './setup-step.js'

const instructions = (email: string, phone: string) => ({
  firstName: 'A',
  lastName: 'B',
  address: 'C',
  email: 'd@example.test',
  username: 'e',
  phoneNumber: '+1',
  emailProvisioningStatus: email,
  phoneNumberProvisioningStatus: phone,
})

describe('setupStep', () => {
  it('waits on the service while the delegated user’s email or phone is still being provisioned', () => {
    expect(
      setupStep({
        status: 'draft',
        credentialsPresent: false,
        instructions: instructions('provisioned', 'pending'),
      }),
    ).toEqual({ nextAction: 'createDelegatedUser', actionRequiredBy: 'service' })
  })

  it('asks the end user for credentials once the delegated user is provisioned', () => {
    expect(
      setupStep({
        status: 'draft',
        credentialsPresent: false,
        instructions: instructions('provisioned', 'provisioned'),
      }),
    ).toEqual({ nextAction: 'provideCredentials', actionRequiredBy: 'endUser' })
  })

  it('asks the integrator to complete setup once credentials are present', () => {
    expect(
      setupStep({
        status: 'draft',
        credentialsPresent: true,
        instructions: instructions('pending', 'pending'),
      }),
    ).toEqual({
      nextAction: 'activateConnection',
      actionRequiredBy: 'integrator',
    })
  })

  it('leaves activation to the service while pendingActivation', () => {
    expect(
      setupStep({
        status: 'pendingActivation',
        credentialsPresent: true,
        instructions: instructions('provisioned', 'provisioned'),
      }),
    ).toEqual({ nextAction: 'activateConnection', actionRequiredBy: 'service' })
  })

  it('asks for new credentials after the bank rejected them', () => {
    expect(
      setupStep({
        status: 'reauthRequired',
        credentialsPresent: false,
        instructions: instructions('pending', 'pending'),
      }),
    ).toEqual({ nextAction: 'provideCredentials', actionRequiredBy: 'endUser' })
  })
})
