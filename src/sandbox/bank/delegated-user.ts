import type { SetupInstructions } from '../../api-client/index.js'
import type { Random } from '../random.js'

const FIRST_NAMES = [
  'Avery',
  'Jordan',
  'Morgan',
  'Riley',
  'Casey',
  'Quinn',
  'Rowan',
  'Emerson',
  'Harper',
  'Reese',
]
const LAST_NAMES = [
  'Calloway',
  'Ashford',
  'Whitlock',
  'Brennan',
  'Okafor',
  'Lindqvist',
  'Moreau',
  'Tanaka',
  'Vance',
]

/**
 * The delegated-user profile the service provisions for a setup-stage connection: a person the end user adds to
 * their bank workspace, with an email and phone number the service controls (for the bank's verification codes).
 * Both start `pending` and become `provisioned` on the clock (see connection-setup.ts).
 */
export function buildDelegatedUser(random: Random): SetupInstructions {
  const firstName = random.pick(FIRST_NAMES)
  const lastName = random.pick(LAST_NAMES)
  const tag = random.hex(3)
  return {
    firstName,
    lastName,
    address: `${random.int(100, 9899)} Delegate Way, Suite ${random.int(100, 999)}, Wilmington, DE 19801, US`,
    email: `${firstName}.${lastName}.${tag}@delegates.sandbox.bankrec.example`.toLowerCase(),
    username: `bcs_${firstName.toLowerCase()}_${tag}`,
    // 555-01xx numbers are reserved for fiction.
    phoneNumber: `+1302555${String(random.int(100, 199)).padStart(4, '0')}`,
    emailProvisioningStatus: 'pending',
    phoneNumberProvisioningStatus: 'pending',
  }
}
