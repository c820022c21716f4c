/** Epoch ms → ISO 8601 with `Z` and milliseconds (CONTRACT.md "Identifiers and time"); null stays null. */
export function isoOrNull(ms: number | null | undefined): string | null {
  return ms == null ? null : new Date(ms).toISOString();
}

/** Epoch ms → ISO 8601 with `Z` and milliseconds. */
export function iso(ms: number): string {
  return new Date(ms).toISOString();
}
