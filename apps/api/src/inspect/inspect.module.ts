import { Module } from '@nestjs/common';
import { templateUploadModule } from '../documents/template-upload';
import { InspectController } from './inspect.controller';

@Module({ imports: [templateUploadModule()], controllers: [InspectController] })
export class InspectModule {}
