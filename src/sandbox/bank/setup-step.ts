import type { ConnectionStatus, SetupInstructions } from '../../api-client/index.js'

export type SetupStep = {
  nextAction: 'createDelegatedUser' | 'provideCredentials' | 'activateConnection'
  actionRequiredBy: 'endUser' | 'integrator' | 'service'
}

/**
 * Where a setup-stage connection stands (the seed names the values, not the progression; docs/sandbox.md):
 * the service provisions the delegated user's email and phone (createDelegatedUser, service), the end user
 * creates that user at the bank and hands over its credentials (provideCredentials, endUser), the integrator
 * marks setup complete (activateConnection, integrator), the service activates (activateConnection, service).
 */
export function setupStep(input: {
  status: ConnectionStatus
  credentialsPresent: boolean
  instructions: SetupInstructions
}): SetupStep {
  if (input.status === 'pendingActivation')
    return { nextAction: 'activateConnection', actionRequiredBy: 'service' }
  if (input.credentialsPresent) return { nextAction: 'activateConnection', actionRequiredBy: 'integrator' }
  const provisioning =
    input.instructions.emailProvisioningStatus === 'pending' ||
    input.instructions.phoneNumberProvisioningStatus === 'pending'
  if (provisioning && input.status === 'draft') {
    return { nextAction: 'createDelegatedUser', actionRequiredBy: 'service' }
  }
  return { nextAction: 'provideCredentials', actionRequiredBy: 'endUser' }
}
