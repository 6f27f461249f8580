import { html, type SafeHtml } from './html.js'

/** Where the typeahead asks, with the session cookie: the same search as GET /api/open-invoices. */
export const OPEN_INVOICE_SEARCH = '/dashboard/open-invoices'

/**
 * The invoice field of a manual match: as a person types a number, customer or amount, the page's script asks
 * the server for matching open invoices (in the payment's currency) and offers them in the field's own list.
 * Without script it is a plain invoice id field.
 */
export function invoiceTypeahead(key: string, currency: string | null): SafeHtml {
  const list = `open-invoices-${key.replace(/[^\w-]/g, '')}`
  return html`<input
      name="invoiceId"
      list="${list}"
      placeholder="invoice no., customer or amount"
      aria-label="Invoice"
      autocomplete="off"
      data-typeahead="${OPEN_INVOICE_SEARCH}"
      data-currency="${currency ?? ''}"
      required
    /><datalist id="${list}"></datalist>`
}
