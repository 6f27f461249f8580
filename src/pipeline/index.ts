export { createPipeline } from './pipeline.js'
export type { OutboundWorkers, Pipeline, PipelineDeps, RunningWorkers } from './pipeline.js'
export type { PipelineStages } from './stages.js'
