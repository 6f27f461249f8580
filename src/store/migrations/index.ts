import type { Migration } from 'kysely'
import * as mirror from './0001-mirror.js'
import * as syncRequests from './0002-sync-requests.js'
import * as receivedEvents from './0003-received-events.js'
import * as alerts from './0004-alerts.js'
import * as balanceExceptions from './0005-balance-exceptions.js'
import * as appEvents from './0006-app-events.js'
import * as transfers from './0007-transfers.js'
import * as invoices from './0008-invoices.js'
import * as matching from './0009-matching.js'
import * as transferList from './0010-transfer-list.js'
import * as users from './0013-users.js'
import * as evidenceAndCustomers from './0014-evidence-and-customers.js'
import * as sealedWebhookSecrets from './0015-sealed-webhook-secrets.js'
import * as uninterpretableEvents from './0016-uninterpretable-events.js'
import * as syncQuarantine from './0017-sync-quarantine.js'
import * as residuals from './0018-residuals.js'
import * as dispositions from './0019-dispositions.js'
import * as remittanceWriteOffs from './0020-remittance-write-offs.js'
import * as invoiceKeysVersion from './0021-invoice-keys-version.js'
import * as invoiceWriteOffs from './0022-invoice-write-offs.js'
import * as appEventLease from './0023-app-event-lease.js'
import * as customerKeysVersion from './0024-customer-keys-version.js'
import * as balanceProofDue from './0025-balance-proof-due.js'
import * as transferLegLookup from './0026-transfer-leg-lookup.js'
import * as matchingShadow from './0027-matching-shadow.js'
import * as controls from './0028-controls.js'
import * as eventRecordsRetention from './0029-event-records-retention.js'
import * as appEventTraceContext from './0030-app-event-trace-context.js'
import * as webhookInbox from './0031-webhook-inbox.js'
import * as syncReadTimes from './0032-sync-read-times.js'
import * as pendingMatchPages from './0033-pending-match-pages.js'

/** Every migration in order. Append, never edit or reorder: deployed databases have run the ones above. */
export const migrations: Record<string, Migration> = {
  '0001-mirror': mirror,
  '0002-sync-requests': syncRequests,
  '0003-received-events': receivedEvents,
  '0004-alerts': alerts,
  '0005-balance-exceptions': balanceExceptions,
  '0006-app-events': appEvents,
  '0007-transfers': transfers,
  '0008-invoices': invoices,
  '0009-matching': matching,
  '0010-transfer-list': transferList,
  '0013-users': users,
  '0014-evidence-and-customers': evidenceAndCustomers,
  '0015-sealed-webhook-secrets': sealedWebhookSecrets,
  '0016-uninterpretable-events': uninterpretableEvents,
  '0017-sync-quarantine': syncQuarantine,
  '0018-residuals': residuals,
  '0019-dispositions': dispositions,
  '0020-remittance-write-offs': remittanceWriteOffs,
  '0021-invoice-keys-version': invoiceKeysVersion,
  '0022-invoice-write-offs': invoiceWriteOffs,
  '0023-app-event-lease': appEventLease,
  '0024-customer-keys-version': customerKeysVersion,
  '0025-balance-proof-due': balanceProofDue,
  '0026-transfer-leg-lookup': transferLegLookup,
  '0027-matching-shadow': matchingShadow,
  '0028-controls': controls,
  '0029-event-records-retention': eventRecordsRetention,
  '0030-app-event-trace-context': appEventTraceContext,
  '0031-webhook-inbox': webhookInbox,
  '0032-sync-read-times': syncReadTimes,
  '0033-pending-match-pages': pendingMatchPages,
}
