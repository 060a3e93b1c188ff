import { Controller, Get, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiServiceUnavailableResponse, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { RenderQueueService } from '../queue/render-queue.service';
import { API_PATHS } from '@app/contracts';
import { readiness, ReadinessBody } from './readiness';
import { TemplateStoreProvider } from '../store/template-store.provider';
import { HEALTHY_SCHEMA, READINESS_SCHEMA } from './health.openapi';

/** Clients compare this text; keep it exactly. */
export const HEALTHY = { status: 'Service is healthy !' } as const;

/**
 * Liveness of the specification (`/`, `/health-check`): the API process answers. They never
 * touch Redis, so an orchestrator does not restart healthy API processes during a Redis outage.
 */
@ApiTags('health')
@Controller()
export class HealthController {
  @Get(API_PATHS.root)
  @ApiOperation({ summary: 'Liveness (specification): the API process answers; never depends on Redis' })
  @ApiOkResponse({ description: 'Always this body', schema: HEALTHY_SCHEMA })
  root(): typeof HEALTHY {
    return HEALTHY;
  }

  @Get(API_PATHS.live)
  @ApiOperation({ summary: 'Liveness (specification), the same check as GET /' })
  @ApiOkResponse({ description: 'Always this body', schema: HEALTHY_SCHEMA })
  check(): typeof HEALTHY {
    return HEALTHY;
  }
}

/** Readiness: can a document be rendered right now? */
@ApiTags('health')
@Controller()
export class ReadinessController {
  constructor(
    private readonly queue: RenderQueueService,
    private readonly stores: TemplateStoreProvider,
  ) {}

  @Get(API_PATHS.ready)
  @ApiOperation({
    summary: 'Readiness: Redis reachable, a worker alive, a healthy converter',
    description:
      'Two cheap Redis reads (the worker heartbeat registry and the converter-health registry the workers ' +
      'refresh with each heartbeat). 503 names the failing checks in `failed`.',
  })
  @ApiOkResponse({ description: 'Ready', schema: READINESS_SCHEMA })
  @ApiServiceUnavailableResponse({
    description: 'Not ready; `failed` names the checks',
    schema: READINESS_SCHEMA,
  })
  async ready(@Res() res: Response): Promise<void> {
    const [probe, database] = await Promise.all([this.queue.probe(), this.stores.up()]);
    const body: ReadinessBody = readiness(probe, database);
    res
      .status(body.status === 'ok' ? 200 : 503)
      .set('Cache-Control', 'no-store')
      .type('application/json')
      .send(JSON.stringify(body));
  }
}
