// The console's paths alone, so the top-level app can route to the console without loading it
// (the console is built at its first request: src/http/app.ts, issue 38 point 1).

/** Paths the console answers (everything else goes on to the API, status pages, docs…). */
export const CONSOLE_PATH = /^\/(?:$|login(?:\/totp|\/sso)?$|logout$|setup\/|monitors(?:\/|$)|healthchecks(?:\/|$)|outages(?:\/|$)|maintenance(?:\/|$)|incidents(?:\/|$)|statuspages(?:\/|$)|components(?:\/|$)|settings(?:\/|$)|profile(?:\/|$)|integrations(?:\/|$)|escalation-policies(?:\/|$)|on-call(?:\/|$)|audit-log$|events$|theme$|_console\/)/;
