import { Decimal } from 'decimal.js'
import type { BookInvoice } from '../../test/support/realistic-book.js'
import { bankName, ccdAddenda } from '../../test/support/bank-lines.js'
import { minus } from '../../test/support/case-kit.js'
import { kit } from './kit.js'

const { add, after, applied, nameOf, othersOf, p, person, sum, tx, unique, us } = kit

/** An X12 820 as an ACH CTX addenda prints it: header, the remittance segments given, trailer. */
function x12(payer: string, trace: string, total: string, date: string, segments: string[]): string {
  return (
    [
      'ST*820*0001',
      `BPR*C*${total}*C*ACH*CTX*01*071000013*DA*1234567890*1${trace.slice(0, 9)}**01*021000021*DA*987654321*${date}`,
      `TRN*1*${trace}*1${trace.slice(0, 9)}`,
      `N1*PR*${payer}`,
      'N1*PE*NORTHWIND COMMERCE INC',
      'ENT*1',
      ...segments,
      `SE*${7 + segments.length}*0001`,
    ].join('~') + '~'
  )
}

const rmr = (invoice: BookInvoice | string, paid: string, invoiced: string, discount?: string) =>
  `RMR*IV*${typeof invoice === 'string' ? invoice : invoice.number}*PI*${paid}*${invoiced}${discount ? `*${discount}` : ''}`

/** A US customer with `count` open invoices over `minimum`, each used once. */
function threeOf(count: number, minimum = 300): BookInvoice[] {
  const a = p.pick(
    (i) =>
      us(i) &&
      new Decimal(i.amount).greaterThan(minimum) &&
      othersOf(i).filter((o) => new Decimal(o.amount).greaterThan(50)).length >= count - 1,
  )
  const rest = othersOf(a)
    .filter((o) => new Decimal(o.amount).greaterThan(50))
    .slice(0, count - 1)
  for (const other of rest) p.markUsed(other)
  return [a, ...rest]
}

function ctx(id: string, a: BookInvoice, total: string, date: string, segments: string[], trace: string) {
  const payer = bankName(nameOf(a))
  return tx(id, a, total, date, {
    paymentReference: x12(payer, trace, total, date.replace(/-/g, ''), segments),
    description: `ACH CREDIT CTX ${bankName(nameOf(a), 16)} EDI PYMNTS`,
    counterpartyName: payer,
  })
}

const WHY = 'ACH CTX with an X12 820 (BPR, TRN, N1*PR, RMR*IV paid/invoiced, ADX)'

