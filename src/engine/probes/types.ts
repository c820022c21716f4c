import type { CheckSpec } from '../../protocols/index.ts';

/** What a probe needs to run one check (the protocols' {@link CheckSpec}). */
export type ProbeSpec = CheckSpec;

export type { Probe, ProbeFactory, ProbeOptions } from '../../protocols/index.ts';
