import { FlowProducer, type FlowJob } from 'bullmq';
import { bullConnection } from './connection.ts';
import { JOB_RETRY, type JobKind, type QueueName } from './names.ts';


/** One job of a planned run: its kind, its payload, an id derived from the planner's, and its children. */
export interface FlowNode {
  name: JobKind;
  data: unknown;
  jobId: string;
  children?: FlowNode[];
}

function flowJob(queueName: QueueName, node: FlowNode, isChild: boolean): FlowJob {
  return {
    name: node.name,
    queueName,
    data: node.data,
    // A permanently failed child must not leave its parent waiting forever (bullmq #3362): the
    // parent runs anyway and reports the child's work as failed.
    opts: { jobId: node.jobId, ...JOB_RETRY.flow, ...(isChild ? { ignoreDependencyOnFailure: true } : {}) },
    ...(node.children ? { children: node.children.map((c) => flowJob(queueName, c, true)) } : {}),
  };
}

/**
 * Fans a planned run out as one BullMQ flow on one queue: the parent runs once all its children
 * have finished. Job ids derive from the planner's, so a planner retried after a crash re-adds the
 * same jobs and BullMQ ignores the ones that exist.
 */
export async function addFlow(where: { redisUrl: string; prefix: string }, queueName: QueueName, root: FlowNode): Promise<void> {
  const flow = new FlowProducer({ connection: bullConnection(where.redisUrl), prefix: where.prefix });
  try {
    await flow.add(flowJob(queueName, root, false));
  } finally {
    await flow.close();
  }
}
