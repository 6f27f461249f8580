import { describe, expect, it } from 'vitest'
import { remittancePurpose, unwrapRemittance } from './unwrap-remittance.js'

describe('unwrapRemittance', () => {
  it('reads MT940 purpose subfields filled to 27 characters as one line, a number broken at ?21/?22 joined', () => {
    const line21 = 'SVWZ+Zahlung Rechnung INV-2'
    expect(line21).toHaveLength(27)
    expect(unwrapRemittance(`166?00GUTSCHRIFT?20EREF+NOTPROVIDED?21${line21}?22024-0103 Danke?32ACME`)).toBe(
      '166 GUTSCHRIFT EREF+NOTPROVIDED SVWZ+Zahlung Rechnung INV-2024-0103 Danke ACME',
    )
  })

  it('keeps a break after a line the payer ended short, and drops SWIFT line breaks inside :86:', () => {
    expect(unwrapRemittance('?20Rechnung 4711?214712 Danke')).toBe('Rechnung 4711 4712 Danke')
    expect(unwrapRemittance('?20Rechnung INV-2024-01\n03?21Danke')).toBe('Rechnung INV-2024-0103 Danke')
  })

  it('joins 35-character SEPA lines that run on, and keeps other lines apart', () => {
    const first = 'Payment for goods delivered INV-202'
    expect(first).toHaveLength(35)
    expect(unwrapRemittance(`${first}\n4-0102 thank you\nACME`)).toBe(`${first}4-0102 thank you ACME`)
    expect(unwrapRemittance('INV-2024-0102\n2024-0103')).toBe('INV-2024-0102 2024-0103')
  })

  it('leaves a text without line breaks or subfields as it is', () => {
    const text = 'SVWZ+Rechnung INV-2024-0102 ?'
    expect(unwrapRemittance(text)).toBe(text)
  })
})

describe('remittancePurpose', () => {
  it('keeps only the purpose subfields of an MT940 :86:, read whole', () => {
    expect(
      remittancePurpose(
        '166?00SEPA-UEBERWEISUNG?109310?20EREF+NOTPROVIDED?21SVWZ+Zahlung Rechnung INV-2?22024-0103?30BYLADEMMXXX?31DE51500105176511349705?32JAEGER BAU GMBH?34000',
      ),
    ).toBe('EREF+NOTPROVIDED SVWZ+Zahlung Rechnung INV-2024-0103')
  })

  it('reads any other text with its wrapped lines joined', () => {
    expect(remittancePurpose('Rechnung 4711')).toBe('Rechnung 4711')
  })
})
