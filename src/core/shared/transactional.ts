/**
 * A store as one part of the core sees it: the repositories R it works with, and a way to run
 * work over them in one transaction (all or nothing). Each area names its R in its own types
 * file; the whole store (src/core/store.ts) holds every area's repositories, so it can be given
 * wherever an area's store is asked for, and no area needs to import another's repositories.
 *
 * `work` may run more than once: on PostgreSQL, a transaction rolled back to break a deadlock is
 * run again. So it changes nothing but `tx` (what it returns is what counts), and anything it must
 * do outside the store (a message, a job) comes after the transaction.
 */
export type Transactional<R> = R & {
  transaction<T>(work: (tx: R) => Promise<T>): Promise<T>;
};
