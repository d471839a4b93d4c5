/**
 * Where the package keeps a node's files: under Node-RED's user directory
 * (the working directory when it has none, as in some test harnesses), in
 * `detection-bridge/`, named by what they are and the node's id, so a restart
 * finds them again: the receiver's journal, the dedupe key log, the presence
 * table, the listener's certificates.
 */
import { join } from 'node:path';
import type { NodeAPI } from 'node-red';

/** Node-RED's user directory. */
export function userDirOf(RED: NodeAPI): string {
  return (RED.settings as unknown as { userDir?: string }).userDir ?? process.cwd();
}

/** `<userDir>/detection-bridge/<kind>-<node id><ending>`, the id made safe for a file name. */
export function nodeFile(RED: NodeAPI, kind: string, nodeId: string, ending = ''): string {
  return join(userDirOf(RED), 'detection-bridge', `${kind}-${nodeId.replace(/[^\w.-]/g, '_')}${ending}`);
}
