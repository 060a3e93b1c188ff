import { Controller, Get } from '@nestjs/common';

/** Clients compare this text; keep it exactly. */
export const HEALTHY = { status: 'Service is healthy !' } as const;

@Controller()
export class HealthController {
  @Get()
  root(): typeof HEALTHY {
    return HEALTHY;
  }

  @Get('health-check')
  check(): typeof HEALTHY {
    return HEALTHY;
  }
}
