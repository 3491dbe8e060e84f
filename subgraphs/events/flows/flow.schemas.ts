import type { FieldError } from '../../../platform/errors.js';
import { isTransactionalTrigger, returnTriggerErrors } from './return-trigger.js';
import { SegmentCompiler, definitionJson, type PropertyCondition, type SegmentCondition, type SegmentDefinition } from '../segments/segment.rules.js';
import { MessageChannel } from '../templates/template.type.js';
import type { FlowInput, FlowStepInput } from './flow.input.js';

/**
 * A flow version as stored (JSON in `flow.definition` and `flow_version`):
 * the trigger, the audience and the step tree. Steps are addressed by their
 * path in the tree: `0`, `1.then.0`, `1.else.2.then.1`.
 */
export type FlowStep =
  | { type: 'wait'; seconds: number }
  | { type: 'condition'; if: SegmentCondition; then: FlowStep[]; else: FlowStep[] }
  | { type: 'send_email'; templateId: string; /** Absent in versions written before kinds existed: marketing. */ kind?: MessageKind }
  | { type: 'send_sms'; templateId: string; kind?: MessageKind }
  | { type: 'webhook'; url: string; /** Sealed (SecretBox). */ bearerToken: string | null };

export type StepType = FlowStep['type'];

/** A message step's kind (decisions section 21): marketing needs consent, transactional only no opt-out. */
export type MessageKind = 'marketing' | 'transactional';

/** How often a customer may enter a flow; absent in versions written before it existed: every event. */
type FlowReentry = { mode: 'EVERY_EVENT' } | { mode: 'ONCE' } | { mode: 'ONCE_PER_DAYS'; days: number };

export interface FlowDefinition {
  trigger: { eventName: string; where: PropertyCondition[] };
  audience: SegmentDefinition | null;
  steps: FlowStep[];
  reentry?: FlowReentry;
}

/** The kind of a message step, marketing unless it says otherwise. */
export const kindOf = (step: { kind?: MessageKind }): MessageKind => step.kind ?? 'marketing';

/** The longest ONCE_PER_DAYS period. */
const MAX_REENTRY_DAYS = 3650;

/** Waits of up to 90 days (decisions section 16). */
export const MAX_WAIT_SECONDS = 90 * 24 * 3600;
/** Guards the tree a dashboard can build (each level is a condition). */
const MAX_DEPTH = 10;
const MAX_STEPS = 200;

/** What validation needs from the rest of the subgraph. */
export interface FlowValidationDeps {
  /** The channel of each template id of the store (unknown ids absent). */
  templateChannels(ids: string[]): Promise<Map<string, MessageChannel>>;
  /** Why a webhook URL is refused (the SSRF rules), or null. */
  checkUrl(url: string): Promise<string | null>;
  seal(secret: string): string;
}

/**
 * Validates a FlowInput whole (every problem listed with its pointer under
 * `/input`) and turns it into a definition. The conditions go through the
 * segment compiler, so operators and typing are the segments' own.
 */
