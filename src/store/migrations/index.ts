import type { Migration } from 'kysely'
import * as mirror from './0001-mirror.js'
import * as syncRequests from './0002-sync-requests.js'
import * as receivedEvents from './0003-received-events.js'

/** Every migration in order. Append, never edit or reorder: deployed databases have run the ones above. */
export const migrations: Record<string, Migration> = {
  '0001-mirror': mirror,
  '0002-sync-requests': syncRequests,
  '0003-received-events': receivedEvents,
}
