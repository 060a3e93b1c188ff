/**
 * Bull Board at /admin/queues: the render queue, each job's state, timings and failed reason, and
 * retry. Off unless BULL_BOARD_USER and BULL_BOARD_PASSWORD are both set (then behind HTTP basic
 * auth); when off the path is an ordinary 404 and the start-up log says how to turn it on.
 *
 * The render queue's description line says whether PostgreSQL (stored templates) answers, asked
 * again on each call of the board's API (see database-status.ts).
 *
 * Job data is shown through boardJobData (ids, sizes, file name, options; never document bytes).
 * Adding jobs and editing job data are refused: the board would write its filtered view back.
 */
import {
  Logger,
  MiddlewareConsumer,
  Module,
  NestModule,
  OnApplicationBootstrap,
  RequestMethod,
} from '@nestjs/common';
import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { ExpressAdapter } from '@bull-board/express';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { ApiSettings } from '../config/settings';
import { API_PATHS } from '@app/contracts';
import { ERROR_TYPE_LOCAL, METRICS_ROUTE_LOCAL } from '../logging/response-locals';
import { QueueModule } from '../queue/queue.module';
import { RenderQueueService } from '../queue/render-queue.service';
import { JobsService } from '../queue/jobs.service';
import { TemplateStoreProvider } from '../store/template-store.provider';
import { checkBasicAuth } from './basic-auth';
import { databaseStatusLine, RenderQueueAdapter } from './database-status';
import { boardJobData, boardJobResult } from './job-view';

/** Board API calls that would write job data: adding a job, replacing a job's data. */
const WRITES_JOB_DATA = [
  { method: 'POST', path: /^\/api\/queues\/[^/]+\/add\/?$/ },
  { method: 'PATCH', path: /^\/api\/queues\/[^/]+\/[^/]+\/update-data\/?$/ },
];

/** The path below the board's mount point, from the URL the caller sent ('/' for the board itself). */
function boardPath(req: Request): string {
  const path = req.originalUrl.split('?')[0].slice(API_PATHS.board.length);
  return path.startsWith('/') ? path : `/${path}`;
}

function sendError(res: Response, status: number, errorType: string, message: string): void {
  res.locals[ERROR_TYPE_LOCAL] = errorType;
  res
    .status(status)
    .type('application/json')
    .send(JSON.stringify({ status: 'error', error_type: errorType, message, details: {} }));
}

@Module({ imports: [QueueModule] })
export class BoardModule implements NestModule, OnApplicationBootstrap {
  private readonly logger = new Logger('BullBoard');
  private router?: RequestHandler;
  private renderAdapter?: RenderQueueAdapter;

  constructor(
    private readonly config: ApiSettings,
    private readonly queue: RenderQueueService,
    private readonly jobs: JobsService,
    private readonly stores: TemplateStoreProvider,
  ) {}

  configure(consumer: MiddlewareConsumer): void {
    const board = this.config.http.board;
    if (!board) return;
    consumer
      .apply(
        (req: Request, res: Response, next: NextFunction) => this.guard(req, res, next),
        (req: Request, res: Response, next: NextFunction) => void this.refreshStatus(req).then(next, next),
        (req: Request, res: Response, next: NextFunction) => this.serve(req, res, next),
      )
      .forRoutes({ path: `${API_PATHS.board}{/*splat}`, method: RequestMethod.ALL });
  }

  onApplicationBootstrap(): void {
    const board = this.config.http.board;
    if (board) {
      this.logger.log(`Bull Board at ${API_PATHS.board} (HTTP basic auth, user '${board.user}')`);
    } else {
      this.logger.log(
        `Bull Board is off; set BULL_BOARD_USER and BULL_BOARD_PASSWORD to serve it at ${API_PATHS.board}`,
      );
    }
  }

  private guard(req: Request, res: Response, next: NextFunction): void {
    res.locals[METRICS_ROUTE_LOCAL] = API_PATHS.board;
    const board = this.config.http.board;
    if (!board || !checkBasicAuth(req.headers.authorization, board.user, board.password)) {
      res.set('WWW-Authenticate', 'Basic realm="Bull Board", charset="UTF-8"');
      sendError(
        res,
        401,
        'unauthorized',
        'Bull Board needs the user and password of BULL_BOARD_USER / BULL_BOARD_PASSWORD',
      );
      return;
    }
    const path = boardPath(req);
    if (WRITES_JOB_DATA.some((w) => w.method === req.method && w.path.test(path))) {
      sendError(
        res,
        403,
        'forbidden',
        'Adding jobs and editing job data are disabled: job data refers to stored payloads',
      );
      return;
    }
    next();
  }

  /** Asks PostgreSQL before the board lists its queues (the UI polls that call). */
  private async refreshStatus(req: Request): Promise<void> {
    if (req.method !== 'GET' || !/^\/api\/queues\/?$/.test(boardPath(req))) return;
    this.router ??= this.createRouter();
    this.renderAdapter!.status = databaseStatusLine(await this.stores.up(), new Date());
  }

  /**
   * Hands the request to the board's Express app with the URL relative to the mount path (what
   * `app.use(path, board)` would do; Nest's wildcard route strips all of it). The URL is restored
   * if the board passes the request on, so Nest's 404 names the path the caller asked for.
   */
  private serve(req: Request, res: Response, next: NextFunction): void {
    // Built on first use: the queue exists only once QueueModule has started.
    this.router ??= this.createRouter();
    const url = req.url;
    const query = req.originalUrl.indexOf('?');
    req.url = boardPath(req) + (query >= 0 ? req.originalUrl.slice(query) : '');
    this.router(req, res, (err?: unknown) => {
      req.url = url;
      next(err);
    });
  }

  private createRouter(): RequestHandler {
    // Retrying a completed job would render it again for nobody: the caller has its answer.
    const adapterOptions = { allowRetries: true, allowCompletedRetries: false, displayName: 'render' };
    const adapter = new RenderQueueAdapter(this.queue.bullQueue, adapterOptions);
    this.renderAdapter = adapter;
    adapter.setFormatter('data', boardJobData);
    adapter.setFormatter('returnValue', boardJobResult);
    const serverAdapter = new ExpressAdapter();
    serverAdapter.setBasePath(API_PATHS.board);
    // Asynchronous jobs' queues: items (render jobs), parents (assembly), webhook deliveries.
    const jobAdapters = this.jobs.bullQueues.map((q) => {
      const a = new BullMQAdapter(q, { ...adapterOptions, displayName: q.name });
      a.setFormatter('data', boardJobData);
      return a;
    });
    createBullBoard({
      queues: [adapter, ...jobAdapters],
      serverAdapter,
      options: { uiConfig: { boardTitle: 'docgen queues' } },
    });
    const router = serverAdapter.getRouter() as RequestHandler & { disable?: (setting: string) => void };
    router.disable?.('x-powered-by');
    return router;
  }
}
