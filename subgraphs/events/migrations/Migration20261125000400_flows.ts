import { Migration } from '@mikro-orm/migrations';

export class Migration20261125000400_flows extends Migration {
  override name = 'Migration20261125000400_flows';

  override up(): void {
    // Liquid message templates of a store (EMAIL has a subject, SMS none).
    this.addSql(`create table events.message_template (
      id text primary key,
      store_id text not null,
      name text not null,
      channel text not null check (channel in ('EMAIL', 'SMS')),
      subject text,
      body text not null,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    )`);
    this.addSql('create index message_template_store_index on events.message_template (store_id, created_at desc, id desc)');

    // A flow is its current version; every version's definition is kept in flow_version, so a run
    // keeps executing the steps it started with whatever later edits do.
    this.addSql(`create table events.flow (
      id text primary key,
      store_id text not null,
      name text not null,
      status text not null check (status in ('ACTIVE', 'PAUSED')),
      version integer not null,
      trigger_event_name text not null,
      definition jsonb not null,
      signing_secret text not null,
      active_since timestamptz,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    )`);
    this.addSql('create index flow_store_index on events.flow (store_id, created_at desc, id desc)');
    // The trigger lookup for each processed event: active flows of the store for this event name.
    this.addSql(`create index flow_trigger_index on events.flow (store_id, trigger_event_name) where status = 'ACTIVE'`);
    this.addSql(`create table events.flow_version (
      flow_id text not null references events.flow (id),
      version integer not null,
      definition jsonb not null,
      created_at timestamptz not null default now(),
      primary key (flow_id, version)
    )`);

    // One run per (flow, event): the unique key is what makes starting a run exactly-once when
    // trigger jobs are retried or two workers take the same event.
    this.addSql(`create table events.flow_run (
      id text primary key,
      flow_id text not null references events.flow (id),
      version integer not null,
      store_id text not null,
      customer_id text not null references events.customer (id),
      event_id text not null references events.custom_event (id),
      status text not null check (status in ('RUNNING', 'WAITING', 'COMPLETED', 'EXITED', 'FAILED')),
      next_path text,
      step_token text not null,
      attempt integer not null default 0,
      started_at timestamptz not null default clock_timestamp(),
      finished_at timestamptz,
      unique (flow_id, event_id)
    )`);
    this.addSql('create index flow_run_flow_index on events.flow_run (flow_id, started_at desc, id desc)');
    this.addSql('create index flow_run_customer_index on events.flow_run (customer_id, started_at desc, id desc)');

    // What each step did, keyed by its path in the version's step tree ("1.then.0").
    this.addSql(`create table events.flow_run_step (
      run_id text not null references events.flow_run (id),
      path text not null,
      type text not null,
      status text not null check (status in ('DONE', 'SKIPPED', 'FAILED', 'WAITING')),
      at timestamptz not null default clock_timestamp(),
      detail text,
      primary key (run_id, path)
    )`);

    // Every message a flow sent (or recorded), one per (run, step): a step re-run after a crash
    // updates its message instead of adding a second one.
    this.addSql(`create table events.message (
      id text primary key,
      store_id text not null,
      customer_id text not null,
      flow_id text not null,
      flow_run_id text not null,
      step_path text not null,
      channel text not null,
      "to" text not null,
      subject text,
      body text not null,
      status text not null check (status in ('SENT', 'RECORDED', 'FAILED')),
      provider text not null,
      error text,
      created_at timestamptz not null default clock_timestamp(),
      unique (flow_run_id, step_path)
    )`);
    this.addSql('create index message_store_index on events.message (store_id, created_at desc, id desc)');
    this.addSql('create index message_customer_index on events.message (customer_id, created_at desc, id desc)');
    this.addSql('create index message_flow_index on events.message (flow_id, created_at desc, id desc)');
  }
}
