import { Migration } from '@mikro-orm/migrations';

/** Every scope a secret could carry before `orders_read`, `customers_write` and `storefront_events_write` existed. */
const SCOPES_BEFORE = [
  'returns_read',
  'returns_write',
  'customer_events_write',
  'customers_read',
  'inventory_read',
  'inbound_shipments_read',
  'webhooks_read',
  'webhooks_write',
  'orders_write',
  'flows_read',
  'flows_write',
  'privacy_read',
  'privacy_write',
];

/**
 * The real platform's scopes of the orders, customers and storefront events operations. A secret
 * made with every scope (the default) keeps having every scope; a secret made with chosen scopes
 * keeps only those (its owner grants the new ones with a new secret).
 */
export class Migration20261229000000_v22_scopes extends Migration {
  override name = 'Migration20261229000000_v22_scopes';

  override up(): void {
    this.addSql(
      `update platform.api_secret set scopes = scopes || array['orders_read', 'customers_write', 'storefront_events_write']
        where scopes @> array[${SCOPES_BEFORE.map((s) => `'${s}'`).join(', ')}]::text[]`,
    );
  }
}
