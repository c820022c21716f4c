import { z } from 'zod';
import { invalid } from '../../lib/errors.ts';
import { isHost } from '../target.ts';
import type { ProbeTarget, ProtocolDefinition } from '../types.ts';

const fields = {
  docker_container: z.string({ error: 'must be a string' }).max(256, 'must be at most 256 characters'),
};

const EXPECTED = 'the Docker Engine API: unix:///var/run/docker.sock (a unix socket), or tcp://host:2375 / http(s)://host:port';

/**
 * Where the Engine API listens: `unix:///path/to.sock` (target host `localhost`, port null, the
 * socket path in `url`), or `tcp://`, `http://`, `https://` host:port (`tcp://` is plain HTTP, as
 * the docker CLI reads DOCKER_HOST; port 2375 by default, 2376 for https).
 * @throws AppError 400 `url: must be …`
 */
export function dockerTarget(raw: string): ProbeTarget {
  const s = raw.trim();
  if (s.startsWith('unix://')) {
    const path = s.slice('unix://'.length);
    if (!path.startsWith('/') || path.length < 2) throw invalid('url', `must be ${EXPECTED}`);
    return { url: s, host: 'localhost', port: null };
  }
  let u: URL;
  try {
    u = new URL(s);
  } catch {
    throw invalid('url', `must be ${EXPECTED}`);
  }
  if (!['tcp:', 'http:', 'https:'].includes(u.protocol)) throw invalid('url', `must be ${EXPECTED}`);
  const host = u.hostname.startsWith('[') ? u.hostname.slice(1, -1) : u.hostname;
  if (!isHost(host)) throw invalid('url', 'must name a host');
  return { url: s, host, port: u.port ? Number(u.port) : u.protocol === 'https:' ? 2376 : 2375 };
}

/**
 * docker: asks the Docker Engine API at `url` (`unix:///var/run/docker.sock` by default in the form,
 * or a TCP endpoint) for `GET /containers/{docker_container}/json`; up while `State.Running` and its
 * health check (if it has one) is not `unhealthy`. Podman's Docker-compatible socket
 * (`unix:///run/podman/podman.sock`, rootless `unix:///run/user/<uid>/podman/podman.sock`) answers the
 * same request and works alike.
 */
export const docker = {
  fields,
  defaults: { docker_container: '' },
  urlMeaning: 'the Docker Engine API: unix:///var/run/docker.sock (or Podman\'s socket), or tcp://host:2375',
  label: 'Docker container',
  target: (url) => dockerTarget(url),
  validate(settings) {
    if (!settings.docker_container) throw invalid('docker_container', 'is required for protocol "docker" (a container name or id)');
  },
  loadProbe: async () => (await import('./probe.ts')).dockerProbe,
} satisfies ProtocolDefinition<typeof fields>;
