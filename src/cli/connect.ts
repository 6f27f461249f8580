import { createInterface } from 'node:readline'
import { Writable } from 'node:stream'
import { Command, InvalidArgumentError } from 'commander'
import {
  BankApiError,
  ValidationError,
  createBankClient,
  type BankClient,
  type Connection,
  type SetupConnection,
} from '../api-client/index.js'
import type { CommandIo } from './io.js'
import { prepareCommand } from './sidecar-command.js'

type ConnectOptions = {
  entity: string
  institution?: string
  portalUrl?: string
  username?: string
  customerId?: string
  passwordStdin?: boolean
  timeout: number
  pollInterval: number
}

type Credentials = { bankUsername?: string; bankCustomerId?: string; password?: string }

const NEXT_ACTION: Record<string, string> = {
  createDelegatedUser: 'the service is provisioning the delegated user’s email and phone number',
  provideCredentials: 'create the delegated user at the bank, then submit its credentials',
  activateConnection: 'activate the connection',
}

const ACTOR: Record<string, string> = {
  endUser: 'the business (end user) at its bank',
  integrator: 'you (bankrec)',
  service: 'the service',
}

function usageError(message: string): Error {
  return Object.assign(new Error(message), { exitCode: 2 })
}

function seconds(value: string): number {
  const parsed = Number(value)
  if (!Number.isFinite(parsed) || parsed <= 0)
    throw new InvalidArgumentError('must be a positive number of seconds')
  return parsed
}

function httpsUrl(value: string): string {
  try {
    if (new URL(value).protocol === 'https:') return value
  } catch {
    // Reported below.
  }
  throw new InvalidArgumentError('must be an https:// URL')
}

function describeBank(connection: Connection): string {
  return connection.institutionName ?? connection.portalUrl ?? 'unknown bank'
}

function instructionsText(connection: SetupConnection): string {
  const { instructions: i, nextAction, actionRequiredBy } = connection.setup
  return [
    'Delegated user to create at the bank (the service operates the bank workspace through this user):',
    `  name:      ${i.firstName} ${i.lastName}`,
    `  username:  ${i.username}`,
    `  email:     ${i.email} (provisioning: ${i.emailProvisioningStatus})`,
    `  phone:     ${i.phoneNumber} (provisioning: ${i.phoneNumberProvisioningStatus})`,
    `  address:   ${i.address}`,
    `Portal:      ${connection.portalUrl ?? 'not set'}`,
    `Next action: ${nextAction} — ${NEXT_ACTION[nextAction] ?? nextAction}`,
    `Who acts:    ${ACTOR[actionRequiredBy] ?? actionRequiredBy}`,
    '',
  ].join('\n')
}

function stepOf(connection: Connection): string {
  if (connection.kind === 'setup') {
    return `${connection.status} (setup: next ${connection.setup.nextAction} by ${connection.setup.actionRequiredBy})`
  }
  return `${connection.status} (ready)`
}

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  let text = ''
  for await (const chunk of stream)
    text += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8')
  return text
}

/** Asks on a terminal; with `masked` nothing typed is echoed. */
async function ask(io: CommandIo, question: string, masked: boolean): Promise<string> {
  let muted = false
  const output = new Writable({
    write(chunk, _encoding, done) {
      if (!muted) io.stdout.write(chunk)
      done()
    },
  })
  const rl = createInterface({ input: io.stdin!, output, terminal: true })
  try {
    const answer = new Promise<string>((resolve) => rl.question(question, resolve))
    muted = masked
    return (await answer).trim()
  } finally {
    muted = false
    if (masked) io.stdout.write('\n')
    rl.close()
  }
}

async function credentialsFrom(
  io: CommandIo,
  options: ConnectOptions,
  connection: SetupConnection,
): Promise<Credentials> {
  const given: Credentials = {}
  if (options.username) given.bankUsername = options.username
  if (options.customerId) given.bankCustomerId = options.customerId
  if (options.passwordStdin) {
    if (!io.stdin) throw usageError('--password-stdin needs a standard input')
    const password = (await readAll(io.stdin)).replace(/\r?\n$/, '')
    if (!password) throw usageError('--password-stdin read an empty password')
    return { ...given, password }
  }
  if (!io.stdin?.isTTY) {
    throw usageError(
      'No terminal to ask for the bank credentials: pass --username (and --customer-id) and the password on ' +
        'standard input with --password-stdin.',
    )
  }
  io.stdout.write(
    'Bank credentials of the delegated user (sent to the bank only; bankrec never stores them).\n',
  )
  const username =
    given.bankUsername ??
    (await ask(io, `Bank username [${connection.setup.instructions.username}]: `, false))
  const customerId = given.bankCustomerId ?? (await ask(io, 'Bank customer id (optional): ', false))
  const password = await ask(io, 'Password: ', true)
  if (!password) throw usageError('no password given')
  return {
    bankUsername: username || connection.setup.instructions.username,
    ...(customerId ? { bankCustomerId: customerId } : {}),
    password,
  }
}

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏']

