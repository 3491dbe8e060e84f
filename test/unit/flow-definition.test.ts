import { describe, expect, it } from 'vitest';
import { branchStart, buildDefinition, MAX_WAIT_SECONDS, pathAfter, publicSteps, stepAt, type FlowStep, type FlowValidationDeps } from '../../subgraphs/events/flows/flow.schemas.js';
import type { FlowInput, FlowStepInput } from '../../subgraphs/events/flows/flow.input.js';
import { SegmentOperator as Op } from '../../subgraphs/events/segments/segment.input.js';
import { MessageChannel } from '../../subgraphs/events/templates/template.type.js';

/**
 * Flow definitions without a database: validation of a FlowInput (every
 * problem with its pointer), its conversion to the stored definition, and the
 * step paths a run walks. test/flows-validation.test.ts covers the same rules
 * through GraphQL.
 */

/** The store's templates and the SSRF rules, as the subgraph would answer them. */
function deps(templates: Record<string, MessageChannel> = {}, refused: Record<string, string> = {}) {
  const asked: string[][] = [];
  const checked: string[] = [];
  const given: FlowValidationDeps = {
    templateChannels: async (ids) => {
      asked.push(ids);
      return new Map(ids.filter((id) => templates[id]).map((id) => [id, templates[id]!]));
    },
    checkUrl: async (url) => {
      checked.push(url);
      return refused[url] ?? null;
    },
    seal: (secret) => `sealed(${secret})`,
  };
  return { given, asked, checked };
}

const wait = (seconds = 60): FlowStepInput => ({ wait: { seconds } });
const input = (steps: FlowStepInput[], extra: Partial<FlowInput> = {}): FlowInput => ({ name: 'Welcome', trigger: { eventName: 'Signed Up' }, steps, ...extra });
const errorsOf = async (flow: FlowInput, d = deps()) => (await buildDefinition('sto_unit', flow, d.given)).errors;

