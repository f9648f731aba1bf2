/**
 * What a gateway's log may say of a mount's target: its URL without userinfo or query, its command
 * line without secret-looking values; and what clients read: the mount's label or namespace only.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MountNaming } from '../../lib/gateway/mount-naming.js';

test('a URL target loses its userinfo and query in the log; clients read the label', () => {
  const raw = 'https://user:pass@10.0.0.5/mcp?api_key=SECRET#frag';
  const naming = new MountNaming(raw, 'search');
  assert.equal(naming.publicName, 'the mount "search"');
  assert.equal(naming.target, 'https://***@10.0.0.5/mcp?***');
  const logged = naming.redact(`POST ${raw} failed: fetch failed (see http://other.host/x?token=T2)`);
  assert.doesNotMatch(logged, /SECRET|pass|T2/);
  assert.match(logged, /10\.0\.0\.5\/mcp/);
  assert.equal(new MountNaming({ url: new URL(raw) }, undefined).publicName, 'the mounted upstream');
});

test('a command target keeps its words but not its secrets', () => {
  const naming = new MountNaming(
    { command: 'node', args: ['server.js', '--token', 'T0PSECRET', 'API_KEY=K3Y', '--port=3'] },
    'tools',
  );
  assert.equal(naming.target, 'node server.js --token *** API_KEY=*** --port=3');
  assert.equal(
    naming.redact('node server.js --token T0PSECRET API_KEY=K3Y --port=3 exited with code 1'),
    'node server.js --token *** API_KEY=*** --port=3 exited with code 1',
  );
});
