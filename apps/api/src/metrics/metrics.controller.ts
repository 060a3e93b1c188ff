import { Controller, Get, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { Registry } from 'prom-client';
import { API_PATHS } from '@app/contracts';

@ApiTags('operations')
@Controller()
export class MetricsController {
  constructor(private readonly registry: Registry) {}

  @Get(API_PATHS.metrics)
  @ApiOperation({
    summary: 'Prometheus metrics of this API process',
    description:
      'Request counts and latencies, the queue by state (read from Redis on each scrape) and process metrics. ' +
      'Workers serve their own on WORKER_HTTP_PORT. See docs/operations.md.',
  })
  @ApiProduces('text/plain')
  @ApiOkResponse({ description: 'Prometheus text exposition format 0.0.4', schema: { type: 'string' } })
  async metrics(@Res() res: Response): Promise<void> {
    const body = await this.registry.metrics();
    res.status(200).type(this.registry.contentType).send(body);
  }
}
