/**
 * The smallest Observable a watch needs, so the client depends on nothing but
 * the NATS client: `subscribe` with a function or an observer, and an
 * `unsubscribe` that runs the producer's teardown once. It follows the
 * Observable interop convention, so RxJS's `from(watch)` takes it as it is.
 */

export interface Observer<T> {
  next?(value: T): void;
  error?(err: unknown): void;
  complete?(): void;
}

export interface Subscription {
  unsubscribe(): void;
  readonly closed: boolean;
}

/** What a producer is handed: where to send values. */
export interface Subscriber<T> {
  next(value: T): void;
  error(err: unknown): void;
  complete(): void;
  readonly closed: boolean;
}

export class Observable<T> {
  /** `produce` starts the values for one subscriber and returns how to stop them. */
  constructor(private readonly produce: (subscriber: Subscriber<T>) => () => void) {}

  subscribe(observerOrNext?: Observer<T> | ((value: T) => void)): Subscription {
    const observer: Observer<T> = typeof observerOrNext === "function" ? { next: observerOrNext } : (observerOrNext ?? {});
    let closed = false;
    let teardown: (() => void) | undefined;
    const close = (): void => {
      if (closed) return;
      closed = true;
      const t = teardown;
      teardown = undefined;
      t?.();
    };
    const subscriber: Subscriber<T> = {
      next: (value) => {
        if (!closed) observer.next?.(value);
      },
      error: (err) => {
        if (closed) return;
        close();
        observer.error?.(err);
      },
      complete: () => {
        if (closed) return;
        close();
        observer.complete?.();
      },
      get closed() {
        return closed;
      },
    };
    const t = this.produce(subscriber);
    // A producer that ended during its own start has nothing left to stop later.
    if (closed) t();
    else teardown = t;
    return {
      unsubscribe: close,
      get closed() {
        return closed;
      },
    };
  }

  /** The interop convention (`Symbol.observable`, or its string form where the symbol is not defined). */
  ["@@observable"](): this {
    return this;
  }
}
