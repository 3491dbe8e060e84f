import { defineEntity, p } from '@mikro-orm/postgresql';

/** A saved segment: a name and its definition (evaluated on demand, never materialised). */
export const SegmentEntity = defineEntity({
  name: 'Segment',
  tableName: 'segment',
  properties: {
    id: p.string().primary(),
    storeId: p.string(),
    name: p.string(),
    definition: p.json(),
    createdAt: p.datetime(),
  },
});
