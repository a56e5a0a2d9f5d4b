import { Injectable, Module } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * A route answered at the main listener's edge, before Fastify and Nest: given a request on one
 * of the gateway's own hosts (never a site host) and its origin-form URL, it answers and returns
 * true, or returns false having touched nothing.
 */
export interface EdgeRoute {
  tryServe(req: IncomingMessage, res: ServerResponse, url: string): boolean;
}

/**
 * The edge routes of the gateway's own hosts. Feature modules register theirs (the object
 * route's warm reads, src/object/object-edge.ts); the site edge, which owns the main listener
 * and classifies every Host, tries them for requests on the gateway's hosts before handing the
 * request to Fastify. Feature rooms never import each other: this is where they meet.
 */
@Injectable()
export class EdgeRoutes {
  private routes: EdgeRoute[] = [];

  add(route: EdgeRoute): void {
    this.routes = [...this.routes, route];
  }

  tryServe(req: IncomingMessage, res: ServerResponse, url: string): boolean {
    const routes = this.routes;
    for (let i = 0; i < routes.length; i++) {
      if (routes[i].tryServe(req, res, url)) return true;
    }
    return false;
  }
}

/** One EdgeRoutes for the whole application: the modules that add and try routes import it. */
@Module({ providers: [EdgeRoutes], exports: [EdgeRoutes] })
export class EdgeRoutesModule {}
