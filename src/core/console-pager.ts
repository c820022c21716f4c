/** What a console stream receives when its person is paged (issue 34 point 1, contact kind `console`). */
export interface ConsolePage {
  /** One line: the browser notification's title. */
  title: string;
  /** A few sentences: the notification's body. */
  text: string;
  /** The acknowledge link, or null (a hand-off notice). */
  link: string | null;
  /** Groups notifications of one outage (the Notifications API `tag`): the outage uuid, or '' for a notice. */
  tag: string;
}

/**
 * The open console streams by person (contact kind `console`): the console's `/events` route adds
 * each signed-in visit's stream with its user's uuid; paging a person hands the page to their open
 * streams only. In memory, per instance: a stream open on another instance of a cluster is not reached.
 */
export class ConsolePager {
  readonly #streams = new Map<string, Set<(p: ConsolePage) => void>>();

  /** Adds `userUuid`'s stream. @returns the function that removes it (the stream closed) */
  add(userUuid: string, send: (p: ConsolePage) => void): () => void {
    let set = this.#streams.get(userUuid);
    if (!set) this.#streams.set(userUuid, (set = new Set()));
    set.add(send);
    return () => {
      set.delete(send);
      if (set.size === 0 && this.#streams.get(userUuid) === set) this.#streams.delete(userUuid);
    };
  }

  /** How many streams of `userUuid` are open on this instance. */
  open(userUuid: string): number {
    return this.#streams.get(userUuid)?.size ?? 0;
  }

  /** Hands `page` to every open stream of `userUuid`. @returns how many streams it went to (0: none open, not reached) */
  deliver(userUuid: string, page: ConsolePage): number {
    const set = this.#streams.get(userUuid);
    if (!set) return 0;
    for (const send of set) send(page);
    return set.size;
  }
}