describe('building a flow definition', () => {
  it('turns a valid input into the stored definition, with no errors', async () => {
    const d = deps({ tpl_mail: MessageChannel.EMAIL, tpl_text: MessageChannel.SMS });
    const { definition, errors } = await buildDefinition(
      'sto_unit',
      {
        name: 'Welcome',
        trigger: { eventName: '  Signed Up ', where: [{ key: 'plan', operator: Op.EQUALS, value: 'pro' }] },
        audience: { all: [{ event: { eventName: 'Ordered', since: new Date('2026-01-01T00:00:00Z') } }] },
        steps: [
          { sendEmail: { templateId: 'tpl_mail' } },
          wait(3600),
          {
            condition: {
              if: { profile: { field: 'event.plan', operator: Op.EQUALS, value: 'pro' } },
              then: [{ sendSms: { templateId: 'tpl_text' } }],
              else: [{ webhook: { url: 'https://hooks.example.com/flow', bearerToken: 'token-1' } }],
            },
          },
          { webhook: { url: 'https://hooks.example.com/plain', bearerToken: null } },
        ],
      },
      d.given,
    );
    expect(errors).toEqual([]);
    expect(definition).toEqual({
      trigger: { eventName: 'Signed Up', where: [{ key: 'plan', operator: 'EQUALS', value: 'pro' }] },
      // Stored as JSON: dates as ISO text.
      audience: { all: [{ event: { eventName: 'Ordered', since: '2026-01-01T00:00:00.000Z' } }] },
      steps: [
        { type: 'send_email', templateId: 'tpl_mail' },
        { type: 'wait', seconds: 3600 },
        {
          type: 'condition',
          if: { profile: { field: 'event.plan', operator: 'EQUALS', value: 'pro' } },
          then: [{ type: 'send_sms', templateId: 'tpl_text' }],
          else: [{ type: 'webhook', url: 'https://hooks.example.com/flow', bearerToken: 'sealed(token-1)' }],
        },
        { type: 'webhook', url: 'https://hooks.example.com/plain', bearerToken: null },
      ],
    });
    // Templates are looked up once, each id once; every URL goes through the SSRF rules.
    expect(d.asked).toEqual([['tpl_mail', 'tpl_text']]);
    expect(d.checked).toEqual(['https://hooks.example.com/flow', 'https://hooks.example.com/plain']);
  });

  it('needs a name of at most 200 characters, a trigger event name and at least one step', async () => {
    for (const name of ['', '   ', 'x'.repeat(201)]) {
      expect(await errorsOf(input([wait()], { name }))).toEqual([{ pointer: '/input/name', detail: 'must be a non-empty string of at most 200 characters' }]);
    }
    expect(await errorsOf(input([wait()], { name: 'x'.repeat(200) }))).toEqual([]);
    expect(await errorsOf(input([wait()], { trigger: { eventName: ' ' } }))).toEqual([{ pointer: '/input/trigger/eventName', detail: 'must be a non-empty string' }]);
    expect(await errorsOf(input([]))).toEqual([{ pointer: '/input/steps', detail: 'give at least one step' }]);
  });

  it('takes exactly one kind per step', async () => {
    const both: FlowStepInput = { wait: { seconds: 5 }, sendEmail: { templateId: 'tpl' } };
    expect(await errorsOf(input([wait(), {}, both]))).toEqual([
      { pointer: '/input/steps/1', detail: 'set exactly one of wait, condition, sendEmail, sendSms, webhook' },
      { pointer: '/input/steps/2', detail: 'set exactly one of wait, condition, sendEmail, sendSms, webhook' },
    ]);
  });

  it('waits from one second to 90 days, in whole seconds', async () => {
    expect(MAX_WAIT_SECONDS).toBe(90 * 24 * 3600);
    expect(await errorsOf(input([wait(1), wait(MAX_WAIT_SECONDS)]))).toEqual([]);
    const detail = `must be from 1 to ${MAX_WAIT_SECONDS} seconds (90 days)`;
    expect(await errorsOf(input([wait(0), wait(MAX_WAIT_SECONDS + 1), wait(1.5)]))).toEqual([0, 1, 2].map((i) => ({ pointer: `/input/steps/${i}/wait/seconds`, detail })));
  });

  it('nests conditions at most 10 deep and takes at most 200 steps in all', async () => {
    const nested = (depth: number): FlowStepInput => ({ condition: { if: { profile: { field: 'email', operator: Op.IS_SET } }, then: depth > 1 ? [nested(depth - 1)] : [wait()] } });
    expect(await errorsOf(input([nested(10)]))).toEqual([]);
    const tooDeep = `/input/steps/0${'/condition/then/0'.repeat(10)}/condition`;
    expect(await errorsOf(input([nested(11)]))).toEqual([{ pointer: tooDeep, detail: 'conditions nest at most 10 deep' }]);

    expect(await errorsOf(input(Array.from({ length: 200 }, () => wait())))).toEqual([]);
    // Steps inside branches count too.
    const branchy: FlowStepInput = { condition: { if: { profile: { field: 'email', operator: Op.IS_SET } }, then: Array.from({ length: 100 }, () => wait()), else: Array.from({ length: 100 }, () => wait()) } };
    expect(await errorsOf(input([branchy]))).toEqual([{ pointer: '/input/steps', detail: 'at most 200 steps in all' }]);
  });

  it('sends only with templates of the store, each of its own channel', async () => {
    const d = deps({ tpl_mail: MessageChannel.EMAIL, tpl_text: MessageChannel.SMS });
    expect(await errorsOf(input([{ sendEmail: { templateId: 'tpl_gone' } }, { sendEmail: { templateId: 'tpl_text' } }, { sendSms: { templateId: 'tpl_mail' } }]), d)).toEqual([
      { pointer: '/input/steps/0/sendEmail/templateId', detail: 'no template tpl_gone in this store' },
      { pointer: '/input/steps/1/sendEmail/templateId', detail: 'template tpl_text is an SMS template, not EMAIL' },
      { pointer: '/input/steps/2/sendSms/templateId', detail: 'template tpl_mail is an EMAIL template, not SMS' },
    ]);
  });

  it('calls webhooks the SSRF rules allow, with a URL of at most 2048 characters and a token of at most 4096', async () => {
    const long = `https://hooks.example.com/${'a'.repeat(2048)}`;
    const d = deps({}, { 'http://127.0.0.1/admin': 'must be https' });
    const hook = (url: string, bearerToken?: string | null): FlowStepInput => ({ webhook: { url, bearerToken } });
    expect(await errorsOf(input([hook('http://127.0.0.1/admin'), hook(long), hook('https://ok.example.com', ''), hook('https://ok.example.com', 'x'.repeat(4097))]), d)).toEqual([
      { pointer: '/input/steps/2/webhook/bearerToken', detail: 'must be a non-empty string of at most 4096 characters' },
      { pointer: '/input/steps/3/webhook/bearerToken', detail: 'must be a non-empty string of at most 4096 characters' },
      { pointer: '/input/steps/0/webhook/url', detail: 'must be https' },
      { pointer: '/input/steps/1/webhook/url', detail: 'must be a URL of at most 2048 characters' },
    ]);
    // A URL too long is refused before any lookup.
    expect(d.checked).not.toContain(long);
  });

  it('checks the trigger, the audience and the conditions with the segment compiler, at their pointers', async () => {
    const errors = await errorsOf(
      input([{ condition: { if: { profile: { field: 'nickname', operator: Op.IS_SET } } } }], {
        trigger: { eventName: 'Signed Up', where: [{ key: '', operator: Op.IS_SET }] },
        audience: { all: [{ event: { eventName: 'Ordered', minCount: -1 } }] },
      }),
    );
    expect(errors).toEqual([
      { pointer: '/input/trigger/where/0/key', detail: 'must be a non-empty string' },
      { pointer: '/input/audience/all/0/event/minCount', detail: 'must be an integer >= 0' },
      { pointer: '/input/steps/0/condition/if/profile/field', detail: expect.stringContaining('event.<key>') },
    ]);
  });
});

