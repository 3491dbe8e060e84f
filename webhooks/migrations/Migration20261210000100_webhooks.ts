import { Migration } from '@mikro-orm/migrations';

/** Webhook subscriptions, the messages owed to each, the lanes that keep them in order, and the attempts log. */
export class Migration20261210000100_webhooks extends Migration {
  override name = 'Migration20261210000100_webhooks';

  override up(): void {
    this.addSql(`create table webhooks.subscription (
      id text primary key,
      account_id text not null,
      store_id text not null,
      topic text not null,
      url text not null,
      -- Sent to the subscriber, so kept recoverable: AES-256-GCM under the service's key (platform/secret-box.ts).
      auth_token_sealed text,
      auth_token_last4 text,
      signing_secret_sealed text not null,
      external_id text,
      disabled_at timestamptz,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    )`);
    // The list, newest first (keyset), and the fan-out's lookup by (store, topic).
    this.addSql('create index subscription_store_index on webhooks.subscription (store_id, created_at desc, id desc)');
    this.addSql('create index subscription_topic_index on webhooks.subscription (store_id, topic)');
    this.addSql('create unique index subscription_external_id_unique on webhooks.subscription (store_id, external_id) where external_id is not null');

    // One event owed to one subscription. Its id is the Standard Webhooks message id (webhook-id),
    // the same on every attempt; the body is stored serialised so every attempt sends the same bytes.
    this.addSql(`create table webhooks.message (
      id text primary key,
      subscription_id text not null references webhooks.subscription (id) on delete cascade,
      event_id text not null,
      -- The order within a lane (the outbox's commit order, or a replay's).
      sequence bigint not null,
      lane text not null,
      subject_id text not null,
      type text not null,
      body text not null,
      -- A replayed copy names the message it re-sends (a replay re-sends originals only).
      replay_of text,
      -- queued (owed), succeeded, discarded
      state text not null default 'queued',
      attempts integer not null default 0,
      created_at timestamptz not null default now(),
      finished_at timestamptz
    )`);
    // A lane's head: its queued message with the lowest sequence.
    this.addSql(`create index message_lane_index on webhooks.message (subscription_id, lane, sequence) where state = 'queued'`);
    // Replay reads a subscription's events since a time, in order; the retention sweep reads by age.
    this.addSql('create index message_replay_index on webhooks.message (subscription_id, created_at, sequence)');
    this.addSql(`create index message_finished_index on webhooks.message (finished_at) where state <> 'queued'`);

    // (subscription, subject): what is owed next and whether a worker holds it. A lane is due when
    // ready_at has come and no live lease holds it; only the lane's head is ever sent, so a later
    // event waits while an earlier one is retried, and other lanes are never held up by it.
    this.addSql(`create table webhooks.lane (
      subscription_id text not null references webhooks.subscription (id) on delete cascade,
      lane text not null,
      ready_at timestamptz,
      lease_until timestamptz,
      primary key (subscription_id, lane)
    )`);
    this.addSql('create index lane_due_index on webhooks.lane (ready_at) where ready_at is not null');

    // The deliveries log (decisions section 14): one row per attempt.
    this.addSql(`create table webhooks.attempt (
      id text primary key,
      subscription_id text not null references webhooks.subscription (id) on delete cascade,
      message_id text not null,
      event_id text not null,
      type text not null,
      subject_id text not null,
      attempt integer not null,
      status text not null,
      response_status integer,
      duration_ms integer,
      error text,
      created_at timestamptz not null default now()
    )`);
    this.addSql('create index attempt_list_index on webhooks.attempt (subscription_id, created_at desc, id desc)');
    this.addSql('create index attempt_message_index on webhooks.attempt (message_id)');
    this.addSql('create index attempt_created_index on webhooks.attempt (created_at)');
  }
}
