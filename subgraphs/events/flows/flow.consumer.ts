import type { EntityManager } from '../../../platform/db/orm.js';
import { flowRunsStarted } from '../../../platform/observability/metrics.js';
import { outboxConsumer } from '../../../platform/jobs/outbox-consumers.js';
import { isEventOf, type OutboxEvent } from '../../../platform/jobs/outbox.js';
import { CustomEventCreated } from '../custom-event.events.js';
import type { FlowRunner } from './flow-run.service.js';

/**
 * Runs start from processed events: the flows read `custom_event.created` from the outbox, from
 * their own position (their queue, `flow-triggers`, takes the events they gave up on). Event
 * processing knows nothing of flows; the runner decides each run (the flow active when the event
 * was stored, trigger conditions, audience), once per (flow, event).
 */
export const FLOW_TRIGGERS_CONSUMER = outboxConsumer('flow-triggers', [CustomEventCreated]);

/** Starts the runs a batch of events triggers, in the caller's transaction (the one that consumes them). */
export async function startRunsFor(runner: FlowRunner, em: EntityManager, events: readonly OutboxEvent[]): Promise<void> {
  flowRunsStarted.inc(await runner.start(em, events.filter((e) => isEventOf(CustomEventCreated, e))));
}
