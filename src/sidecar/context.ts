import type { Queue } from 'bullmq'
import type { AlertPublisher } from '../alert-delivery/index.js'
import type { ConnectionHealthMonitor } from '../connection-health/index.js'
import type { AppEvents } from '../app-events/index.js'
import type { Clock } from '../clock/index.js'
import type { BankrecEnv } from '../config/index.js'
import type { Logger } from '../observability/index.js'
import type { OutboundWorkers } from '../pipeline/index.js'
import type { ConnectionSyncJobData, QueueBackendConfig } from '../queue/index.js'
import type { ConnectionLookup } from '../webhook-events/index.js'
import type { MatchingService } from '../matching/index.js'
import type { ClosingService } from '../closing/index.js'
import type { Users } from '../users/index.js'
import type { SidecarAuth } from './auth/index.js'
import type { SidecarMetrics } from './metrics.js'
import type { OpenBank } from './open-bank.js'
import type { OpenStore } from './open-store.js'
import type { WebhookSecrets } from '../webhook-secrets/index.js'

/** What one process runs: `bankrec start --roles`. */
export type SidecarRole = 'receiver' | 'worker' | 'api'

/** Everything a running sidecar holds; API routes and commands take what they need from it. */
export type SidecarContext = {
  config: BankrecEnv
  logger: Logger
  clock: Clock
  store: OpenStore
  bank: OpenBank
  backend: QueueBackendConfig
  syncQueue: Queue<ConnectionSyncJobData>
  requestSync(connectionId: string, reason: string): Promise<void>
  /** The connection's mirror row, else the bank once (then mirrored with its health). */
  connectionLookup: ConnectionLookup
  /** A sync of a connection named from outside (API, dashboard): false, queuing nothing, when it is no connection. */
  requestKnownSync(connectionId: string, reason: string): Promise<boolean>
  webhookSecrets: WebhookSecrets
  /** Notices to operations: stored once per id, delivered through the alert-deliveries queue. */
  alerts: AlertPublisher
  /** Connection health: status observations and the time-driven rules, turned into alerts. */
  connectionHealth: ConnectionHealthMonitor
  /** KIT_API_TOKEN, or in sandbox mode one generated and kept beside the simulated bank's state (sandbox-api-token.ts). */
  apiToken: string
  /** Events to the company's own app: `appEvents.publish(trx, event)` records one in the caller's transaction. */
  appEvents: AppEvents
  /** The transfer tracker and the app event delivery; set in a process with the worker role. */
  outbound: OutboundWorkers | null
  /** The Prometheus registry behind GET /metrics; feeders add gauges with registerGauge/feed. */
  metrics: SidecarMetrics
  /** Every BullMQ queue of the sidecar (webhook events, connection syncs, alerts), for metrics and the queue board. */
  queues: Queue[]
  /** The matching run: the outbox drained here or through the queue, the automatic mode, the trust report (src/matching). */
  matching: MatchingService
  /** A person's closing work (matches, dispositions, write-offs, remittance, approvals), each followed by a run (src/closing). */
  closing: ClosingService
  /** Named users with roles (docs/users.md). */
  users: Users
  /** Who a request is (Bearer token or session cookie), with the failed-attempt throttle. */
  auth: SidecarAuth
  /** Deployment problems found at start (Redis without persistence), shown by /readyz and the dashboard. */
  warnings: string[]
}
