import { Module } from '@nestjs/common';
import { templateUploadModule } from '../upload/template-upload';
import { InspectController } from './inspect.controller';

@Module({ imports: [templateUploadModule()], controllers: [InspectController] })
export class InspectModule {}
