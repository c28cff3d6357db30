// GraphQL at /graphql through Apollo Gateway.
import type { FastifyInstance } from 'fastify';
import type { Platform } from '../subgraphs/core/platform.js';

export async function registerGraphql(_app: FastifyInstance, _platform: Platform): Promise<void> {}
