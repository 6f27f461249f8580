/**
 * Words payers put before numbers, upper-cased as tokens are. A word for invoice before a number makes it more
 * likely an invoice number; a label for another kind of number (customer, order, trace, mandate) makes the number
 * that, whatever invoice it happens to equal.
 */
export const INVOICE_WORDS: ReadonlySet<string> = new Set(
  [
    'INVOICE INVOICES INV INVC INVS INVNO INVNR BILL FACT FACTS RECHNUNG RECHNUNGEN RECHN RECH RG RGN RGNR RE RENR',
    'RECHNUNGSNR RECHNUNGSNUMMER RNR FACTURE FACTURES FACTURA FACTURAS FAC FRA FAT FATTURA FATTURE FATT FT FAKTURA',
    'FAKTURANR FAKTURANUMMER FAKT FACTUUR FACTUURNR FACTUURNUMMER LASKU LASKUN LASKUNRO NOTA DOC DOCUMENT BELEG',
  ]
    .join(' ')
    .split(' '),
)

/**
 * Invoice words that are also something else: `RE` is English “regarding”, `FRA` Nordic “from”, `DOC`, `NOTA`,
 * `BELEG` any document. Like `No.`, `#` and `n°` they make a number more likely an invoice's (a core scores as one
 * after a word for invoice), but they never make a number of digits only a whole invoice number.
 */
export const WEAK_INVOICE_WORDS: ReadonlySet<string> = new Set('RE FRA DOC DOCUMENT NOTA BELEG'.split(' '))

/** Words that join the numbers of a list (`PO 4711 and 4712`): a label before the list covers all of them. */
export const LIST_WORDS: ReadonlySet<string> = new Set('AND UND ET Y E EN OG OCH JA I'.split(' '))

/** Words for “number” between a label and the number (`Invoice No. 1001`, `Kunden-Nr. 4711`). */
export const NUMBER_WORDS: ReadonlySet<string> = new Set(
  'NO NR NRO NUMBER NUM NUMMER NUMERO N NB NBR NUMER NUMMERO NUMERA'.split(' '),
)

export type NumberLabel = 'customer' | 'order' | 'trace' | 'mandate' | 'date' | 'document'

/** Labels of numbers that are not invoice numbers. */
export const OTHER_LABELS: ReadonlyMap<string, NumberLabel> = new Map([
  ...'CUSTOMER CUST CUSTNO CUSTID CLIENT CLIENTE KUNDE KUNDEN KUNDENNR KUNDENNUMMER KD KDNR KNR DEBITOR DEBITORENNR ACCOUNT ACCT ACC CONTRACT VERTRAG VERTRAGSNR VERTRAGS VERTRAGSNUMMER MEMBER MITGLIED MITGLIEDS MITGLIEDSNR ASIAKAS ASIAKASNRO KUNDENUMMER KUNDENR'
    .split(' ')
    .map((word) => [word, 'customer'] as const),
  ...'PO ORDER ORD PURCHASE BESTELLUNG BESTELL BESTELLNR AUFTRAG AUFTRAGSNR AUFTR AB COMMANDE CDE CMD PEDIDO ORDINE TILAUS ORDRE BESTILLING OFFER ANGEBOT QUOTE DEVIS LIEFERSCHEIN DELIVERY DN LS AUFTRAGS AUFTRAGSNUMMER BESTELLNUMMER ANGEBOTS ANGEBOTSNR ANGEBOTSNUMMER LIEFERSCHEINNR'
    .split(' ')
    .map((word) => [word, 'order'] as const),
  ...'TRACE TRN TRC E2E EREF ENDTOEND UETR BATCH IMAD OMAD'
    .split(' ')
    .map((word) => [word, 'trace'] as const),
  ...'MANDATE MREF MANDAT CRED CI SEPAMANDATE'.split(' ').map((word) => [word, 'mandate'] as const),
  ...'DATE DATUM DATED VOM DU DEL FECHA DATA PAIVAYS'.split(' ').map((word) => [word, 'date'] as const),
  ...'TICKET POLICY POLICE POLIZZA POLIZZE VERSICHERUNGSNR CLAIM SCHADEN SCHADENNR VAT VATNO UST USTID USTIDNR TAX TAXID STEUERNR SIREN SIRET'
    .split(' ')
    .map((word) => [word, 'document'] as const),
])

export const LABEL_NAMES: Record<NumberLabel, string> = {
  customer: 'a customer or account number',
  order: 'an order or PO number',
  trace: 'a trace or end-to-end number',
  mandate: 'a mandate or creditor id',
  date: 'a date',
  document: 'a ticket, policy, claim or tax number',
}

/** Labels in front of a national structured reference written in free text. */
export const STRUCTURED_LABELS: ReadonlySet<string> = new Set(
  'KID VIITE VIITENUMERO VIITENRO REF REFNR REFERANSE REFERENS OCR QRR REFERENZ REFERENCE'.split(' '),
)
