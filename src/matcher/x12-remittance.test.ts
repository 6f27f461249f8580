import { describe, expect, it } from 'vitest'
import { toUnits } from './money.js'
import { remittanceLines } from './x12-remittance.js'

describe('remittanceLines (X12 820 RMR*IV with ADX)', () => {
  it('reads each RMR*IV line with its paid and invoiced amounts and the adjustments under it', () => {
    const lines = remittanceLines(
      'ST*820*0001~BPR*C*7655.23*C*ACH*CTX~TRN*1*0000412399~N1*PR*SUMMIT MEDICAL CORP.~ENT*1~RMR*IV*100613*PI*6334.33*6434.33~ADX*-100.00*01~RMR*IV*100039*PI*1082.90*1082.90~SE*9*0001~',
    )
    expect(lines).toEqual([
      {
        number: '100613',
        paid: toUnits('6334.33'),
        invoiced: toUnits('6434.33'),
        discount: 0n,
        adjustments: [{ amount: toUnits('-100.00'), reason: '01' }],
      },
      {
        number: '100039',
        paid: toUnits('1082.90'),
        invoiced: toUnits('1082.90'),
        discount: 0n,
        adjustments: [],
      },
    ])
  })

  it('reads a CCD+ addenda without the invoiced amount, and a discount in RMR06', () => {
    expect(remittanceLines('RMR*IV*INV-1054*PI*250.00\\')[0]).toMatchObject({
      paid: toUnits('250'),
      invoiced: null,
    })
    expect(remittanceLines('RMR*IV*1054*PI*98.00*100.00*2.00~')[0]?.discount).toBe(toUnits('2.00'))
  })

  it('trusts nothing of a remittance with a line it cannot read', () => {
    expect(remittanceLines('RMR*IV*1054*PI*ABC~RMR*IV*1055*PI*10.00~')).toEqual([])
    expect(remittanceLines('ADX*-5.00*01~RMR*IV*1055*PI*10.00~')).toEqual([])
    expect(remittanceLines('INVOICE 1054')).toEqual([])
  })
})
