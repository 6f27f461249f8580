import {
  type Account,
  createBankClient,
  type BankClient,
  type BankClientOptions,
  type RequestEvent,
  type ResponseEvent,
} from '../../src/api-client/index.js'
import type { SandboxOptions } from '../../src/sandbox/index.js'
import { connectReadyBank, startSandbox, type SandboxHarness } from '../support/sandbox-harness.js'

export type ClientHarness = {
  harness: SandboxHarness
  /** A client with the full-access key whose retries wait no real time. */
  client: BankClient
  /** Every attempt the clients of this harness sent, as onRequest saw it. */
  requests: RequestEvent[]
  responses: ResponseEvent[]
  /** Every back-off the clients asked for, in ms (the injected sleep resolves at once). */
  sleeps: number[]
  clientWith(overrides?: Partial<BankClientOptions>): BankClient
  close(): Promise<void>
}

/** A sandbox plus a client pointed at it, recording every attempt and every back-off instead of waiting. */
export async function startClientHarness(
  options: { sandbox?: SandboxOptions; client?: Partial<BankClientOptions> } = {},
): Promise<ClientHarness> {
  const harness = await startSandbox(options.sandbox)
  const requests: RequestEvent[] = []
  const responses: ResponseEvent[] = []
  const sleeps: number[] = []
  const clientWith = (overrides: Partial<BankClientOptions> = {}) =>
    createBankClient({
      baseUrl: harness.url,
      apiKey: harness.apiKey,
      sleep: async (ms) => {
        sleeps.push(ms)
      },
      onRequest: (event) => requests.push(event),
      onResponse: (event) => responses.push(event),
      ...options.client,
      ...overrides,
    })
  return {
    harness,
    client: clientWith(),
    requests,
    responses,
    sleeps,
    clientWith,
    close: () => harness.close(),
  }
}

export type TransferPair = {
  connection: any
  accounts: Account[]
  /** Two open accounts of the connection in one currency: internal transfers do not convert. */
  source: Account
  destination: Account
}

/** Onboards banks until one has two open accounts in the same currency. */
export async function connectTransferPair(harness: SandboxHarness): Promise<TransferPair> {
  for (let attempt = 0; attempt < 20; attempt++) {
    const ready = await connectReadyBank(harness)
    const open = (ready.accounts as Account[]).filter((a) => a.status === 'open')
    const byBalance = [...open].sort(
      (a, b) => Number(b.availableBalance ?? 0) - Number(a.availableBalance ?? 0),
    )
    for (const source of byBalance) {
      const destination = open.find((a) => a !== source && a.currency === source.currency)
      if (destination) return { ...ready, source, destination }
    }
  }
  throw new Error('no connection with two open accounts in one currency after 20 tries')
}
