import { DateTime, OneOf, OrNull, Strict, Type, type Static } from '../../../platform/validation/index.js';
import type { FlowRunRow, FlowRunStepRow, MessageRow } from './flow.service.js';

/** The documents of a customer's flow runs and messages, as a customer export shows them (rest-facade/v2/privacy.routes.ts). */

export const FlowRunDocumentSchema = Strict(
  {
    id: Type.String(),
    flowId: Type.String(),
    eventId: Type.String({ description: 'The event that started the run.' }),
    version: Type.Integer({ description: 'The flow version the run executes.' }),
    status: OneOf(['RUNNING', 'WAITING', 'COMPLETED', 'EXITED', 'FAILED'] as const),
    startedAt: DateTime(),
    finishedAt: OrNull(DateTime()),
    steps: Type.Array(
      Strict({
        path: Type.String(),
        type: Type.String(),
        status: OneOf(['DONE', 'SKIPPED', 'FAILED', 'WAITING'] as const),
        at: DateTime(),
        detail: OrNull(Type.String()),
      }),
    ),
  },
  { title: 'FlowRun' },
);
export type FlowRunDocument = Static<typeof FlowRunDocumentSchema>;

export const MessageDocumentSchema = Strict(
  {
    id: Type.String(),
    flowId: Type.String(),
    flowRunId: Type.String(),
    channel: OneOf(['EMAIL', 'SMS'] as const),
    kind: OneOf(['marketing', 'transactional'] as const),
    to: Type.String(),
    subject: OrNull(Type.String()),
    body: Type.String(),
    status: OneOf(['SENT', 'RECORDED', 'FAILED'] as const),
    provider: Type.String(),
    error: OrNull(Type.String()),
    createdAt: DateTime(),
  },
  { title: 'FlowMessage' },
);
export type MessageDocument = Static<typeof MessageDocumentSchema>;

export function flowRunDocument(run: FlowRunRow, steps: readonly FlowRunStepRow[]): FlowRunDocument {
  return {
    id: run.id,
    flowId: run.flowId,
    eventId: run.eventId,
    version: run.version,
    status: run.status,
    startedAt: run.startedAt.toISOString(),
    finishedAt: run.finishedAt?.toISOString() ?? null,
    steps: steps.map((s) => ({ path: s.path, type: s.type, status: s.status, at: s.at.toISOString(), detail: s.detail })),
  };
}

export function messageDocument(m: MessageRow): MessageDocument {
  return {
    id: m.id,
    flowId: m.flowId,
    flowRunId: m.flowRunId,
    channel: m.channel,
    kind: m.kind,
    to: m.to,
    subject: m.subject,
    body: m.body,
    status: m.status,
    provider: m.provider,
    error: m.error,
    createdAt: m.createdAt.toISOString(),
  };
}
