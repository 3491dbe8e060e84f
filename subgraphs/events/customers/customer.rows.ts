/** Customers as stored (camelCase aliases from SQL) and their column list. */

export interface CustomerRow {
  id: string;
  storeId: string;
  email: string | null;
  phoneNumber: string | null;
  firstName: string | null;
  lastName: string | null;
  location: Record<string, unknown> | null;
  customFields: Record<string, unknown> | null;
  createdAt: Date;
  updatedAt: Date;
}

/** The select list of a `CustomerRow`, for `customer` under an alias (`c.id, c.store_id as "storeId", ...`) or unaliased. */
export function customerColumns(alias?: string): string {
  const a = alias ? `${alias}.` : '';
  return `${a}id, ${a}store_id as "storeId", ${a}email, ${a}phone_number as "phoneNumber", ${a}first_name as "firstName", ${a}last_name as "lastName",
    ${a}location, ${a}custom_fields as "customFields", ${a}created_at as "createdAt", ${a}updated_at as "updatedAt"`;
}