/** Stated X12 remittance (rule 12) and the traps around it. */
export function x12Cases(): void {
  {
    const [a, b, c] = threeOf(3) as [BookInvoice, BookInvoice, BookInvoice]
    const short = minus(a.amount, '45.00')
    const total = new Decimal(short).plus(b.amount).plus(c.amount).toFixed(2)
    const date = after([a, b, c])
    add({
      id: 'h2-ctx-adx-ok',
      title: 'CTX 820: three invoices, one short by an ADX pricing deduction with its reason',
      why: `${WHY}; the paid amounts add up to the BPR total and the short line states ADX*-45.00*01`,
      tags: ['ach', 'ctx', 'x12', 'stated-remittance', 'ordinary'],
      payment: ctx(
        'h2-ctx-adx-ok',
        a,
        total,
        date,
        [rmr(a, short, a.amount), 'ADX*-45.00*01', rmr(b, b.amount, b.amount), rmr(c, c.amount, c.amount)],
        '0000551201',
      ),
      expect: applied([a, b, c], { [a.id]: short, [b.id]: b.amount, [c.id]: c.amount }),
    })
  }
  {
    const [a, b] = threeOf(2) as [BookInvoice, BookInvoice]
    const s = p.pick((i) => us(i) && i.customerId !== a.customerId && new Decimal(i.amount).greaterThan(50))
    const short = minus(a.amount, '30.00')
    const total = new Decimal(short).plus(b.amount).plus(s.amount).toFixed(2)
    add({
      id: 'h2-ctx-stranger-line',
      title: 'CTX 820 adds up to the cent, but one RMR line names another customer’s invoice',
      why: `${WHY}; RMR sum = BPR total, an ADX on the payer’s own short line, a third line is another customer’s invoice`,
      tags: ['ach', 'ctx', 'x12', 'stated-remittance', 'trap'],
      payment: ctx(
        'h2-ctx-stranger-line',
        a,
        total,
        after([a, b, s]),
        [rmr(a, short, a.amount), 'ADX*-30.00*CS', rmr(b, b.amount, b.amount), rmr(s, s.amount, s.amount)],
        '0000551202',
      ),
      expect: person('suggested', [a, b, s]),
    })
  }
  {
    const [a, b] = threeOf(2) as [BookInvoice, BookInvoice]
    const voided: BookInvoice = {
      id: 'inv_h2_void_1',
      number: p.unissued('1', 9),
      amount: '412.50',
      currency: 'USD',
      customerId: a.customerId,
      customerName: a.customerName,
      issueDate: a.issueDate,
      dueDate: a.dueDate,
      entityId: a.entityId,
      accountId: a.accountId,
      void: true,
    }
    const short = minus(a.amount, '20.00')
    const total = new Decimal(short).plus(b.amount).plus(voided.amount).toFixed(2)
    add({
      id: 'h2-ctx-void-line',
      title: 'CTX 820: one RMR line pays an invoice we voided',
      why: `${WHY}; the payer’s AP still holds a voided invoice and pays it beside a short line with ADX*-20.00*01`,
      tags: ['ach', 'ctx', 'x12', 'stated-remittance', 'void', 'trap'],
      invoices: [voided],
      payment: ctx(
        'h2-ctx-void-line',
        a,
        total,
        after([a, b]),
        [
          rmr(a, short, a.amount),
          'ADX*-20.00*01',
          rmr(b, b.amount, b.amount),
          rmr(voided.number, voided.amount, voided.amount),
        ],
        '0000551203',
      ),
      expect: person('suggested', [a, b]),
    })
  }
  {
    const [a, b, c] = threeOf(3) as [BookInvoice, BookInvoice, BookInvoice]
    const date = after([a, b, c], 25)
    const earlier = tx('h2-ctx-paid-line-prior', c, c.amount, after([c], 10), {
      paymentReference: ccdAddenda(c.number, c.amount),
      description: `ACH CREDIT CCD ${bankName(nameOf(c), 16)} PAYMENTS`,
      counterpartyName: bankName(nameOf(c)),
    })
    const short = minus(a.amount, '15.00')
    const total = new Decimal(short).plus(b.amount).plus(c.amount).toFixed(2)
    add({
      id: 'h2-ctx-paid-line',
      title: 'CTX 820 pays again an invoice an earlier CCD+ of the same run settled',
      why: `${WHY}; an earlier ACH CCD+ RMR paid one invoice in full, the 820 lists it again beside an ADX-short line`,
      tags: ['ach', 'ctx', 'x12', 'stated-remittance', 'duplicate', 'trap'],
      prior: [earlier],
      payment: ctx(
        'h2-ctx-paid-line',
        a,
        total,
        date > earlier.postedDate! ? date : '2026-03-31',
        [rmr(a, short, a.amount), 'ADX*-15.00*01', rmr(b, b.amount, b.amount), rmr(c, c.amount, c.amount)],
        '0000551204',
      ),
      expect: person('suggested', [a, b]),
    })
  }
  {
    const [a, b] = threeOf(2) as [BookInvoice, BookInvoice]
    const total = new Decimal(a.amount).plus(b.amount).minus('57.40').toFixed(2)
    add({
      id: 'h2-ctx-credit-memo',
      title: 'CTX 820 nets a credit memo we never issued (RMR*CM with a negative amount)',
      why: `${WHY}; RMR*CM*CM-88213*PI*-57.40: the payer deducts its own debit memo, unknown to our books`,
      tags: ['ach', 'ctx', 'x12', 'stated-remittance', 'credit-memo', 'trap'],
      payment: ctx(
        'h2-ctx-credit-memo',
        a,
        total,
        after([a, b]),
        [rmr(a, a.amount, a.amount), rmr(b, b.amount, b.amount), 'RMR*CM*CM-88213*PI*-57.40'],
        '0000551205',
      ),
      expect: person('suggested', [a, b]),
    })
  }
  {
    const [a, b] = threeOf(2) as [BookInvoice, BookInvoice]
    const short = minus(a.amount, '25.00')
    const total = new Decimal(short).plus(b.amount).toFixed(2)
    add({
      id: 'h2-ctx-adx-no-reason',
      title: 'CTX 820 short line with an ADX that carries no reason code',
      why: `${WHY}; ADX*-25.00 with ADX02 (the mandatory reason code) left out: the deduction is unexplained`,
      tags: ['ach', 'ctx', 'x12', 'stated-remittance', 'trap'],
      payment: ctx(
        'h2-ctx-adx-no-reason',
        a,
        total,
        after([a, b]),
        [rmr(a, short, a.amount), 'ADX*-25.00', rmr(b, b.amount, b.amount)],
        '0000551206',
      ),
      expect: person('suggested', [a, b]),
    })
  }
  {
    const [a, b] = threeOf(2) as [BookInvoice, BookInvoice]
    const short = minus(a.amount, '25.00')
    const total = new Decimal(short).plus(b.amount).toFixed(2)
    add({
      id: 'h2-ctx-adx-mismatch',
      title: 'CTX 820 ADX amount does not explain the short line',
      why: `${WHY}; RMR paid 25.00 short of invoiced, ADX*-20.00*01 explains only 20.00 of it`,
      tags: ['ach', 'ctx', 'x12', 'stated-remittance', 'trap'],
      payment: ctx(
        'h2-ctx-adx-mismatch',
        a,
        total,
        after([a, b]),
        [rmr(a, short, a.amount), 'ADX*-20.00*01', rmr(b, b.amount, b.amount)],
        '0000551207',
      ),
      expect: person('suggested', [a, b]),
    })
  }
  {
    const [a, b] = threeOf(2) as [BookInvoice, BookInvoice]
    const over = new Decimal(b.amount).plus('40.00').toFixed(2)
    const short = minus(a.amount, '40.00')
    const total = new Decimal(short).plus(over).toFixed(2)
    add({
      id: 'h2-ctx-paid-over-invoiced',
      title: 'CTX 820 where one line pays more than invoiced and another less',
      why: `${WHY}; RMR04 paid > RMR05 invoiced on one line, ADX*-40.00*01 on the other: money moved between invoices`,
      tags: ['ach', 'ctx', 'x12', 'stated-remittance', 'trap'],
      payment: ctx(
        'h2-ctx-paid-over-invoiced',
        a,
        total,
        after([a, b]),
        [rmr(a, short, a.amount), 'ADX*-40.00*01', rmr(b, over, b.amount)],
        '0000551208',
      ),
      expect: person('suggested', [a, b]),
    })
  }
  {
    const [a, b] = threeOf(2, 800) as [BookInvoice, BookInvoice]
    const half = new Decimal(a.amount).div(2).toDecimalPlaces(2).toFixed(2)
    const total = new Decimal(half).times(2).plus(b.amount).toFixed(2)
    const adx = new Decimal(a.amount).minus(half).negated().toFixed(2)
    add({
      id: 'h2-ctx-duplicate-rmr',
      title: 'CTX 820 repeats the same short RMR line twice',
      why: `${WHY}; the same RMR*IV with ADX appears twice (an AP system resending a segment), the sum still matches BPR`,
      tags: ['ach', 'ctx', 'x12', 'stated-remittance', 'duplicate', 'trap'],
      payment: ctx(
        'h2-ctx-duplicate-rmr',
        a,
        total,
        after([a, b]),
        [
          rmr(a, half, a.amount),
          `ADX*${adx}*01`,
          rmr(a, half, a.amount),
          `ADX*${adx}*01`,
          rmr(b, b.amount, b.amount),
        ],
        '0000551209',
      ),
      expect: person('suggested', [a, b]),
    })
  }
  {
    const [a, b] = threeOf(2) as [BookInvoice, BookInvoice]
    const stated = new Decimal(a.amount).plus('100.00').toFixed(2)
    const short = minus(a.amount, '60.00')
    const total = new Decimal(short).plus(b.amount).toFixed(2)
    add({
      id: 'h2-ctx-invoiced-differs',
      title: 'CTX 820 states another invoice total than ours for the short line',
      why: `${WHY}; RMR05 invoiced is 100.00 above our invoice, paid is 60.00 below it, ADX*-160.00*01`,
      tags: ['ach', 'ctx', 'x12', 'stated-remittance', 'trap'],
      payment: ctx(
        'h2-ctx-invoiced-differs',
        a,
        total,
        after([a, b]),
        [rmr(a, short, stated), 'ADX*-160.00*01', rmr(b, b.amount, b.amount)],
        '0000551210',
      ),
      expect: person('suggested', [a, b]),
    })
  }
  {
    const [a, b] = threeOf(2) as [BookInvoice, BookInvoice]
    const short = minus(a.amount, '12.00')
    const total = new Decimal(short).plus(b.amount).plus('0.01').toFixed(2)
    add({
      id: 'h2-ctx-sum-off-cent',
      title: 'CTX 820 whose RMR lines add up to a cent less than the BPR total',
      why: `${WHY}; BPR02 is one cent more than the RMR04 sum: the remittance does not describe the money`,
      tags: ['ach', 'ctx', 'x12', 'stated-remittance', 'trap'],
      payment: ctx(
        'h2-ctx-sum-off-cent',
        a,
        total,
        after([a, b]),
        [rmr(a, short, a.amount), 'ADX*-12.00*01', rmr(b, b.amount, b.amount)],
        '0000551211',
      ),
      expect: person('suggested', [a, b]),
    })
  }
  {
    // The payer takes 2 % it was never granted (no early-payment terms): the rest stays open, nothing written off.
    const a = p.pick(
      (i) => us(i) && !i.earlyPaymentDiscount && new Decimal(i.amount).greaterThan(500) && unique(i),
    )
    const discount = new Decimal(a.amount).times('0.02').toDecimalPlaces(2).toFixed(2)
    const paid = minus(a.amount, discount)
    add({
      id: 'h2-ctx-rmr06-unearned',
      title: 'CTX 820 takes a 2 % discount in RMR06 the invoice does not grant',
      why: `${WHY}; RMR*IV*…*PI*paid*invoiced*discount with the discount in RMR06, the invoice has no early-payment terms`,
      tags: ['ach', 'ctx', 'x12', 'stated-remittance', 'discount', 'trap'],
      payment: ctx(
        'h2-ctx-rmr06-unearned',
        a,
        paid,
        after([a], 12),
        [rmr(a, paid, a.amount, discount)],
        '0000551212',
      ),
      expect: applied([a], { [a.id]: paid }),
    })
  }
  {
    const a = p.pick((i) => us(i) && new Decimal(i.amount).greaterThan(1000) && unique(i))
    const paid = new Decimal(a.amount).minus('350.00').toFixed(2)
    add({
      id: 'h2-ccd-partial-single',
      title: 'CCD+ paying part of one invoice, stated in its RMR',
      why: 'ACH CCD+ addenda RMR*IV*<number>*PI*<paid>*<invoiced>\\ from the customer: a stated part payment of one invoice',
      tags: ['ach', 'ccd', 'partial', 'ordinary'],
      payment: tx('h2-ccd-partial-single', a, paid, after([a]), {
        paymentReference: `RMR*IV*${a.number}*PI*${paid}*${a.amount}\\`,
        description: `ACH CREDIT CCD ${bankName(nameOf(a), 16)} PAYMENTS`,
        counterpartyName: bankName(nameOf(a)),
      }),
      expect: applied([a], { [a.id]: paid }),
    })
  }
  {
    const all = threeOf(3, 100)
    const total = sum(...all)
    add({
      id: 'h2-ctx-full-three',
      title: 'CTX 820 paying three invoices in full',
      why: `${WHY}; three RMR*IV lines, paid = invoiced, adding up to BPR02`,
      tags: ['ach', 'ctx', 'x12', 'ordinary'],
      payment: ctx(
        'h2-ctx-full-three',
        all[0] as BookInvoice,
        total,
        after(all),
        all.map((i) => rmr(i, i.amount, i.amount)),
        '0000551213',
      ),
      expect: applied(all, Object.fromEntries(all.map((i) => [i.id, i.amount]))),
    })
  }
}
