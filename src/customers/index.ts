export { createCustomers, CustomerError, CustomerListQuery } from './create-customers.js'
export type {
  Customers,
  CustomersContext,
  CustomerImportResult,
  CustomerList,
  CustomerUpsertResult,
} from './create-customers.js'
export { validateCustomer, CustomerInputSchema } from './customer-input.js'
export type { CustomerInput, CustomerValidation } from './customer-input.js'
export { customerView } from './customer-view.js'
export type { Customer, LearnedLink } from './customer-view.js'
export { CUSTOMER_CSV_COLUMNS, CUSTOMER_CSV_SCHEMA } from './customer-csv.js'
export { customerWrite } from './customer-keys.js'
export { rekeyCustomers } from './rekey-customers.js'
