/** The held-out case writers' kit: the main book and the picker seeded 25 (see write-held-out-cases.ts). */
import { caseKit } from '../../test/support/case-kit.js'
import { loadBook } from '../../test/support/realistic-book.js'

export const kit = caseKit(loadBook('main'), 25)