export async function buildDefinition(storeId: string, input: FlowInput, deps: FlowValidationDeps): Promise<{ definition: FlowDefinition; errors: FieldError[] }> {
  const errors: FieldError[] = [];
  const compiler = new SegmentCompiler(storeId, { triggerEvent: 'te' });
  if (typeof input.name !== 'string' || !input.name.trim() || input.name.length > 200) errors.push({ pointer: '/input/name', detail: 'must be a non-empty string of at most 200 characters' });
  const eventName = input.trigger?.eventName;
  if (typeof eventName !== 'string' || !eventName.trim()) errors.push({ pointer: '/input/trigger/eventName', detail: 'must be a non-empty string' });
  const where = (input.trigger?.where ?? []).map((w) => ({ key: w.key, operator: w.operator, value: w.value }));
  compiler.eventProperties(where, 'te', '/input/trigger/where');
  errors.push(...returnTriggerErrors(eventName, where, '/input/trigger/where'));
  const audience = input.audience ? definitionJson(input.audience) : null;
  if (audience) compiler.definition(audience, '/input/audience');

  const sends: { templateId: string; channel: MessageChannel; pointer: string }[] = [];
  const urls: { url: string; pointer: string }[] = [];
  let count = 0;
  const convert = (steps: FlowStepInput[] | null | undefined, pointer: string, depth: number): FlowStep[] =>
    (steps ?? []).map((step, i): FlowStep => {
      const at = `${pointer}/${i}`;
      count++;
      const given = (['wait', 'condition', 'sendEmail', 'sendSms', 'webhook'] as const).filter((k) => step[k] !== undefined && step[k] !== null);
      if (given.length !== 1) {
        errors.push({ pointer: at, detail: 'set exactly one of wait, condition, sendEmail, sendSms, webhook' });
        return { type: 'wait', seconds: 0 };
      }
      if (step.wait) {
        const { seconds } = step.wait;
        if (!Number.isInteger(seconds) || seconds < 1 || seconds > MAX_WAIT_SECONDS) errors.push({ pointer: `${at}/wait/seconds`, detail: `must be from 1 to ${MAX_WAIT_SECONDS} seconds (90 days)` });
        return { type: 'wait', seconds };
      }
      if (step.condition) {
        if (depth >= MAX_DEPTH) errors.push({ pointer: `${at}/condition`, detail: `conditions nest at most ${MAX_DEPTH} deep` });
        const cond = definitionJson({ all: [step.condition.if] }).all![0]!;
        compiler.condition(cond, `${at}/condition/if`);
        return { type: 'condition', if: cond, then: convert(step.condition.then, `${at}/condition/then`, depth + 1), else: convert(step.condition.else, `${at}/condition/else`, depth + 1) };
      }
      if (step.sendEmail || step.sendSms) {
        const email = Boolean(step.sendEmail);
        const { templateId, kind } = (step.sendEmail ?? step.sendSms)!;
        sends.push({ templateId, channel: email ? MessageChannel.EMAIL : MessageChannel.SMS, pointer: `${at}/${email ? 'sendEmail' : 'sendSms'}/templateId` });
        if (kind !== undefined && kind !== null && kind !== 'marketing' && kind !== 'transactional') errors.push({ pointer: `${at}/${email ? 'sendEmail' : 'sendSms'}/kind`, detail: 'must be marketing or transactional' });
        // Stored only when given: a step without one is marketing (and versions written before kinds read the same),
        // except under a return trigger, whose messages are about the customer's own order (decisions section 22).
        const chosen = kind === 'transactional' || kind === 'marketing' ? { kind } : isTransactionalTrigger(eventName ?? '') ? { kind: 'transactional' as const } : {};
        return email ? { type: 'send_email', templateId, ...chosen } : { type: 'send_sms', templateId, ...chosen };
      }
      const { url, bearerToken } = step.webhook!;
      urls.push({ url, pointer: `${at}/webhook/url` });
      if (bearerToken !== undefined && bearerToken !== null && (!bearerToken || bearerToken.length > 4096)) errors.push({ pointer: `${at}/webhook/bearerToken`, detail: 'must be a non-empty string of at most 4096 characters' });
      return { type: 'webhook', url, bearerToken: bearerToken ? deps.seal(bearerToken) : null };
    });
  const steps = convert(input.steps, '/input/steps', 0);
  if (!input.steps?.length) errors.push({ pointer: '/input/steps', detail: 'give at least one step' });
  if (count > MAX_STEPS) errors.push({ pointer: '/input/steps', detail: `at most ${MAX_STEPS} steps in all` });

  const channels = await deps.templateChannels([...new Set(sends.map((s) => s.templateId))]);
  for (const send of sends) {
    const channel = channels.get(send.templateId);
    if (!channel) errors.push({ pointer: send.pointer, detail: `no template ${send.templateId} in this store` });
    else if (channel !== send.channel) errors.push({ pointer: send.pointer, detail: `template ${send.templateId} is an ${channel} template, not ${send.channel}` });
  }
  for (const { url, pointer } of urls) {
    const refusal = typeof url === 'string' && url.length <= 2048 ? await deps.checkUrl(url) : 'must be a URL of at most 2048 characters';
    if (refusal) errors.push({ pointer, detail: refusal });
  }
  errors.push(...compiler.errors);
  let reentry: FlowReentry | undefined;
  if (input.reentry) {
    const { mode, days } = input.reentry;
    if (mode === 'ONCE_PER_DAYS') {
      if (!Number.isInteger(days) || days! < 1 || days! > MAX_REENTRY_DAYS) errors.push({ pointer: '/input/reentry/days', detail: `must be a whole number of days from 1 to ${MAX_REENTRY_DAYS}` });
      reentry = { mode, days: days! };
    } else {
      if (days !== undefined && days !== null) errors.push({ pointer: '/input/reentry/days', detail: 'only with mode ONCE_PER_DAYS' });
      reentry = { mode };
    }
  }
  return { definition: { trigger: { eventName: (eventName ?? '').trim(), where }, audience, steps, ...(reentry && reentry.mode !== 'EVERY_EVENT' ? { reentry } : {}) }, errors };
}

