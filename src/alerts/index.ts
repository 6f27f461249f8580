export {
  AlertConfig,
  AlertSeverity,
  AlertSinkName,
  HealthThresholds,
  TransferPollSchedule,
  parseAlertEnv,
  sinksFor,
} from './config.js'
export { observe } from './health-observe.js'
export { tick } from './health-tick.js'
export { compareKeys } from './health-incident.js'
export { emptyHealth, SEEN_LIMIT, CLOSED_INCIDENT_LIMIT } from './health-record.js'
export type {
  ConnectionHealth,
  HealthObservation,
  ObservationSource,
  ObservationKey,
  SeenObservation,
  OpenIncident,
  ClosedIncident,
  IncidentKind,
  HealthEffect,
  HistoryEffect,
  AlertEffect,
  ReminderEffect,
  RecoveryEffect,
  InfoEffect,
  HealthTransition,
} from './health-record.js'
export { incidentIdFor, deterministicId } from './incident-id.js'
export {
  newTransferTracking,
  observeTransfer,
  tickTransfer,
  transferPollDelaySeconds,
} from './transfer-outcome.js'
export type {
  TransferTracking,
  TransferObservation,
  TransferIncident,
  TransferAlertKind,
  TransferEffect,
  TransferAlertEffect,
  TransferReminderEffect,
  TransferRecoveryEffect,
  TransferAppEvent,
  TransferStep,
} from './transfer-outcome.js'
export { formatDuration, formatTime } from './notice.js'
export type {
  AlertNotice,
  NoticeType,
  NoticeSubject,
  ConnectionRef,
  TransferRef,
  EventRef,
} from './notice.js'
export { uninterpretableEventNotice } from './event-notice.js'
export type { UninterpretableEventAlert } from './event-notice.js'
export { connectionNotice, INCIDENT_SEVERITY } from './connection-notice.js'
export { transferNotice, TRANSFER_SEVERITY } from './transfer-notice.js'
export { deadLetterNotice } from './dead-letter-notice.js'
export { renderSlackMessage, renderJsonAlert, escapeMrkdwn } from './render.js'
export type { SlackMessage, SlackBlock, JsonAlertBody } from './render.js'
export { syncQuarantineNotice } from './sync-quarantine-notice.js'
export type { SyncQuarantineIncident } from './sync-quarantine-notice.js'
