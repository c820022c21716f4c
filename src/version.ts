import pkg from '../package.json' with { type: 'json' };

/** Pharos version from package.json. */
export const PHAROS_VERSION: string = pkg.version;
