/**
 * The transaction-scoped store `store.tx(fn)` hands to `fn` (issue 22 "a transaction-scoped store
 * handed to the function run in a transaction"). It has the shape of the store it wraps; every call
 * through it runs on the transaction's connection (SQLite: the one connection; PostgreSQL: the client
 * the worker pinned at BEGIN), because the driver's transaction is open while `fn` runs. Once `fn`
 * has returned or thrown, the scope is closed and any use of the handed store, or of a function or
 * module taken from it, throws {@link txEnded} instead of silently running outside the transaction.
 */

/** Whether the transaction a scoped store belongs to is still running. */
export interface TxScope {
  open: boolean;
}

/** The error a transaction-scoped store throws once its transaction has ended (a programming error: a 500). */
export function txEnded(what: string): Error {
  return new Error(`store: the transaction-scoped store was used after its transaction ended (${what}); use it only inside the function given to store.tx`);
}

/**
 * A view of `target` (the store, or one of its modules, recursively) valid while `scope.open`.
 * Functions are wrapped (called with the real module as `this`), nested modules are scoped too, other
 * values are read through. Wrappers are made once per transaction and property, on first use.
 * @throws Error from {@link txEnded} on any access or call after the scope closed; writes to it always throw
 */
export function scoped<T extends object>(target: T, scope: TxScope, path = 'store'): T {
  const made = new Map<PropertyKey, unknown>();
  return new Proxy(target, {
    get(t, key) {
      // The name is built only where it is used (an error, a new nested scope): this runs on every access.
      const name = () => `${path}.${String(key)}`;
      if (!scope.open) throw txEnded(name());
      const hit = made.get(key);
      if (hit !== undefined) return hit;
      const v: unknown = Reflect.get(t, key, t);
      let out: unknown;
      if (typeof v === 'function') {
        out = (...args: unknown[]) => {
          if (!scope.open) throw txEnded(`${name()}()`);
          return (v as (...a: unknown[]) => unknown).apply(t, args);
        };
      } else if (v !== null && typeof v === 'object' && !Buffer.isBuffer(v)) {
        out = scoped(v, scope, name());
      } else {
        return v;
      }
      made.set(key, out);
      return out;
    },
    set(_t, key) {
      throw new Error(`store: ${path}.${String(key)} cannot be assigned through a transaction-scoped store`);
    },
  });
}
