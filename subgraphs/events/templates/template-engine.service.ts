import { Liquid, LiquidError, type Template } from 'liquidjs';
import type { FieldError } from '../../../platform/errors.js';

/**
 * Liquid for message templates, sandboxed: no file system (no include,
 * render or layout tag; an empty in-memory template map), only own
 * properties of the scope, and bounded work. A merchant's template runs on
 * the same workers as everything else, so a loop or a huge output is
 * stopped by the engine's limits (render time, memory) and by a cap on the
 * output's size, and fails that render alone.
 */
export interface RenderLimits {
  /** Time one render may take (Liquid's renderLimit), milliseconds. */
  renderTimeMs: number;
  /** Largest rendered text accepted, in UTF-8 bytes. */
  maxOutputBytes: number;
}

/** The scope of a send (decisions section 16). */
export interface TemplateScope {
  event: { name: string; timestamp: string; value: number | null; valueCurrency: string | null; uniqueId: string | null; data: Record<string, unknown>; extra: unknown };
  customer: { id: string; email: string | null; phoneNumber: string | null; firstName: string | null; lastName: string | null; location: Record<string, unknown> | null; customFields: Record<string, unknown> | null };
  store: { id: string; name: string };
  /** A send's own unsubscribe link (`{{ unsubscribe.url }}`): the page that unsubscribes this customer from the channel's marketing. */
  unsubscribe?: { url: string };
}

/** A render that went over a limit or failed at run time: the message says which. */
export class TemplateRenderError extends Error {}

const FORBIDDEN_TAGS = ['include', 'render', 'layout'] as const;

/** `{{ event.value | money }}` -> `€120.50`, in the event's currency (a plain two-decimal number without one). */
function money(this: { context: { getSync(path: string[]): unknown } }, value: unknown): string {
  const amount = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : NaN;
  if (!Number.isFinite(amount)) return '';
  const currency = this.context.getSync(['event', 'valueCurrency']);
  if (typeof currency === 'string' && /^[A-Z]{3}$/.test(currency)) {
    try {
      return new Intl.NumberFormat('en', { style: 'currency', currency }).format(amount);
    } catch {
      // An unknown code: the number alone below.
    }
  }
  return amount.toFixed(2);
}

export class TemplateEngine {
  private readonly liquid: Liquid;

  constructor(private readonly limits: RenderLimits) {
    this.liquid = new Liquid({
      templates: {},
      ownPropertyOnly: true,
      // Dates format in UTC (a worker's time zone must not change what a customer reads).
      timezoneOffset: 0,
      renderLimit: limits.renderTimeMs,
      // Liquid counts the strings it allocates; twice the output cap leaves room for the work of a normal template.
      memoryLimit: limits.maxOutputBytes * 2,
      parseLimit: 1_000_000,
    });
    for (const tag of FORBIDDEN_TAGS) delete (this.liquid.tags as Record<string, unknown>)[tag];
    this.liquid.registerFilter('money', money);
  }

  /** Parses, or returns the problem with its line (`pointer` is where the text was given). */
  check(text: string, pointer: string): FieldError | undefined {
    try {
      this.liquid.parse(text);
      return undefined;
    } catch (err) {
      return { pointer, detail: describe(err) };
    }
  }

  /** Parsed templates by text: a flow renders the same few templates for every run. Bounded, oldest dropped first. */
  private readonly parsed = new Map<string, Template[]>();

  parse(text: string): Template[] {
    let templates = this.parsed.get(text);
    if (!templates) {
      templates = this.liquid.parse(text);
      if (this.parsed.size >= 500) this.parsed.delete(this.parsed.keys().next().value!);
      this.parsed.set(text, templates);
    }
    return templates;
  }

  /** Renders with the limits; undefined values render empty. */
  async render(text: string, scope: TemplateScope): Promise<string> {
    let out: unknown;
    try {
      out = await this.liquid.render(this.parse(text), scope);
    } catch (err) {
      throw new TemplateRenderError(describe(err));
    }
    const rendered = String(out ?? '');
    if (Buffer.byteLength(rendered) > this.limits.maxOutputBytes) {
      throw new TemplateRenderError(`the rendered text is over ${this.limits.maxOutputBytes} bytes`);
    }
    return rendered;
  }
}

/** Liquid's message already names the line and column ("..., line:2, col:12"). */
function describe(err: unknown): string {
  if (err instanceof LiquidError) return err.message.replace(/^(\w+Error: )/, '');
  return err instanceof Error ? err.message : String(err);
}

/** The scope of a preview without a real event or customer. */
export function sampleScope(store: { id: string; name: string }): TemplateScope {
  return {
    event: {
      name: 'Order Placed',
      timestamp: '2026-03-02T10:20:00.000Z',
      value: 120.5,
      valueCurrency: 'EUR',
      uniqueId: 'order-1001',
      data: { total: 120.5, orderNumber: '1001', items: 2 },
      extra: null,
    },
    customer: {
      id: 'cus_sample',
      email: 'ada@example.com',
      phoneNumber: '+15555550100',
      firstName: 'Ada',
      lastName: 'Lovelace',
      location: { city: 'London', countryCode: 'GB' },
      customFields: { tier: 'gold' },
    },
    store,
  };
}