describe('step paths', () => {
  const steps: FlowStep[] = [
    { type: 'send_email', templateId: 'a' },
    {
      type: 'condition',
      if: { profile: { field: 'email', operator: Op.IS_SET } },
      then: [
        { type: 'wait', seconds: 5 },
        { type: 'send_sms', templateId: 'b' },
      ],
      else: [],
    },
    { type: 'webhook', url: 'https://hooks.example.com', bearerToken: 'sealed' },
  ];

  it('finds a step by its path, and nothing where there is none', () => {
    expect(stepAt(steps, '1.then.1')).toEqual({ type: 'send_sms', templateId: 'b' });
    for (const path of ['3', '1.else.0', '0.then.0', '1.then.2']) expect(stepAt(steps, path), path).toBeUndefined();
  });

  it('goes on after a step, climbing out of finished branches, to null at the end', () => {
    expect(pathAfter(steps, '0')).toBe('1');
    expect(pathAfter(steps, '1.then.0')).toBe('1.then.1');
    expect(pathAfter(steps, '1.then.1')).toBe('2');
    expect(pathAfter(steps, '2')).toBeNull();
  });

  it('starts a branch at its first step, or after the condition when the branch is empty', () => {
    expect(branchStart(steps, '1', 'then')).toBe('1.then.0');
    expect(branchStart(steps, '1', 'else')).toBe('2');
  });

  it('shows the steps in the input’s shape, bearer tokens masked', () => {
    expect(publicSteps(steps)).toEqual([
      { sendEmail: { templateId: 'a' } },
      { condition: { if: { profile: { field: 'email', operator: 'IS_SET' } }, then: [{ wait: { seconds: 5 } }, { sendSms: { templateId: 'b' } }], else: [] } },
      { webhook: { url: 'https://hooks.example.com', bearerToken: '****' } },
    ]);
  });
});
