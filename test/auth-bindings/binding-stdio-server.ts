/**
 * The binding server over stdio, its client given a fixed principal (stdio has no OAuth):
 * `listen({ stdio: { principal } })`. The principal holds notes:read only.
 */
import { makePrincipal } from '../../lib/index.js';
import { bindingServer } from './binding-server.js';

const server = bindingServer();
await server.listen({
  stdio: {
    principal: makePrincipal({ subject: 'local-user', issuer: 'stdio', scopes: ['notes:read'] }),
  },
});
