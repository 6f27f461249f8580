/** What an account of the chart is for: a disposition's kind, or credit notes. */
export const ACCOUNT_KINDS = [
  'write_off',
  'clearing',
  'refund',
  'on_account',
  'ignore',
  'credit_note',
] as const
export type AccountKind = (typeof ACCOUNT_KINDS)[number]

/** The configured ledger accounts (LEDGER_ACCOUNTS), in order; the first of a kind is its default. */
export type LedgerChart = ReadonlyArray<{ account: string; kind: AccountKind }>

/** What an install without LEDGER_ACCOUNTS books to: the accounts bankrec used before the chart. */
export const DEFAULT_LEDGER_CHART: LedgerChart = [
  { account: 'Write-offs', kind: 'write_off' },
  { account: 'Suspense', kind: 'clearing' },
  { account: 'Refunds payable', kind: 'refund' },
  { account: 'Customer credit', kind: 'on_account' },
  { account: 'Not receivables', kind: 'ignore' },
]

const ACCOUNT = /^[\w .:/-]{1,64}$/

/** `6800:write_off,1590:clearing`: each item an account and its kind after the last `:`; a problem per bad item. */
export function parseLedgerChart(value: string): { chart: LedgerChart; problems: string[] } {
  const chart: Array<{ account: string; kind: AccountKind }> = []
  const problems: string[] = []
  for (const item of value.split(',').map((part) => part.trim())) {
    const at = item.lastIndexOf(':')
    const account = item.slice(0, Math.max(at, 0)).trim()
    const kind = item.slice(at + 1).trim() as AccountKind
    if (at < 0 || !ACCOUNT.test(account)) {
      problems.push(
        `"${item}": must be ACCOUNT:KIND, the account 1 to 64 letters, digits, spaces or _ . : / -`,
      )
    } else if (!ACCOUNT_KINDS.includes(kind)) {
      problems.push(`"${item}": the kind must be one of ${ACCOUNT_KINDS.join(', ')}`)
    } else if (chart.some((entry) => entry.account === account)) {
      problems.push(`"${item}": ${account} is given twice`)
    } else chart.push({ account, kind })
  }
  return { chart, problems }
}

/**
 * The chart in force: LEDGER_ACCOUNTS (else the defaults), with the configured write-off accounts
 * (MATCH_WRITE_OFF_ACCOUNT(S)) added as `write_off`, the credit-note reason's as `credit_note`.
 */
export function ledgerChartOf(
  configured: LedgerChart | undefined,
  writeOffs: { account: string; byReason: Readonly<Record<string, string>> },
): LedgerChart {
  const chart = [...(configured ?? DEFAULT_LEDGER_CHART)]
  const add = (account: string, kind: AccountKind) => {
    if (!chart.some((entry) => entry.account === account && entry.kind === kind))
      chart.push({ account, kind })
  }
  for (const [reason, account] of Object.entries(writeOffs.byReason)) {
    add(account, reason === 'credit_note' ? 'credit_note' : 'write_off')
  }
  add(writeOffs.account, 'write_off')
  if (!Object.hasOwn(writeOffs.byReason, 'credit_note')) add(writeOffs.account, 'credit_note')
  return chart
}

/** The accounts of one kind. */
export function accountsOfKind(chart: LedgerChart, kind: AccountKind): string[] {
  return chart.filter((entry) => entry.kind === kind).map((entry) => entry.account)
}

/**
 * The account an operation books to: the one named, if the chart has it for that kind, else the kind's first; a
 * problem naming the configured ones otherwise (the caller answers 400 with the field).
 */
export function chartAccount(
  chart: LedgerChart,
  kind: AccountKind,
  named: string | undefined,
): { ok: true; account: string } | { ok: false; message: string } {
  const accounts = accountsOfKind(chart, kind)
  if (named === undefined && accounts[0] !== undefined) return { ok: true, account: accounts[0] }
  if (named !== undefined && accounts.includes(named)) return { ok: true, account: named }
  const known = accounts.length > 0 ? accounts.map((account) => JSON.stringify(account)).join(', ') : 'none'
  return {
    ok: false,
    message:
      named === undefined
        ? `no ${kind} account is configured (LEDGER_ACCOUNTS)`
        : `${JSON.stringify(named)} is no ${kind} account of the chart (LEDGER_ACCOUNTS); configured: ${known}`,
  }
}
