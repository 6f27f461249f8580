import type { CsvSchema } from '../csv-rows/index.js'
import { validateCustomer, type CustomerInput } from './customer-input.js'

export const CUSTOMER_CSV_COLUMNS = ['id', 'name', 'aliases', 'bankAccounts'] as const
export type CustomerCsvColumn = (typeof CUSTOMER_CSV_COLUMNS)[number]

/** A customer file: aliases and bank accounts separated by `|`. */
export const CUSTOMER_CSV_SCHEMA: CsvSchema<CustomerCsvColumn, CustomerInput> = {
  noun: 'a customer',
  columns: CUSTOMER_CSV_COLUMNS,
  required: ['id', 'name'],
  lists: ['aliases', 'bankAccounts'],
  validate(fields) {
    const result = validateCustomer(fields)
    return result.ok ? { ok: true, value: result.customer } : result
  },
}
