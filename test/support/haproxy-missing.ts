/** Why a suite that needs HAProxy cannot run here, or undefined when it can (as redisMissing does for Redis). */
import { haproxyBinary } from '../../examples/deploy/local-cluster.js';

export function haproxyMissing(): string | undefined {
  if (haproxyBinary()) return undefined;
  const why = "skipped: haproxy is not installed (Debian's haproxy package; .ci/run installs it)";
  if (process.env.WEFT_REQUIRE_HAPROXY === '1') throw new Error(`WEFT_REQUIRE_HAPROXY=1 but ${why}`);
  return why;
}
