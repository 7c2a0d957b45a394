/** The driver options that depend on the contact points: the port of the nodes the driver discovers. */
import { describe, expect, it } from 'vitest';
import { clientOptions, discoveredPort } from './client-options.js';
import { resolveConnection } from './connection-options.js';

describe('discoveredPort', () => {
  it("is the contact points' port when they agree, 9042 when none names one, and the driver's default when they differ", () => {
    expect(discoveredPort(['127.0.0.1:40715', '127.0.0.2:40715', '127.0.0.3:40715'])).toBe(40715);
    expect(discoveredPort(['cass-1', 'cass-2'])).toBe(9042);
    expect(discoveredPort(['cass-1', 'cass-2:9042'])).toBe(9042);
    expect(discoveredPort(['[::1]:9043'])).toBe(9043);
    expect(discoveredPort(['cass-1:9042', 'cass-2:9043'])).toBeUndefined();
  });

  it('reaches the peers of a cluster on a non-default port on that port', () => {
    const options = clientOptions(
      resolveConnection({ contactPoints: ['127.0.0.1:40715', '127.0.0.2:40715'], localDataCenter: 'datacenter1' }),
    );
    expect(options.protocolOptions).toEqual({ maxVersion: 4, port: 40715 });
    const mixed = clientOptions(
      resolveConnection({ contactPoints: ['127.0.0.1:40715', '127.0.0.2:40716'], localDataCenter: 'datacenter1' }),
    );
    expect(mixed.protocolOptions).toEqual({ maxVersion: 4 });
  });
});
