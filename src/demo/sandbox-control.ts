import { CONTROL_HEADER } from '../sandbox/index.js'

/** A transaction as the sandbox's control API shows it (the fields the story reads). */
export type ControlTransaction = {
  id: string
  accountId: string
  amount: string
  currency: string
  status: string
  bankReference: string | null
}

export type ControlAccount = { id: string; currency: string; type: string; name: string }

export type NewControlTransaction = {
  accountId: string
  amount: string
  currency: string
  status: 'pending' | 'posted'
  rail: string
  counterpartyName: string
  bankReference: string
  paymentReference: string | null
  customerReference: string | null
  description?: string
}

/** The sandbox's control API (/_sandbox, docs/sandbox.md): the bank's side of things, with its Sandbox-Control header. */
export type SandboxControl = {
  state(connectionId: string): Promise<{ accounts: ControlAccount[]; transactions: ControlTransaction[] }>
  addTransaction(connectionId: string, transaction: NewControlTransaction): Promise<ControlTransaction>
  postTransaction(transactionId: string): Promise<ControlTransaction>
}

export function sandboxControl(baseUrl: string, fetchFn: typeof fetch = globalThis.fetch): SandboxControl {
  const call = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const response = await fetchFn(`${baseUrl}/_sandbox${path}`, {
      method,
      headers: {
        [CONTROL_HEADER]: 'bankrec-demo',
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    const text = await response.text()
    if (!response.ok)
      throw new Error(`sandbox control ${method} ${path} answered ${response.status}: ${text}`)
    return JSON.parse(text) as T
  }
  return {
    state: (connectionId) => call('GET', `/state?connectionId=${encodeURIComponent(connectionId)}`),
    addTransaction: (connectionId, transaction) =>
      call('POST', `/connections/${encodeURIComponent(connectionId)}/transactions`, transaction),
    postTransaction: (transactionId) =>
      call('PATCH', `/transactions/${encodeURIComponent(transactionId)}`, { status: 'posted' }),
  }
}
