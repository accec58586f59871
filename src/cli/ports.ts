import net from 'node:net';
import { CalsyncError } from '../errors/calsync-error.ts';

/** A port a command must listen on is taken by another program. */
export class PortInUseError extends CalsyncError {
  readonly code = 'port-in-use';
  readonly port: number;
  readonly option: string;
  constructor(port: number, option: string) {
    super(`port ${port} is in use: stop what runs there or set ${option} <port> (0 picks any free port)`);
    this.name = 'PortInUseError';
    this.port = port;
    this.option = option;
  }
}

/**
 * Fails with PortInUseError when `port` cannot be listened on at `host`. Checked before anything is
 * started, so a taken port costs no child process; the listen itself still maps EADDRINUSE (a race).
 */
export async function assertPortFree(port: number, option: string, host = '127.0.0.1'): Promise<void> {
  if (port === 0) return;
  await new Promise<void>((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', (err: NodeJS.ErrnoException) => reject(err.code === 'EADDRINUSE' ? new PortInUseError(port, option) : err));
    srv.listen(port, host, () => srv.close(() => resolve()));
  });
}

/** The typed error for a listen that lost the race for its port; anything else unchanged. */
export function portError(err: unknown, port: number, option: string): unknown {
  return (err as NodeJS.ErrnoException)?.code === 'EADDRINUSE' ? new PortInUseError(port, option) : err;
}
