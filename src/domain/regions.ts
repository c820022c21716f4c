/** The 18 monitoring regions of API.md §2.2. */
export const REGIONS = [
  'sanfrancisco', 'nyc', 'london', 'paris', 'frankfurt', 'seoul', 'mumbai', 'bangalore', 'saopaulo',
  'california', 'virginia', 'sydney', 'toronto', 'amsterdam', 'singapore', 'tokyo', 'bahrain', 'capetown',
] as const;

/** One of {@link REGIONS}. */
export type Region = (typeof REGIONS)[number];
