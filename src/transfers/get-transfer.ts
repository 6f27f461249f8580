import { findTransfer, listTransferAttempts } from '../store/index.js'
import { presentTransfer, type TransferRecord } from './present-transfer.js'
import type { TransferContext } from './transfer-context.js'

/** bankrec's record of a transfer, by bankrec's id or the bank's transfer id. */
export async function getTransfer(
  ctx: Pick<TransferContext, 'db'>,
  id: string,
): Promise<TransferRecord | undefined> {
  const row = await findTransfer(ctx.db, id)
  return row && presentTransfer(row, await listTransferAttempts(ctx.db, row.id))
}
