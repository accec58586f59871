import { FlowProducer, type FlowJob } from 'bullmq';
import { bullConnection } from './connection.ts';
import { JOB_KINDS, JOB_RETRY, type JobKind } from './names.ts';


/** One job of a planned run: its kind, its payload, an id derived from the planner's, and its children. */
export interface FlowNode {
  name: JobKind;
  data: unknown;
  jobId: string;
  children?: FlowNode[];
}

/** A job of the flow that already waits for its children: a node added under it becomes one of them. */
export interface FlowParent {
  name: JobKind;
  jobId: string;
}

type Where = { redisUrl: string; prefix: string };

/** Each job goes to its kind's queue (names.ts): a flow may span queues. */
function flowJob(node: FlowNode, isChild: boolean): FlowJob {
  return {
    name: node.name,
    queueName: JOB_KINDS[node.name],
    data: node.data,
    // A permanently failed child must not leave its parent waiting forever (bullmq #3362): the
    // parent runs anyway and reports the child's work as failed.
    opts: { jobId: node.jobId, ...JOB_RETRY.flow, ...(isChild ? { ignoreDependencyOnFailure: true } : {}) },
    ...(node.children ? { children: node.children.map((c) => flowJob(c, true)) } : {}),
  };
}

/**
 * Adds the jobs of a planned run, on one connection for all of them. A node is a flow's root or,
 * given a parent, a child added to a flow that already runs: the parent does not run before it
 * has finished (the parent must still wait for another child, the one adding it).
 */
export class FlowAdder {
  private readonly flow: FlowProducer;
  private readonly prefix: string;

  constructor(where: Where) {
    this.flow = new FlowProducer({ connection: bullConnection(where.redisUrl), prefix: where.prefix });
    this.prefix = where.prefix;
  }

  async add(node: FlowNode, parent?: FlowParent): Promise<void> {
    const job = flowJob(node, parent !== undefined);
    if (parent) job.opts = { ...job.opts, parent: { id: parent.jobId, queue: `${this.prefix}:${JOB_KINDS[parent.name]}` } };
    await this.flow.add(job);
  }

  close(): Promise<void> {
    return this.flow.close();
  }
}

/**
 * Fans a planned run out as one BullMQ flow: the parent runs once all its children
 * have finished. Job ids derive from the planner's, so a planner retried after a crash re-adds the
 * same jobs and BullMQ ignores the ones that exist.
 */
export async function addFlow(where: Where, root: FlowNode): Promise<void> {
  const flow = new FlowAdder(where);
  try {
    await flow.add(root);
  } finally {
    await flow.close();
  }
}
