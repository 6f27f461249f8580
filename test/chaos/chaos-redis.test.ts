import { describeChaosRun } from '../support/chaos/describe-chaos-run.js'

describeChaosRun('redis')
