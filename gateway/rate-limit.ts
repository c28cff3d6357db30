// Rate limits (DECISIONS §1).
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Platform } from '../subgraphs/core/platform.js';

export class RateLimiter {
  constructor(private readonly platform: Platform) {}

  async enforce(_request: FastifyRequest, _reply: FastifyReply): Promise<void> {
    void this.platform;
  }
}
