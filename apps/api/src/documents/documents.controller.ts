/**
 * POST /api/v1/process-template-document: validates the upload, checks the template and the
 * images here (so those errors never reach a worker), then hands the work to the queue and
 * answers with the worker's PDF (or .docx) or its typed error.
 */
import {
  Controller,
  HttpCode,
  Post,
  Req,
  Res,
  StreamableFile,
  UploadedFile,
  UseInterceptors,
} from '@nestjs/common';
import { FileInterceptor } from '@nestjs/platform-express';
import type { Request, Response } from 'express';
import { checkDocxTemplate, InvalidRequestError, prepareImages } from '@app/rendering';
import { ServiceConfig } from '../config/service-config';
import { MissingFileError } from '../errors/service-errors';
import { CONTENT_TYPES } from '../queue/render-job';
import { RenderQueueService } from '../queue/render-queue.service';
import { contentDisposition, outputFilename } from './content-disposition';
import { parseRenderFields } from './render-request.dto';

/** What multer's memory storage gives for the `file` part (the fields used here). */
interface UploadedTemplate {
  buffer: Buffer;
  originalname: string;
  size: number;
}

@Controller('api/v1')
export class DocumentsController {
  constructor(
    private readonly queue: RenderQueueService,
    private readonly config: ServiceConfig,
  ) {}

  @Post('process-template-document')
  @HttpCode(200)
  @UseInterceptors(FileInterceptor('file'))
  async process(
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
    @UploadedFile() file: UploadedTemplate | undefined,
  ): Promise<StreamableFile> {
    if (!req.is('multipart/form-data')) {
      throw new InvalidRequestError(
        'The request must be multipart/form-data with the fields file and data or request_data',
        {
          content_type: req.headers['content-type'] ?? null,
        },
      );
    }
    if (!file) throw new MissingFileError();
    const { request, options } = parseRenderFields(req.body as Record<string, unknown> | undefined);
    checkDocxTemplate(file.buffer);
    prepareImages(request.images, {
      maxImages: this.config.MAX_IMAGES,
      maxImageBytes: this.config.MAX_IMAGE_BYTES,
      maxImagePixels: this.config.MAX_IMAGE_PIXELS,
    });

    const output = options.output ?? 'pdf';
    const filename = outputFilename(file.originalname, output);
    // The caller hanging up withdraws its job if no worker has taken it yet.
    const hangUp = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) hangUp.abort();
    });
    const result = await this.queue.render(
      {
        template: file.buffer,
        filename,
        request,
        options: { undefined: options.undefined ?? this.config.DEFAULT_UNDEFINED, output },
      },
      hangUp.signal,
    );
    return new StreamableFile(result.body, {
      type: result.contentType || CONTENT_TYPES[output],
      disposition: contentDisposition(filename),
      length: result.body.length,
    });
  }
}
