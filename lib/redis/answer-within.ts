/**
 * `promise`, or a rejection once `ms` have passed (0 or less: no limit).
 * node-redis's command timeout covers only the wait for a command to be sent,
 * never the answer, nor a transaction: a primary that hangs must not hold a
 * request (a take, a confirmation) for ever.
 */
export function answerWithin<T>(
  promise: Promise<T>,
  ms: number,
  late: (ms: number) => Error = (after) => new Error(`Redis did not answer within ${after} ms`),
): Promise<T> {
  if (!(ms > 0)) return promise;
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(late(ms)), ms);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (err: unknown) => {
        clearTimeout(timer);
        reject(err as Error);
      },
    );
  });
}
