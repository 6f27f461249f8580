import { createBullBoard } from '@bull-board/api'
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter'
import { ExpressAdapter } from '@bull-board/express'
import type { Queue } from 'bullmq'
import type { Router } from 'express'

/** bull-board over the sidecar's queues, served under `basePath`. */
export function queueBoard(queues: readonly Queue[], basePath: string): Router {
  const serverAdapter = new ExpressAdapter()
  serverAdapter.setBasePath(basePath)
  createBullBoard({
    queues: queues.map((queue) => new BullMQAdapter(queue)),
    serverAdapter,
    options: { uiConfig: { boardTitle: 'bankrec queues' } },
  })
  return serverAdapter.getRouter() as Router
}
