import { Controller, Get } from '@nestjs/common';
import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { ApiSettings } from '../config/settings';
import { RenderQueueService } from '../queue/render-queue.service';
import { versionInfo, type VersionInfo } from './version-info';

@ApiTags('health')
@Controller()
export class VersionController {
  constructor(
    private readonly queue: RenderQueueService,
    private readonly config: ApiSettings,
  ) {}

  @Get('version')
  @ApiOperation({
    summary: 'Version, supported API forms and features, engine and converter versions',
    description:
      'The converter is the one the workers report with their heartbeat (LibreOffice or Gotenberg and its version); ' +
      '`unknown` when no worker has reported or Redis cannot be read.',
  })
  @ApiResponse({
    status: 200,
    description: 'Version information',
    content: { 'application/json': { schema: { $ref: '#/components/schemas/VersionInfo' } } },
  })
  async version(): Promise<VersionInfo> {
    const converter = await this.queue.converterInfo().catch(() => null);
    return versionInfo(converter, this.config.http.playground, this.config.defaults.undefined);
  }
}
