import { Migration } from '@mikro-orm/migrations';

/**
 * Decisions section 20: several topics and chosen event types per subscription, endpoint health
 * (failing since, last error, the reason it was disabled), secret rotation with an overlap, a
 * delivery rate per subscription, and Loop's webhook API (a Loop subscription has a numeric id, a
 * Loop topic and trigger, and is signed as Loop signs).
 */
export class Migration20270105000000_endpoint_health extends Migration {
  override name = 'Migration20270105000000_endpoint_health';

  override up(): void {
    this.addSql(`alter table webhooks.subscription
      add column topics text[],
      -- null: every type of its topics; else only these (\`return.created\`, as the catalog names them).
      add column event_types text[],
      -- redo: the /v2.2 deliveries (Standard Webhooks); loop: Loop's resource, signed with X-Loop-Signature.
      add column kind text not null default 'redo',
      add column loop_topic text,
      add column loop_trigger text,
      -- Health: the first failure since the last success (null while it succeeds), its last error.
      add column failing_since timestamptz,
      add column last_error text,
      add column disabled_reason text,
      -- The secret a rotation replaced, still signing beside the new one until previous_secret_until.
      add column previous_secret_sealed text,
      add column previous_secret_until timestamptz,
      add column max_deliveries_per_second integer,
      -- Deliveries started in the current second (the rate limit's window).
      add column rate_window_start timestamptz,
      add column rate_window_count integer not null default 0`);
    this.addSql(`update webhooks.subscription set topics = array[topic]`);
    this.addSql(`alter table webhooks.subscription alter column topics set not null`);
    // Loop's ids are numbers (\`DELETE /webhooks/{id}\` with an integer).
    this.addSql(`create sequence webhooks.subscription_numeric_id`);
    this.addSql(`alter table webhooks.subscription add column numeric_id bigint not null default nextval('webhooks.subscription_numeric_id')`);
    this.addSql(`create unique index subscription_numeric_id_unique on webhooks.subscription (numeric_id)`);
    // The fan-out finds a store's subscriptions of a topic among several.
    this.addSql(`create index subscription_topics_index on webhooks.subscription using gin (topics)`);
    // Loop's label triggers: the label a Loop subscription last heard of per return (created, then updated when it changes).
    this.addSql(`create table webhooks.loop_label (
      subscription_id text not null references webhooks.subscription (id) on delete cascade,
      return_id text not null,
      label text not null,
      primary key (subscription_id, return_id)
    )`);
    // Recovery reads a subscription's given-up messages since a time.
    this.addSql(`create index message_discarded_index on webhooks.message (subscription_id, finished_at) where state = 'discarded'`);
  }
}
