import { describe, expect, it } from 'vitest';
import { sampleScope, TemplateEngine, TemplateRenderError } from '../../subgraphs/events/templates/template-engine.service.js';

/** Message templates (Liquid, sandboxed) and the limits on a render, without a flow around them. */
describe('template rendering', () => {
  const scope = sampleScope({ id: 'sto_unit', name: 'Unit shop' });
  // Limits no ordinary template meets, even on a loaded machine.
  const engine = new TemplateEngine({ renderTimeMs: 10_000, maxOutputBytes: 100_000 });

  it('renders the scope of a send; what is not there renders empty', async () => {
    expect(await engine.render('Hi {{ customer.firstName }} from {{ store.name }}: order {{ event.data.orderNumber }}{{ customer.nickname }}{{ nothing.here }}', scope)).toBe(
      'Hi Ada from Unit shop: order 1001',
    );
  });

  it('formats money in the event’s currency, dates in UTC', async () => {
    expect(await engine.render('{{ event.value | money }}|{{ 3 | money }}|{{ "abc" | money }}', scope)).toBe('€120.50|€3.00|');
    expect(await engine.render('{{ event.value | money }}', { ...scope, event: { ...scope.event, valueCurrency: null } })).toBe('120.50');
    expect(await engine.render('{{ event.timestamp | date: "%Y-%m-%d %H:%M" }}', scope)).toBe('2026-03-02 10:20');
  });

  it('reads own properties of the scope only', async () => {
    expect(await engine.render('[{{ customer.constructor }}][{{ event.data.__proto__ }}][{{ store.name.constructor }}]', scope)).toBe('[][][]');
  });

  it('has no file system: include, render and layout are unknown tags, found when the text is checked', () => {
    expect(engine.check('Hi {{ customer.firstName | upcase }}', '/input/body')).toBeUndefined();
    for (const tag of ['include', 'render', 'layout']) {
      expect(engine.check(`{% ${tag} 'other' %}`, '/input/body')).toEqual({ pointer: '/input/body', detail: `tag "${tag}" not found, line:1, col:1` });
    }
    expect(engine.check('Hi\n{{ customer.firstName ', '/input/subject')).toEqual({ pointer: '/input/subject', detail: 'output "{{ customer.firstName " not closed, line:2, col:1' });
  });

  it('stops a render that takes longer than its time limit', async () => {
    // A million iterations against a millisecond: over the limit on any machine.
    const hasty = new TemplateEngine({ renderTimeMs: 1, maxOutputBytes: 100_000 });
    await expect(hasty.render('{% for i in (1..1000) %}{% for j in (1..1000) %}{% endfor %}{% endfor %}', scope)).rejects.toThrow(/^template render limit exceeded/);
  });

  it('stops a render that allocates too much, refuses an output over its size, and renders the next one as usual', async () => {
    const small = new TemplateEngine({ renderTimeMs: 10_000, maxOutputBytes: 100 });
    await expect(small.render('{% for i in (1..100000000) %}{% endfor %}', scope)).rejects.toThrow(new TemplateRenderError('memory alloc limit exceeded, line:1, col:1'));
    await expect(small.render('{% for i in (1..11) %}0123456789{% endfor %}', scope)).rejects.toThrow(new TemplateRenderError('the rendered text is over 100 bytes'));
    // The cap counts UTF-8 bytes: 50 two-byte characters fit, 51 do not.
    expect(Buffer.byteLength(await small.render('{% for i in (1..50) %}é{% endfor %}', scope))).toBe(100);
    await expect(small.render('{% for i in (1..51) %}é{% endfor %}', scope)).rejects.toThrow(TemplateRenderError);
    expect(await small.render('{{ customer.lastName }}', scope)).toBe('Lovelace');
  });
});
