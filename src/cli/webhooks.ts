import { Command } from 'commander'
import { createBankClient } from '../api-client/index.js'
import { openStore, registerWebhook, rotateWebhookSecret } from '../sidecar/index.js'
import type { CommandIo } from './io.js'
import { prepareCommand } from './sidecar-command.js'

function usageError(message: string): Error {
  return Object.assign(new Error(message), { exitCode: 2 })
}

/** A sandbox on this machine accepts http:// webhook URLs on loopback; a real bank takes HTTPS only. */
function isLoopbackHttp(url: string): boolean {
  const { protocol, hostname } = new URL(url)
  return protocol === 'http:' && ['127.0.0.1', 'localhost', '[::1]'].includes(hostname)
}

/** `bankrec webhooks register`: registers this sidecar's URL with the bank and stores the secret. */
export function webhooksCommand(io: CommandIo): Command {
  const register = new Command('register')
    .description(
      "Register this sidecar's webhook URL with the bank (BANK_API_URL), or update the registration it already " +
        'has for that URL, and store the secret; a running sidecar picks a new secret up within 5 s, no restart',
    )
    .option('--url <url>', 'the URL the bank delivers to (default: $PUBLIC_URL/webhooks)')
    .option('--rotate', 'replace the registration with a new one, so the bank issues a new secret', false)
    .action(async (options: { url?: string; rotate: boolean }) => {
      const { config, logger } = prepareCommand(io)
      if (!config.BANK_API_URL) {
        throw usageError(
          'webhooks register needs BANK_API_URL and BANK_API_KEY; in sandbox mode `bankrec start` registers itself.',
        )
      }
      const url =
        options.url ?? (config.PUBLIC_URL ? `${config.PUBLIC_URL.replace(/\/+$/, '')}/webhooks` : '')
      if (!url)
        throw usageError('give --url, or set PUBLIC_URL to the address the bank reaches this sidecar at.')
      if (!URL.canParse(url)) throw usageError(`--url ${url} is not a URL.`)
      const client = createBankClient({
        baseUrl: config.BANK_API_URL,
        apiKey: config.BANK_API_KEY!,
        allowHttpLoopbackWebhooks: isLoopbackHttp(config.BANK_API_URL),
      })
      const store = await openStore(config, logger)
      try {
        if (options.rotate) {
          const outcome = await rotateWebhookSecret(client, store.db, store.secretBox, url)
          io.stdout.write(`webhook ${outcome.id} registered for ${url} with a new secret (stored)\n`)
          for (const id of outcome.replaced) io.stdout.write(`replaced webhook ${id}\n`)
        } else {
          const outcome = await registerWebhook(client, store.db, store.secretBox, url)
          io.stdout.write(
            outcome.action === 'created'
              ? `webhook ${outcome.id} registered for ${url}; its secret is stored\n`
              : `webhook ${outcome.id} for ${url} updated; the stored secret still applies\n`,
          )
        }
        io.stdout.write('running sidecars accept the stored secret within 5 s\n')
      } finally {
        await store.close()
      }
    })
  return new Command('webhooks')
    .description("Manage this sidecar's webhook registration with the bank")
    .addCommand(register)
}
