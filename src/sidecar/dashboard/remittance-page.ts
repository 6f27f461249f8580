import type { RemittanceResult } from '../../closing/index.js'
import { money, shortId } from './format.js'
import { html, type SafeHtml } from './html.js'

/** What importing an advice from the dashboard came to: settled, or refused with the reasons and proposed split. */
export type RemittanceOutcome =
  | { ok: true; result: RemittanceResult; numbers: Map<string, string>; currency: string | null }
  | { ok: false; status: number; message: string; details: ReadonlyArray<{ path: string; message: string }> }

/** The form on a bank line's exception: paste or upload a remittance advice (CSV or camt.054 XML). */
export function remittanceForm(transactionId: string, back: string): SafeHtml {
  return html`<details class="remittance">
    <summary>Import remittance advice</summary>
    <form method="post" action="/dashboard/transactions/${transactionId}/remittance" class="remittance">
      <input type="hidden" name="back" value="${back}" />
      <textarea
        name="advice"
        rows="4"
        cols="40"
        required
        aria-label="Remittance advice"
        placeholder="invoiceNumber,amount,fee&#10;INV-2001,500.00,7.50&#10;… or a camt.054 XML notification"
      ></textarea
      ><br /><input
        type="file"
        accept=".csv,.xml,text/csv,application/xml,text/xml"
        data-fill="advice"
        aria-label="Advice file"
      /><br /><select name="feeReason" aria-label="Fee reason">
        <option value="bank_fee">bank fee</option>
        <option value="psp_fee">PSP fee</option></select
      ><input
        name="entry"
        placeholder="camt.054 entry (if several)"
        aria-label="Entry"
        maxlength="35"
      /><button type="submit">Import advice</button>
    </form>
  </details>`
}

export function renderRemittanceOutcome(
  transactionId: string,
  outcome: RemittanceOutcome,
  back: string,
): SafeHtml {
  const backLink = html`<p><a href="${back}">Back</a></p>`
  if (!outcome.ok) {
    return html`<section class="wide" id="remittance-outcome" data-outcome="refused">
      <h2>Remittance advice not applied <small>bank line ${shortId(transactionId)}</small></h2>
      <p class="notice error" role="alert">${outcome.message}</p>
      ${
        outcome.details.length > 0 &&
        html`<h3>Proposed split and reasons</h3>
          <table id="remittance-details">
            <tbody>
              ${outcome.details.map(
                (detail) =>
                  html`<tr>
                    <th>${detail.path}</th>
                    <td>${detail.message}</td>
                  </tr>`,
              )}
            </tbody>
          </table>`
      }
      ${backLink}
    </section>`
  }
  const { result, numbers, currency } = outcome
  const waits = result.status === 'pending_approval'
  return html`<section class="wide" id="remittance-outcome" data-outcome="${waits ? 'pending' : 'settled'}">
    <h2>Remittance advice imported <small>bank line ${shortId(transactionId)}</small></h2>
    <p class="notice ok" role="status">
      ${
        waits
          ? html`Waits for a second person's approval (<a href="/dashboard/approvals">Approvals</a>):
              ${money(result.writeOff, currency)} to write off; nothing is applied until then.`
          : html`Settled ${result.matches.length} invoices; ${money(result.writeOff, currency)} written off
            (difference ${money(result.difference, currency)}).`
      }
    </p>
    <table id="remittance-matches">
      <thead>
        <tr>
          <th>Invoice</th>
          <th class="num">Paid</th>
          <th class="num">Written off</th>
        </tr>
      </thead>
      <tbody>
        ${result.matches.map(
          (match) =>
            html`<tr data-invoice-id="${match.invoiceId}">
              <td>
                <a href="/dashboard/invoices/${encodeURIComponent(match.invoiceId)}"
                  >${numbers.get(match.invoiceId) ?? match.invoiceId}</a
                >
              </td>
              <td class="num">${money(match.amount, currency)}</td>
              <td class="num">${match.writeOff ? money(match.writeOff, currency) : ''}</td>
            </tr>`,
        )}
      </tbody>
    </table>
    ${backLink}
  </section>`
}