/** A path as tokens: step indexes and branch names. */
type Path = (number | 'then' | 'else')[];

function parsePath(path: string): Path {
  return path.split('.').map((t) => (t === 'then' || t === 'else' ? t : Number(t)));
}

export function stepAt(steps: FlowStep[], path: string): FlowStep | undefined {
  let list = steps;
  let step: FlowStep | undefined;
  for (const token of parsePath(path)) {
    if (typeof token === 'number') step = list[token];
    else if (step?.type === 'condition') list = step[token];
    else return undefined;
    if (!step) return undefined;
  }
  return step;
}

/** The path of the step after the one at `path` (climbing out of finished branches), or null at the end. */
export function pathAfter(steps: FlowStep[], path: string): string | null {
  const tokens = parsePath(path);
  for (;;) {
    const index = tokens.pop() as number;
    const parent = tokens.length ? (stepAt(steps, tokens.slice(0, -1).join('.')) as Extract<FlowStep, { type: 'condition' }>) : undefined;
    const list = parent ? parent[tokens[tokens.length - 1] as 'then' | 'else'] : steps;
    if (index + 1 < list.length) return [...tokens, index + 1].join('.');
    if (!tokens.length) return null;
    tokens.pop(); // the branch name: continue after the condition step
  }
}

/** The first step of a condition's branch, or the step after the condition when the branch is empty. */
export function branchStart(steps: FlowStep[], path: string, branch: 'then' | 'else'): string | null {
  const step = stepAt(steps, path) as Extract<FlowStep, { type: 'condition' }>;
  return step[branch].length ? `${path}.${branch}.0` : pathAfter(steps, path);
}

/** The steps in the input's shape (for `Flow.steps`), bearer tokens masked. */
export function publicSteps(steps: FlowStep[]): unknown[] {
  return steps.map((step) => {
    switch (step.type) {
      case 'wait':
        return { wait: { seconds: step.seconds } };
      case 'condition':
        return { condition: { if: step.if, then: publicSteps(step.then), else: publicSteps(step.else) } };
      case 'send_email':
        return { sendEmail: { templateId: step.templateId, ...(step.kind ? { kind: step.kind } : {}) } };
      case 'send_sms':
        return { sendSms: { templateId: step.templateId, ...(step.kind ? { kind: step.kind } : {}) } };
      case 'webhook':
        return { webhook: { url: step.url, bearerToken: step.bearerToken ? '****' : null } };
    }
  });
}
