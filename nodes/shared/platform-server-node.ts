/** What nodes using a platform-server config node see of it. */
import type { Node } from 'node-red';
import type { PlatformClient } from '../../lib/platform/client';

export interface PlatformServerNode extends Node {
  /** The client, or an Error that says what is missing in the configuration. */
  getClient(): PlatformClient | Error;
}
