import { readFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import {
  createInvoices,
  parseInvoiceCsv,
  type InvoiceInput,
  type InvoicesContext,
} from '../invoices/index.js'

/** The 60 invoices the demo story pays (fixtures/invoices/demo.csv; the same path from src/ and from dist/). */
export const DEMO_INVOICES_FILE = fileURLToPath(new URL('../../fixtures/invoices/demo.csv', import.meta.url))

export async function readDemoInvoices(file = DEMO_INVOICES_FILE): Promise<InvoiceInput[]> {
  const parsed = await parseInvoiceCsv(await readFile(file))
  if (!parsed.ok) {
    const first = parsed.errors[0]
    throw new Error(
      `the demo invoices in ${file} do not import: line ${first?.line}: ${JSON.stringify(first)}`,
    )
  }
  return parsed.invoices
}

/**
 * Loads the demo invoices that are not there yet (a restarted demo finds the ones it loaded before and leaves
 * them, and whatever matching made of them, alone). Returns how many it created.
 */
export async function loadDemoInvoices(
  context: InvoicesContext,
  invoices: readonly InvoiceInput[],
): Promise<{ created: number; present: number }> {
  const library = createInvoices(context)
  const missing: InvoiceInput[] = []
  for (const invoice of invoices) if (!(await library.get(invoice.id))) missing.push(invoice)
  if (missing.length > 0) await library.upsert(missing)
  return { created: missing.length, present: invoices.length - missing.length }
}
