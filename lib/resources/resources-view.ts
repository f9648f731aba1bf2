/**
 * What `ctx.resources()` offers a handler: the server's resources, seen from inside a call.
 */
import type {
  ResourceContents,
  ResourceDefinition,
  ResourceTemplateDefinition,
} from './resource-definition.js';

export interface ResourcesView {
  /** Published resource descriptors, in URI order. */
  list(): object[];
  /** Published template descriptors, in template order. */
  templates(): object[];
  /** The descriptor of the resource with this URI (templates are not searched). */
  find(uri: string): object | undefined;
  read(uri: string): Promise<ResourceContents[]>;
  add(definition: ResourceDefinition): void;
  addTemplate(definition: ResourceTemplateDefinition): void;
  remove(uri: string): boolean;
  /** Tells every client subscribed to `uri` that it changed (`notifications/resources/updated`). */
  updated(uri: string): void;
}