/** A one-line spinner on a terminal; elsewhere nothing (each step is printed on its own line anyway). */
function spinner(io: CommandIo) {
  const tty = (io.stdout as { isTTY?: boolean }).isTTY === true
  let frame = 0
  let text = ''
  const timer = tty
    ? setInterval(() => io.stdout.write(`\r${FRAMES[frame++ % FRAMES.length]} ${text}\x1b[K`), 100)
    : undefined
  timer?.unref()
  return {
    set: (next: string) => (text = next),
    clear: () => tty && io.stdout.write('\r\x1b[K'),
    stop: () => {
      if (timer) clearInterval(timer)
      if (tty) io.stdout.write('\r\x1b[K')
    },
  }
}

async function waitUntilActive(
  io: CommandIo,
  client: BankClient,
  start: Connection,
  options: ConnectOptions,
): Promise<Connection> {
  const deadline = Date.now() + options.timeout * 1000
  const spin = spinner(io)
  let last = stepOf(start)
  let connection = start
  try {
    for (;;) {
      if (connection.kind === 'ready' && connection.status === 'active') return connection
      if (
        connection.status === 'reauthRequired' ||
        connection.status === 'invalidConfig' ||
        connection.status === 'revoked'
      ) {
        const reason = connection.errorMessage ?? connection.errorCode ?? 'no reason given'
        throw new Error(
          `connection ${connection.id} is ${connection.status} (${reason}); check the credentials and run ` +
            `bankrec connect again, or PUT /api/connections/${connection.id}/credentials`,
        )
      }
      if (Date.now() >= deadline) {
        throw new Error(
          `connection ${connection.id} is still ${stepOf(connection)} after ${options.timeout} s; it keeps ` +
            'activating on the bank side: check it with GET /api/connections/' +
            connection.id,
        )
      }
      spin.set(`waiting for activation: ${stepOf(connection)}`)
      await new Promise((resolve) => setTimeout(resolve, options.pollInterval * 1000))
      connection = await client.connections.get(connection.id)
      const step = stepOf(connection)
      if (step !== last) {
        spin.clear()
        io.stdout.write(`→ ${step}\n`)
        last = step
      }
    }
  } finally {
    spin.stop()
  }
}

async function connect(io: CommandIo, options: ConnectOptions): Promise<void> {
  if (!options.institution && !options.portalUrl)
    throw usageError('pass --institution <id> or --portal-url <url>')
  const { config } = prepareCommand(io)
  if (!config.BANK_API_URL) {
    throw usageError(
      'bankrec connect calls the bank directly: set BANK_API_URL and BANK_API_KEY (for a local sandbox, the URL ' +
        'and key `bankrec sandbox` prints), or use POST /api/connections of a running sidecar.',
    )
  }
  const client = createBankClient({ baseUrl: config.BANK_API_URL, apiKey: config.BANK_API_KEY! })
  let connection = await client.connections.create({
    entityId: options.entity,
    ...(options.institution ? { institutionId: options.institution } : {}),
    ...(options.portalUrl ? { portalUrl: options.portalUrl } : {}),
  })
  io.stdout.write(`Connection ${connection.id} at ${describeBank(connection)}: ${stepOf(connection)}\n`)
  if (connection.kind === 'setup') {
    io.stdout.write(instructionsText(connection))
    if (connection.status !== 'pendingActivation') {
      const credentials = await credentialsFrom(io, options, connection)
      connection = await client.connections.submitCredentials(connection.id, credentials)
      io.stdout.write(`Credentials sent to the bank: ${stepOf(connection)}\n`)
      if (connection.kind === 'setup' && connection.status !== 'pendingActivation') {
        connection = await client.connections.completeSetup(connection.id)
        io.stdout.write(
          `Setup marked complete; the service activates the connection: ${stepOf(connection)}\n`,
        )
      }
    }
  }
  const active = await waitUntilActive(io, client, connection, options)
  io.stdout.write(
    `Connection ${active.id} is ready and active (institution ${active.kind === 'ready' ? active.institutionId : ''}); ` +
      'its initial sync has started.\n',
  )
}

/**
 * `bankrec connect`: onboards a bank connection step by step. The bank credentials go to the bank and nowhere
 * else: never stored, logged or printed.
 */
export function connectCommand(io: CommandIo): Command {
  return new Command('connect')
    .description(
      'Connect a bank: create the connection, submit the delegated user’s credentials, wait until active',
    )
    .requiredOption('--entity <uuid>', 'the entity (business) the connection belongs to')
    .option('--institution <id>', 'a catalog institution id (GET /v1/institutions)')
    .option(
      '--portal-url <url>',
      'the bank’s online-banking portal, for a bank outside the catalog',
      httpsUrl,
    )
    .option('--username <name>', 'the delegated user’s bank username (scripts)')
    .option('--customer-id <id>', 'the bank customer id, when the bank asks for one (scripts)')
    .option('--password-stdin', 'read the bank password from standard input (scripts)')
    .option('--timeout <seconds>', 'how long to wait for activation', seconds, 600)
    .option('--poll-interval <seconds>', 'how often to check the connection while waiting', seconds, 2)
    .action(async (options: ConnectOptions) => {
      try {
        await connect(io, options)
      } catch (error) {
        // The client's errors carry the bank's message and request id, never the request body.
        if (error instanceof ValidationError) throw usageError(error.message)
        if (error instanceof BankApiError)
          throw new Error(`the bank refused: ${error.message} (${error.code})`)
        throw error
      }
    })
}
