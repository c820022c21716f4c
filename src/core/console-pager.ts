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
  readonly #streams = new Map<string, Set<(p: ConsolePage) => Promise<boolean>>>();

  /**
   * Adds `userUuid`'s stream; `send` writes a page to it and resolves true once written, false when
   * the stream could not take it (its session ended, the connection closed); it never rejects.
   * @returns the function that removes it (the stream closed)
   */
  add(userUuid: string, send: (p: ConsolePage) => Promise<boolean>): () => void {
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

  /**
   * Writes `page` to every open stream of `userUuid`.
   * @returns how many streams took it (0: none open, or none still signed in: not reached)
   */
  async deliver(userUuid: string, page: ConsolePage): Promise<number> {
    const set = this.#streams.get(userUuid);
    if (!set) return 0;
    const written = await Promise.all([...set].map((send) => send(page)));
    return written.filter(Boolean).length;
  }
}
