/**
 * What `ctx.resources()` offers a handler: the server's resources, seen from inside a call. Every
 * member returns a promise, so it reads the same inline and from a pool thread or process.
 */
import type {
  ResourceContents,
  ResourceDefinition,
  ResourceTemplateDefinition,
} from './resource-definition.js';

/** A `Resource` of `resources/list`, as published. */
export interface ResourceDescriptor {
  readonly uri: string;
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly mimeType?: string;
  readonly [extra: string]: unknown;
}

/** A `ResourceTemplate` of `resources/templates/list`, as published. */
export interface TemplateDescriptor {
  readonly uriTemplate: string;
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly mimeType?: string;
  readonly [extra: string]: unknown;
}

export interface ResourcesView {
  /**
   * Published resource descriptors, in URI order, those the caller's scopes reach (as its own
   * resources/list); with `tags`, only those carrying one of them.
   */
  list(filter?: { tags?: readonly string[] }): Promise<ResourceDescriptor[]>;
  /** Published template descriptors, in template order, those the caller's scopes reach. */
  templates(): Promise<TemplateDescriptor[]>;
  /** The descriptor of the resource with this URI (templates are not searched). */
  find(uri: string): Promise<ResourceDescriptor | undefined>;
  read(uri: string): Promise<ResourceContents[]>;
  /** Whether the client that made this call subscribed to `uri` (resources/subscribe). */
  isSubscribed(uri: string): Promise<boolean>;
  /** Inline handlers only: a reader function cannot be sent from a pool thread or process. */
  add(definition: ResourceDefinition): Promise<void>;
  /** Inline handlers only, like `add`. */
  addTemplate(definition: ResourceTemplateDefinition): Promise<void>;
  remove(uri: string): Promise<boolean>;
  /** Tells every client subscribed to `uri` that it changed (`notifications/resources/updated`). */
  notifyUpdated(uri: string): Promise<void>;
  /** The former name of `notifyUpdated`. */
  updated(uri: string): Promise<void>;
}
