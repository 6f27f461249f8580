import { describe, expect, it } from 'vitest'
import { ApiError } from './api-error.js'
import { TRANSACTION_FIELDS, presentTransaction, selectTransactionFields } from './present-transaction.js'
import type { TransactionRecord } from './state.js'

const record = {
  id: '00000000-0000-4000-8000-000000000001',
  connectionId: '00000000-0000-4000-8000-000000000002',
  accountId: '00000000-0000-4000-8000-000000000003',
  amount: '-12.50',
  currency: 'USD',
  status: 'posted',
  orgId: 'org_main',
  entityId: 'e1',
  createdSeq: 1,
  seq: 2,
  eventId: 'sev_1',
  eventAt: new Date(),
} as TransactionRecord

describe('presentTransaction', () => {
  it('writes every API field, null where the bank reports nothing, and strips the bank bookkeeping', () => {
    const presented = presentTransaction(record)
    expect(Object.keys(presented)).toEqual([...TRANSACTION_FIELDS])
    expect(presented).toMatchObject({ amount: '-12.50', description: null, merchantName: null })
  })

  it('fields: keeps only the named fields plus id, connectionId and accountId', () => {
    expect(selectTransactionFields(presentTransaction(record), 'amount')).toEqual({
      id: record.id,
      connectionId: record.connectionId,
      accountId: record.accountId,
      amount: '-12.50',
    })
  })

  it('fields: an unknown field name is a validation error', () => {
    expect(() => selectTransactionFields(presentTransaction(record), 'amount,orgId')).toThrow(ApiError)
  })
})
