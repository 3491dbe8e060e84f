import 'reflect-metadata';
import { buildSubgraphSchema } from '@apollo/subgraph';
import { printSchemaWithDirectives } from '@graphql-tools/utils';
import { parse, type GraphQLSchema } from 'graphql';
import { buildSchema, createResolversMap, type NonEmptyArray } from 'type-graphql';
import { AppError, INTERNAL_ERROR_MESSAGE, isAppError } from '../errors.js';
import type { GraphQLContext } from './context.js';
import { DateTimeScalar } from './scalars.js';

/** Federation 2 directives the subgraphs may use. Composition and gateway 2.14 accept up to v2.14. */
const FEDERATION_LINK =
  'extend schema @link(url: "https://specs.apollo.dev/federation/v2.7", import: ["@key", "@shareable", "@external", "@requires", "@provides", "@inaccessible"])';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type ReferenceResolver = (reference: any, context: GraphQLContext) => unknown;

export interface FederatedSchemaOptions {
  // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
  resolvers: NonEmptyArray<Function>;
  /** Resolver instances by class: how resolvers receive their services without a DI library. */
  instances?: object[];
  /** `__resolveReference` per entity type name. */
  references?: Record<string, ReferenceResolver>;
  // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
  orphanedTypes?: Function[];
}

export interface FederatedSchema {
  schema: GraphQLSchema;
  /** The subgraph SDL, as composition reads it. */
  sdl: string;
}

/**
 * Unexpected errors in resolvers need no wrapping here: the gateway's (or the
 * subgraph server's) error formatter logs and masks every error that is not a
 * domain error. Reference resolvers are wrapped because the gateway sees their
 * failures only as entity errors.
 */
function internal(ctx: GraphQLContext | undefined, err: unknown): AppError {
  ctx?.logger.error({ err, requestId: ctx.requestId }, 'unexpected error in resolver');
  return new AppError('unexpected', 'internal-error', INTERNAL_ERROR_MESSAGE);
}

/** Builds a type-graphql schema and turns it into an Apollo Federation 2 subgraph schema. */
export async function buildFederatedSchema(options: FederatedSchemaOptions): Promise<FederatedSchema> {
  const instances = new Map<unknown, object>((options.instances ?? []).map((i) => [i.constructor, i]));
  const typeGraphqlSchema = await buildSchema({
    resolvers: options.resolvers,
    orphanedTypes: options.orphanedTypes,
    container: {
      get: (cls) => {
        const instance = instances.get(cls);
        // Building the SDL alone (composition) needs no instances.
        return instance ?? Reflect.construct(cls as new () => object, []);
      },
    },
    scalarsMap: [{ type: Date, scalar: DateTimeScalar }],
    validate: false,
    skipCheck: true,
  });
  const sdl = `${FEDERATION_LINK}\n\n${printSchemaWithDirectives(typeGraphqlSchema)}`;
  const resolvers = createResolversMap(typeGraphqlSchema) as Record<string, Record<string, unknown>>;
  for (const [typeName, resolve] of Object.entries(options.references ?? {})) {
    resolvers[typeName] = {
      ...resolvers[typeName],
      __resolveReference: async (reference: unknown, context: GraphQLContext) => {
        try {
          return await resolve(reference, context);
        } catch (err) {
          if (isAppError(err)) throw err;
          throw internal(context, err);
        }
      },
    };
  }
  const schema = buildSubgraphSchema([{ typeDefs: parse(sdl), resolvers: resolvers as never }]);
  return { schema, sdl };
}
