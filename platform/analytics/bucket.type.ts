import { Field, ObjectType, type ClassType } from 'type-graphql';

export interface Bucket<T> {
  start: Date;
  measures: T;
}

/** `<name> { start: DateTime!, measures: <Measures>! }`: one bucket of a series. Call once per measures type. */
export function BucketType<T extends object>(measures: ClassType<T>, name: string): ClassType<Bucket<T>> {
  @ObjectType(name)
  class Bucket {
    @Field(() => Date, { description: "The bucket's start: an interval boundary in the window's zone, or `from` for the first." })
    start!: Date;

    @Field(() => measures)
    measures!: T;
  }
  return Bucket;
}
