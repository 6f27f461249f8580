import { Command, CommanderError } from 'commander'
import { pino } from 'pino'
import { createRedisWebhookEventQueue } from '../queue/index.js'
import { createReceiverServer, parseReceiverConfig } from '../receiver/index.js'
import type { CommandIo } from './io.js'

/** `bankrec receiver`: the standalone webhook receiver, configured from the environment. */
export function receiverCommand(io: CommandIo): Command {
  return new Command('receiver')
    .description(
      'Run the standalone webhook receiver: POST /webhooks, GET /healthz, /readyz, /metrics.\n' +
        'Environment: WEBHOOK_SECRETS (comma-separated, newest first), REDIS_URL, PORT (8080), HOST (127.0.0.1),\n' +
        'QUEUE_PREFIX (bankrec), WEBHOOK_BODY_LIMIT_BYTES (262144), WEBHOOK_TOLERANCE_SECONDS (300), LOG_LEVEL (info)',
    )
    .action(async () => {
      const parsed = parseReceiverConfig(io.env)
      if (!parsed.ok) {
        io.stderr.write(
          `bankrec receiver: invalid configuration:\n${parsed.problems.map((p) => `  - ${p}\n`).join('')}`,
        )
        throw new CommanderError(1, 'bankrec.invalidConfig', 'invalid configuration')
      }
      const { config } = parsed
      const logger = pino({ level: config.logLevel, base: { service: 'bankrec-receiver' } }, io.stdout)
      const queue = createRedisWebhookEventQueue({
        url: config.redisUrl,
        prefix: config.queuePrefix,
        onError: (error) => logger.warn({ err: error.message }, 'queue connection error'),
      })
      const server = createReceiverServer({
        secrets: config.secrets,
        queue,
        bodyLimitBytes: config.bodyLimitBytes,
        toleranceSeconds: config.toleranceSeconds,
        logger,
        onError: (error, context) => logger.error({ ...context, err: error }, 'receiver error'),
      })
      const url = await server.listen({ port: config.port, host: config.host })
      logger.info({ url: `${url}/webhooks`, secrets: config.secrets.length }, 'receiver listening')
      await io.untilStopped()
      await server.close()
      await queue.close()
      logger.info('receiver stopped')
    })
}
