export { createWebhookSecrets } from './webhook-secrets.js'
export type { WebhookSecrets } from './webhook-secrets.js'
